// Compile ahead of time, then run with the runtime alone.
// RUN: rm -rf %t && mkdir -p %t
// RUN: jeet-compile %s -o %t/g.so --print-signature | FileCheck %s --check-prefix=SIG
// RUN: jeet-runner %t/g.so --print-signature | FileCheck %s --check-prefix=SIG
// RUN: jeet-runner %t/g.so --input=2x3xf32=1,-2,3,-40,5,6 --input=3xf32=10,20,-30 | FileCheck %s
// RUN: jeet-runner %t/g.so --input=2x3xf32=1,-2,3,-40,5,6 --input=3xf32=10,20,-30 --print-stats | FileCheck %s --check-prefix=STATS

// The same graph, unfused: four kernels, the same numbers.
// RUN: jeet-compile %s -o %t/unfused.so --fuse=false --print-signature | FileCheck %s --check-prefix=UNFUSED
// RUN: jeet-runner %t/unfused.so --input=2x3xf32=1,-2,3,-40,5,6 --input=3xf32=10,20,-30 | FileCheck %s

// Portable host code for another machine's CPU.
// RUN: jeet-compile %s -o %t/generic.so --target-cpu=x86-64-v2
// RUN: jeet-runner %t/generic.so --input=2x3xf32=1,-2,3,-40,5,6 --input=3xf32=10,20,-30 | FileCheck %s

// The artifact exports the ABI and nothing else, and needs libc/libm alone.
// RUN: llvm-nm -D --defined-only %t/unfused.so | FileCheck %s --check-prefix=EXPORTS
// RUN: llvm-readelf -d %t/unfused.so | FileCheck %s --check-prefix=NEEDED

// SIG: v2 entry=main device=cpu inputs=2x3xf32,3xf32 outputs=2x3xf32 kernels={{[1-4]}} arena={{[0-9]+}}{{$}}
// UNFUSED: v2 entry=main device=cpu inputs=2x3xf32,3xf32 outputs=2x3xf32 kernels=4 arena=0
// x + b has negative elements, so the relu matters: without it they would
// come back as -27, -30 and -24.
// CHECK: 2x3xf32={{\[\[}}11 18 0][0 25 0]]
// STATS: device: host
// STATS: kernels per execution: [[K:[1-4]]]
// STATS: kernels executed: [[K]]
// EXPORTS-DAG: jeet_artifact_fini
// EXPORTS-DAG: jeet_artifact_init
// EXPORTS-DAG: jeet_artifact_run
// EXPORTS-DAG: jeet_artifact_signature
// EXPORTS-NOT: main
// NEEDED-NOT: NEEDED{{.*}}jeet
// NEEDED-NOT: NEEDED{{.*}}LLVM
// NEEDED-NOT: NEEDED{{.*}}MLIR
func.func @main(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = jeet.add %x, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %1 = jeet.relu %0 : tensor<2x3xf32>
  %2 = jeet.sub %1, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = jeet.add %2, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}
