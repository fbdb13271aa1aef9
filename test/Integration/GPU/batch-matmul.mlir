// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --input=2x2x3xf32=1,2,3,4,5,6,1,0,0,0,1,0 --input=3x2xf32=1,0,0,1,1,1
// RUN: %on_emulator %{run} | FileCheck %s
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}

// A batched matmul whose right operand broadcasts over the batch.
// CHECK: 2x2x2xf32={{\[\[\[}}4 5][10 11]][{{\[}}1 0][0 1]]]
func.func @main(%a: tensor<2x2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2x2xf32> {
  %0 = jeet.matmul %a, %b : tensor<2x2x3xf32>, tensor<3x2xf32> -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}
