// JEET_DUMP_DIR for the GPU pipeline, compiled where there is no GPU: the
// IR after each stage and the PTX of the kernels, from jeet-translate
// --jeet-to-ptx and from jeet-compile --device=gpu.
// RUN: rm -rf %t && env JEET_DUMP_DIR=%t jeet-translate --jeet-to-ptx %s -o %t.ptx
// RUN: ls %t | count 1
// RUN: ls %t/jeet-to-ptx-* | FileCheck %s --check-prefix=FILES
// RUN: cat %t/jeet-to-ptx-*/01-fused.mlir | FileCheck %s --check-prefix=FUSED
// RUN: cat %t/jeet-to-ptx-*/02-kernels.mlir | FileCheck %s --check-prefix=KERNELS
// RUN: cat %t/jeet-to-ptx-*/03-llvm.mlir | FileCheck %s --check-prefix=LLVM
// RUN: cat %t/jeet-to-ptx-*/04-ptx.ptx | FileCheck %s --check-prefix=PTX

// The dumped PTX is the PTX the translation printed, and ptxas takes it.
// RUN: cat %t/jeet-to-ptx-*/04-ptx.ptx > %t.dumped.ptx
// RUN: diff %t.ptx %t.dumped.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.dumped.ptx -o %t.cubin %}

// RUN: rm -rf %t.aot && env JEET_DUMP_DIR=%t.aot jeet-compile %s --device=gpu -o %t.so
// RUN: ls %t.aot/main-gpu-* | FileCheck %s --check-prefix=FILES
// RUN: cat %t.aot/main-gpu-*/04-ptx.ptx | FileCheck %s --check-prefix=PTX

// FILES: 00-jeet.mlir
// FILES-NEXT: 01-fused.mlir
// FILES-NEXT: 02-kernels.mlir
// FILES-NEXT: 03-llvm.mlir
// FILES-NEXT: 04-ptx.ptx
// FILES-NOT: {{.}}

// FUSED-COUNT-2: jeet.fusion
// FUSED-NOT: jeet.fusion

// One launch per fusion group, the kernels outlined into a gpu.module.
// KERNELS-LABEL: func.func @main
// KERNELS-COUNT-2: gpu.launch_func
// KERNELS-NOT: gpu.launch_func
// KERNELS: gpu.module @jeet_kernels

// LLVM: llvm.func @main
// LLVM: gpu.binary @jeet_kernels

// PTX: // kernels of gpu.module @jeet_kernels
// PTX-COUNT-2: .entry
// PTX-NOT: .entry

func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2xf32> {
  %0 = jeet.matmul %x, %w : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %1 = jeet.relu %0 : tensor<2x2xf32>
  %2 = jeet.reduce_sum %1 {axes = array<i64: 1>, keepdims = false} : tensor<2x2xf32> -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
