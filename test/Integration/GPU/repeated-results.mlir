// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --input=3xf32=-1,2,-3
// RUN: %on_emulator %{run} | FileCheck %s
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}

// One value returned twice, and two equal computations that CSE merges: each
// result still gets its own buffer.
// CHECK: 3xf32={{\[}}0 2 0]
// CHECK-NEXT: 3xf32={{\[}}0 2 0]
// CHECK-NEXT: 3xf32={{\[}}1 2 3]
// CHECK-NEXT: 3xf32={{\[}}1 2 3]
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = jeet.relu %x : tensor<3xf32>
  %1 = jeet.abs %x : tensor<3xf32>
  %2 = jeet.abs %x : tensor<3xf32>
  return %0, %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
