// REQUIRES: cuda-driver
// RUN: jeet-run %s --device=gpu --input=3xf32=-1,2,-3 | FileCheck %s

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
