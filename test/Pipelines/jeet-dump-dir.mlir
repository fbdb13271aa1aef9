// JEET_DUMP_DIR=<dir> writes the IR after each stage of a compilation, one
// file a stage, to <dir>/<entry>-<device>-<hash>/<NN>-<stage>.mlir: for
// jeet-run (the JIT compiler) and jeet-compile (artifacts) alike.
// RUN: rm -rf %t && env JEET_DUMP_DIR=%t jeet-run %s --device=cpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 | FileCheck %s --check-prefix=RESULT
// RUN: ls %t | count 1
// RUN: ls %t/main-cpu-* | FileCheck %s --check-prefix=FILES
// RUN: cat %t/main-cpu-*/00-jeet.mlir | FileCheck %s --check-prefix=JEET
// RUN: cat %t/main-cpu-*/01-fused.mlir | FileCheck %s --check-prefix=FUSED
// RUN: cat %t/main-cpu-*/02-linalg.mlir | FileCheck %s --check-prefix=LINALG
// RUN: cat %t/main-cpu-*/03-bufferized.mlir | FileCheck %s --check-prefix=BUFFERIZED
// RUN: cat %t/main-cpu-*/04-llvm.mlir | FileCheck %s --check-prefix=LLVM

// The same graph compiled again with the same options lands in the same
// folder; with other options, in another.
// RUN: env JEET_DUMP_DIR=%t jeet-run %s --device=cpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 | FileCheck %s --check-prefix=RESULT
// RUN: ls %t | count 1
// RUN: env JEET_DUMP_DIR=%t jeet-run %s --device=cpu --fuse=false --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 | FileCheck %s --check-prefix=RESULT
// RUN: ls %t | count 2

// An artifact's compilation dumps the same stages.
// RUN: rm -rf %t.aot && env JEET_DUMP_DIR=%t.aot jeet-compile %s -o %t.so
// RUN: ls %t.aot/main-cpu-* | FileCheck %s --check-prefix=FILES
// RUN: cat %t.aot/main-cpu-*/01-fused.mlir | FileCheck %s --check-prefix=FUSED

// A folder that cannot be created is a warning; the graph still runs.
// RUN: rm -rf %t.file && touch %t.file
// RUN: env JEET_DUMP_DIR=%t.file jeet-run %s --device=cpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 2>&1 | FileCheck %s --check-prefix=WARN

// RESULT: 2xf32=[9 21]

// FILES: 00-jeet.mlir
// FILES-NEXT: 01-fused.mlir
// FILES-NEXT: 02-linalg.mlir
// FILES-NEXT: 03-bufferized.mlir
// FILES-NEXT: 04-llvm.mlir
// FILES-NOT: {{.}}

// The graph as given.
// JEET-LABEL: func.func @main
// JEET: jeet.matmul
// JEET-NOT: jeet.fusion

// Two fusion groups.
// FUSED-LABEL: func.func @main
// FUSED: jeet.fusion
// FUSED: jeet.matmul
// FUSED: jeet.relu
// FUSED: jeet.yield
// FUSED: jeet.fusion
// FUSED: jeet.reduce_sum

// Linalg on tensors, no jeet op left.
// LINALG-LABEL: func.func @main
// LINALG-SAME: tensor<2x3xf32>
// LINALG: linalg.
// LINALG-NOT: jeet.

// Buffers: the result is an out-parameter.
// BUFFERIZED: func.func @main({{.*}}memref<2x3xf32>{{.*}}memref<2xf32>
// BUFFERIZED-NOT: tensor<

// LLVM: llvm.func @main

// WARN: jeet: warning: JEET_DUMP_DIR: cannot create '{{.*}}.file{{/|\\}}main-cpu-{{[0-9a-f]+}}': {{.+}}; the stages are not dumped
// WARN: 2xf32=[9 21]

func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2xf32> {
  %0 = jeet.matmul %x, %w : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %1 = jeet.relu %0 : tensor<2x2xf32>
  %2 = jeet.reduce_sum %1 {axes = array<i64: 1>, keepdims = false} : tensor<2x2xf32> -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
