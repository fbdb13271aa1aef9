// JEET_DEBUG=1 prints each compilation's stages, in order, with their wall
// and CPU times, and the fusion groups once they are formed; JEET_DEBUG=2
// adds the time of each MLIR pass and each LLVM pass; other values (or none)
// print nothing.
// RUN: env JEET_DEBUG=1 jeet-run %s --device=cpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 2> %t.cpu.err | FileCheck %s --check-prefix=RESULT
// RUN: FileCheck %s --check-prefix=CPU < %t.cpu.err
// RUN: env JEET_DEBUG=0 jeet-run %s --device=cpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 2>&1 | FileCheck %s --check-prefix=OFF

// RESULT: 2xf32=[9 21]

// CPU: jeet: compiling main-cpu-{{[0-9a-f]+}} with jeet-cpu-pipeline{bf16-conversion=host fuse=true fuse-attention=true matmul-register-cols=0 max-fusion-ops=64 merge-parallel-regions=true {{.*}}}{{$}}
// CPU-NEXT: jeet:   01 fused {{ *[0-9]+\.[0-9]+}} ms   cpu {{ *[0-9]+\.[0-9]+}} ms{{$}}
// CPU-NEXT: jeet:      2 fusion group(s), one kernel each:
// CPU-NEXT: jeet:        kernel 0: jeet.matmul + jeet.relu
// CPU-NEXT: jeet:        kernel 1: jeet.reduce_sum
// CPU-NEXT: jeet:   02 linalg {{ *[0-9]+\.[0-9]+}} ms
// CPU-NEXT: jeet:   03 bufferized {{ *[0-9]+\.[0-9]+}} ms
// CPU-NEXT: jeet:   04 llvm {{ *[0-9]+\.[0-9]+}} ms
// CPU-NEXT: jeet:      translate {{ *[0-9]+\.[0-9]+}} ms
// CPU-NEXT: jeet:      optimize {{ *[0-9]+\.[0-9]+}} ms
// CPU-NEXT: jeet:      codegen {{ *[0-9]+\.[0-9]+}} ms
// CPU-NEXT: jeet:      link {{ *[0-9]+\.[0-9]+}} ms
// CPU-NEXT: jeet:      total {{ *[0-9]+\.[0-9]+}} ms   cpu {{ *[0-9]+\.[0-9]+}} ms{{$}}

// OFF-NOT: jeet:
// OFF: 2xf32=[9 21]
// OFF-NOT: jeet:

// JEET_DEBUG=2: the stages, then LLVM's time per pass in the optimisation
// and code generation steps, then MLIR's per pass, nested in the stages.
// RUN: env JEET_DEBUG=2 jeet-run %s --device=cpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 2>&1 | FileCheck %s --check-prefix=PASSES

// PASSES: jeet:   04 llvm
// PASSES: Pass execution timing report
// PASSES: InstCombinePass
// PASSES: jeet:      optimize
// PASSES: Pass execution timing report
// PASSES: X86 DAG->DAG Instruction Selection
// PASSES: jeet:      codegen
// PASSES: jeet:      total
// PASSES: Execution time report
// PASSES: {{^ +[0-9.]+ +\([ 0-9.]+%\) +}}llvm
// PASSES-NEXT: SCFForallToParallelLoop
// PASSES: 2xf32=[9 21]

// The stages of the GPU pipeline (which compiles on a machine without one),
// from jeet-compile (ahead of time, then LLVM code generation and linking)
// and from jeet-translate.
// RUN: env JEET_DEBUG=1 jeet-compile %s --device=gpu -o %t.so 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: env JEET_DEBUG=1 jeet-translate --jeet-to-ptx %s -o %t.ptx 2>&1 | FileCheck %s --check-prefix=PTX

// GPU: jeet: compiling main-gpu-{{[0-9a-f]+}} with jeet-gpu-pipeline{{[{]}}O=3 block-size=256 chip=sm_90 {{.*}}}{{$}}
// GPU-NEXT: jeet:   01 fused {{ *[0-9]+\.[0-9]+}} ms
// GPU-NEXT: jeet:      2 fusion group(s), one kernel each:
// GPU-NEXT: jeet:        kernel 0: jeet.matmul + jeet.relu
// GPU-NEXT: jeet:        kernel 1: jeet.reduce_sum
// GPU-NEXT: jeet:   02 kernels {{ *[0-9]+\.[0-9]+}} ms
// GPU-NEXT: jeet:   03 llvm {{ *[0-9]+\.[0-9]+}} ms
// GPU-NEXT: jeet:      object {{ *[0-9]+\.[0-9]+}} ms
// GPU-NEXT: jeet:      link {{ *[0-9]+\.[0-9]+}} ms
// GPU-NEXT: jeet:      total {{ *[0-9]+\.[0-9]+}} ms

// PTX: jeet: compiling jeet-to-ptx-{{[0-9a-f]+}} with jeet-gpu-pipeline{{[{].*}}format=isa{{.*}}}{{$}}
// PTX: jeet:   02 kernels
// PTX: jeet:   03 llvm
// PTX-NEXT: jeet:      total

func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2xf32> {
  %0 = jeet.matmul %x, %w : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %1 = jeet.relu %0 : tensor<2x2xf32>
  %2 = jeet.reduce_sum %1 {axes = array<i64: 1>, keepdims = false} : tensor<2x2xf32> -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
