// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 --input=2xf32=-10,100
// RUN: %on_emulator %{run} | FileCheck %s
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}

// relu(a @ b + bias): one kernel with the bias and relu as the epilogue.
// CHECK: 2x2xf32={{\[\[}}0 105][0 111]]
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %bias: tensor<2xf32>) -> tensor<2x2xf32> {
  %0 = jeet.matmul %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %1 = jeet.add %0, %bias : tensor<2x2xf32>, tensor<2xf32> -> tensor<2x2xf32>
  %2 = jeet.relu %1 : tensor<2x2xf32>
  return %2 : tensor<2x2xf32>
}
