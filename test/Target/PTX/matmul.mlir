// REQUIRES: ptxas
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_90 > %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=ENTRY < %t.sm90.ptx
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_80 > %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx
// RUN: %ptxas -arch=sm_90 -v %t.sm90.ptx -o %t.sm90.cubin 2>&1 | FileCheck %s --check-prefix=RESOURCES
// RUN: %ptxas -arch=sm_90 -v %t.sm90.ptx -o %t.sm90.cubin 2>&1 | FileCheck %s --check-prefix=SQUARE

// Matmuls: with an epilogue, sizes that are not multiples of the tile,
// batched, broadcast batch, f16, and a 1024^3 one.

// Every matmul kernel is register-tiled: the K-tiles of A (64x16) and B
// (16x64) are staged in 2 x 4 KB of shared memory, each thread keeps a 4x4
// accumulator tile in registers and applies the epilogue to it; no kernel
// spills.
// RESOURCES-COUNT-6: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// RESOURCES-NOT: bytes spill stores
// SQUARE: Compiling entry function 'square_1024_kernel' for 'sm_90'
// SQUARE-NEXT: Function properties for square_1024_kernel
// SQUARE-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SQUARE-NEXT: Used {{[0-9]+}} registers, used 1 barriers, 8192 bytes smem

// SM80: .target sm_80
// SM80-COUNT-6: .entry
// ENTRY-COUNT-6: .entry
// ENTRY-NOT: .entry

// PTX-LABEL: .entry matmul_bias_relu_kernel(
// PTX: .shared .align 16 .b8 __wg_matmul_bias_relu_kernel_0[4096];
// PTX: .shared .align 16 .b8 __wg_matmul_bias_relu_kernel_1[4096];
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX-COUNT-16: fma.rn.f32
// PTX: bar.sync 0;
// PTX: max.NaN.f32
// PTX-NOT: .entry
// PTX: st.global.b32
func.func @matmul_bias_relu(%x: tensor<256x128xf32>, %w: tensor<128x192xf32>, %b: tensor<192xf32>) -> tensor<256x192xf32> {
  %0 = "jeet.matmul"(%x, %w) : (tensor<256x128xf32>, tensor<128x192xf32>) -> tensor<256x192xf32>
  %1 = "jeet.add"(%0, %b) : (tensor<256x192xf32>, tensor<192xf32>) -> tensor<256x192xf32>
  %2 = "jeet.relu"(%1) : (tensor<256x192xf32>) -> tensor<256x192xf32>
  return %2 : tensor<256x192xf32>
}

// PTX-LABEL: .entry odd_sizes_kernel(
func.func @odd_sizes(%x: tensor<100x50xf32>, %w: tensor<50x70xf32>) -> tensor<100x70xf32> {
  %0 = "jeet.matmul"(%x, %w) : (tensor<100x50xf32>, tensor<50x70xf32>) -> tensor<100x70xf32>
  %1 = "jeet.tanh"(%0) : (tensor<100x70xf32>) -> tensor<100x70xf32>
  return %1 : tensor<100x70xf32>
}

// PTX-LABEL: .entry batched_kernel(
func.func @batched(%a: tensor<8x33x65xf32>, %b: tensor<8x65x130xf32>) -> tensor<8x33x130xf32> {
  %0 = "jeet.matmul"(%a, %b) : (tensor<8x33x65xf32>, tensor<8x65x130xf32>) -> tensor<8x33x130xf32>
  return %0 : tensor<8x33x130xf32>
}

// PTX-LABEL: .entry broadcast_batch_kernel(
func.func @broadcast_batch(%a: tensor<4x2x16x8xf32>, %b: tensor<8x24xf32>) -> tensor<4x2x16x24xf32> {
  %0 = "jeet.matmul"(%a, %b) : (tensor<4x2x16x8xf32>, tensor<8x24xf32>) -> tensor<4x2x16x24xf32>
  %1 = "jeet.gelu"(%0) : (tensor<4x2x16x24xf32>) -> tensor<4x2x16x24xf32>
  return %1 : tensor<4x2x16x24xf32>
}

// PTX-LABEL: .entry half_kernel(
func.func @half(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf16> {
  %0 = "jeet.matmul"(%a, %b) : (tensor<64x32xf16>, tensor<32x48xf16>) -> tensor<64x48xf16>
  return %0 : tensor<64x48xf16>
}

// PTX-LABEL: .entry square_1024_kernel(
// PTX: .shared .align 16 .b8 __wg_square_1024_kernel_0[4096];
// PTX: .shared .align 16 .b8 __wg_square_1024_kernel_1[4096];
// PTX: bar.sync 0;
// PTX-COUNT-256: fma.rn.f32
// PTX: bar.sync 0;
// PTX: max.NaN.f32
func.func @square_1024(%x: tensor<1024x1024xf32>, %w: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %0 = "jeet.matmul"(%x, %w) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = "jeet.add"(%0, %b) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %2 = "jeet.relu"(%1) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %2 : tensor<1024x1024xf32>
}
