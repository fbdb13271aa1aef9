// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --input=2x3xf32=1,-2,3,4,5,-6 --input=2x37xf32=-1,-4.5,-8,-11.5,-15,-18.5,-3.5,-7,-10.5,-14,-17.5,-2.5,-6,-9.5,-13,-16.5,-1.5,-5,-8.5,-12,-15.5,-19,-4,-7.5,-11,-14.5,-18,-3,-6.5,-10,-13.5,-17,-2,-5.5,-9,-12.5,-16,-2,-5.5,-9,-12.5,-16,-19.5,-4.5,-8,-11.5,-15,-18.5,-3.5,-7,-10.5,-14,-17.5,-2.5,-6,-9.5,-13,-16.5,-20,-5,-8.5,-12,-15.5,-19,-4,-7.5,-11,-14.5,-18,-3,-6.5,-10,-13.5,-17
// RUN: %on_emulator %{run} | FileCheck %s
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}

// Sum of squares over rows, max over columns (keepdims), mean of all; the
// max of rows of 37 all-negative values (a warp per row, 5 lanes with two
// elements: lanes that start from anything but -inf show), max -1 and -2.
// CHECK: 2xf32={{\[}}14 77]
// CHECK-NEXT: 1x3xf32={{\[\[}}4 5 3]]
// CHECK-NEXT: f32=0.833333
// CHECK-NEXT: 2xf32={{\[}}-1 -2]
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x37xf32>) -> (tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<2xf32>) {
  %sq = jeet.mul %x, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %0 = jeet.reduce_sum %sq {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
  %1 = jeet.reduce_max %x {axes = array<i64: 0>, keepdims = true} : tensor<2x3xf32> -> tensor<1x3xf32>
  %2 = jeet.reduce_mean %x {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  %3 = jeet.reduce_max %y {axes = array<i64: 1>} : tensor<2x37xf32> -> tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<1x3xf32>, tensor<f32>, tensor<2xf32>
}
