// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --input=2x3xf32=1,2,3,1000,1000,1000
// RUN: %on_emulator %{run} | FileCheck %s
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}

// Softmax is stable for large inputs (the row max is subtracted first).
// CHECK: 2x3xf32={{\[\[}}0.0900305{{[0-9]*}} 0.244728{{[0-9]*}} 0.665240{{[0-9]*}}][0.333333{{[0-9]*}} 0.333333{{[0-9]*}} 0.333333{{[0-9]*}}]]
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
