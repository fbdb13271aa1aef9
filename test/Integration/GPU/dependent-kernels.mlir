// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --input=3x4xf32=1,2,3,4,5,6,7,8,9,10,11,12 --input=1x2xf32=1,-1
// RUN: %on_emulator %{run} | FileCheck %s
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}

// A group whose matmul reads the reshaped result of its reduction, and the
// mean of reduce_mean with keepdims (a division after a reshape): both once
// ran the reader in the same launch as the reduction, without waiting for
// it (rows after the first came out as 0 or the emulator's NaN fill).
// A keepdims reduction that is a result and feeds another result (its
// reshape once came before the kernel that computes it: a compile error).
// CHECK: 3x2xf32={{\[\[}}10 -10][26 -26][42 -42]]
// CHECK-NEXT: 3x1xf32={{\[\[}}2.5][6.5][10.5]]
// CHECK-NEXT: 1x4xf32={{\[\[}}30 36 42 48]]
// CHECK-NEXT: 1x4xf32={{\[\[}}-30 -36 -42 -48]]
func.func @main(%x: tensor<3x4xf32>, %w: tensor<1x2xf32>) -> (tensor<3x2xf32>, tensor<3x1xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %m = jeet.fusion(%x, %w) : (tensor<3x4xf32>, tensor<1x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<3x4xf32>, %b: tensor<1x2xf32>):
    %r = jeet.reduce_sum %a {axes = array<i64: 1>, keepdims = true} : tensor<3x4xf32> -> tensor<3x1xf32>
    %0 = jeet.matmul %r, %b : tensor<3x1xf32>, tensor<1x2xf32> -> tensor<3x2xf32>
    jeet.yield %0 : tensor<3x2xf32>
  }
  %mean = jeet.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : tensor<3x4xf32> -> tensor<3x1xf32>
  %x2 = jeet.add %x, %x : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  %r = jeet.reduce_sum %x2 {axes = array<i64: 0>, keepdims = true} : tensor<3x4xf32> -> tensor<1x4xf32>
  %n = jeet.neg %r : tensor<1x4xf32>
  return %m, %mean, %r, %n : tensor<3x2xf32>, tensor<3x1xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}
