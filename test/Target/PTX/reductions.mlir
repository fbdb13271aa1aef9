// REQUIRES: ptxas
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_90 > %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=ENTRY < %t.sm90.ptx
// RUN: jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_80 > %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx

// Reductions along each axis, with and without keepdims, to a scalar, and
// with an elementwise prologue (sum of squares is one kernel).

// SM80-COUNT-5: .entry
// ENTRY-COUNT-5: .entry
// ENTRY-NOT: .entry

// Row reductions take a warp per row: lanes fold strided elements, then a
// butterfly of shuffles combines them.
// PTX-LABEL: .entry sum_of_squares_kernel(
// PTX: bar.sync 0;
// PTX: mul.rn.f32
// PTX: add.rn.f32
// PTX: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// PTX: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// PTX: add.rn.f32
// PTX-NOT: .entry
// PTX: st.global.b32
func.func @sum_of_squares(%a: tensor<128x300xf32>) -> tensor<128xf32> {
  %0 = "jeet.mul"(%a, %a) : (tensor<128x300xf32>, tensor<128x300xf32>) -> tensor<128x300xf32>
  %1 = "jeet.reduce_sum"(%0) {axes = array<i64: 1>, keepdims = false} : (tensor<128x300xf32>) -> tensor<128xf32>
  return %1 : tensor<128xf32>
}

// PTX-LABEL: .entry column_max_kernel(
// PTX: max.NaN.f32
func.func @column_max(%a: tensor<128x300xf32>) -> tensor<1x300xf32> {
  %1 = "jeet.reduce_max"(%a) {axes = array<i64: 0>, keepdims = true} : (tensor<128x300xf32>) -> tensor<1x300xf32>
  return %1 : tensor<1x300xf32>
}

// PTX-LABEL: .entry mean_kernel(
// PTX: div.rn.f32
func.func @mean(%a: tensor<4x50x30xf32>) -> tensor<4x1x30xf32> {
  %1 = "jeet.reduce_mean"(%a) {axes = array<i64: 1>, keepdims = true} : (tensor<4x50x30xf32>) -> tensor<4x1x30xf32>
  return %1 : tensor<4x1x30xf32>
}

// PTX-LABEL: .entry total_kernel(
func.func @total(%a: tensor<128x300xf32>) -> tensor<f32> {
  %1 = "jeet.reduce_mean"(%a) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<128x300xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// PTX-LABEL: .entry integer_kernel(
// PTX: shfl.sync.bfly.b32
// PTX: max.s32
func.func @integer(%a: tensor<64x64xi32>) -> tensor<64xi32> {
  %1 = "jeet.reduce_max"(%a) {axes = array<i64: 1>, keepdims = false} : (tensor<64x64xi32>) -> tensor<64xi32>
  return %1 : tensor<64xi32>
}
