// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run1} = jeet-run %s --device=gpu --input=2x3xf32=1,2,3,4,5,6 --input=3xf32=10,20,30
// RUN: %on_emulator %{run1} | FileCheck %s
// RUN: %if cuda-driver %{ %{run1} | FileCheck %s %}
// DEFINE: %{run2} = jeet-run %s --device=gpu --fuse=false --input=2x3xf32=1,2,3,4,5,6 --input=3xf32=10,20,30
// RUN: %on_emulator %{run2} | FileCheck %s
// RUN: %if cuda-driver %{ %{run2} | FileCheck %s %}

// (a + b) * 2 - a, with b broadcast along the rows.
// CHECK: 2x3xf32={{\[\[}}21 42 63][24 45 66]]
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %two = jeet.constant dense<2.0> : tensor<f32>
  %0 = jeet.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %1 = jeet.mul %0, %two : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %2 = jeet.sub %1, %a : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
