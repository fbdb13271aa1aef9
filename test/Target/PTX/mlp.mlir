// REQUIRES: ptxas
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_90 > %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=ENTRY < %t.sm90.ptx
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_80 > %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx
// RUN: jeet-translate --jeet-to-ptx %s --jeet-fuse=false | FileCheck %s --check-prefix=UNFUSED

// A two-layer perceptron with a softmax head: two matmul kernels with their
// epilogues, one softmax kernel, in one PTX module. Unfused, every op
// (matmul, add, relu, matmul, add, and the five ops of the softmax) is a
// kernel of its own.

// ENTRY: // kernels of gpu.module @jeet_kernels
// ENTRY-NOT: // kernels of
// ENTRY-COUNT-3: .entry
// ENTRY-NOT: .entry
// SM80-COUNT-3: .entry

// The first layer stages its K-tiles of A and B in shared memory and keeps
// its accumulator tile in registers.
// PTX-LABEL: .entry main_kernel(
// PTX: .shared .align 16 .b8 __wg_main_kernel_0[4096];
// PTX: .shared .align 16 .b8 __wg_main_kernel_1[4096];
// PTX: bar.sync 0;
// PTX: fma.rn.f32
// UNFUSED-COUNT-10: .entry
// UNFUSED-NOT: .entry
func.func @main(%x: tensor<32x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
                %w2: tensor<128x10xf32>, %b2: tensor<10xf32>) -> tensor<32x10xf32> {
  %0 = "jeet.matmul"(%x, %w1) : (tensor<32x64xf32>, tensor<64x128xf32>) -> tensor<32x128xf32>
  %1 = "jeet.add"(%0, %b1) : (tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %2 = "jeet.relu"(%1) : (tensor<32x128xf32>) -> tensor<32x128xf32>
  %3 = "jeet.matmul"(%2, %w2) : (tensor<32x128xf32>, tensor<128x10xf32>) -> tensor<32x10xf32>
  %4 = "jeet.add"(%3, %b2) : (tensor<32x10xf32>, tensor<10xf32>) -> tensor<32x10xf32>
  %5 = "jeet.softmax"(%4) {axis = 1 : i64} : (tensor<32x10xf32>) -> tensor<32x10xf32>
  return %5 : tensor<32x10xf32>
}
