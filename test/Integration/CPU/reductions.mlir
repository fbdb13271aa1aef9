// RUN: jeet-run %s --input=2x3xf32=1,-2,3,4,-5,-6 | FileCheck %s

// Sum of squares over rows, max over columns (keepdims), mean of all. The
// middle column is all negative: a maximum that starts from 0 instead of
// -inf would give 0 there.
// CHECK: 2xf32={{\[}}14 77]
// CHECK-NEXT: 1x3xf32={{\[\[}}4 -2 3]]
// CHECK-NEXT: f32=-0.833333
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<1x3xf32>, tensor<f32>) {
  %sq = jeet.mul %x, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %0 = jeet.reduce_sum %sq {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
  %1 = jeet.reduce_max %x {axes = array<i64: 0>, keepdims = true} : tensor<2x3xf32> -> tensor<1x3xf32>
  %2 = jeet.reduce_mean %x {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<2xf32>, tensor<1x3xf32>, tensor<f32>
}
