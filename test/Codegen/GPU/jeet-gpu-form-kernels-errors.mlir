// RUN: jeet-opt %s -split-input-file -verify-diagnostics --jeet-gpu-form-kernels

// A group of rank-0 ops with two results: a kernel with no parallel dimension
// is one tile, which holds one result only (a limitation of the pass).
func.func @scalar_group_with_two_results(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  // expected-error @+1 {{'linalg.generic' op cannot be mapped to one GPU kernel: 2 results and no parallel dimension}}
  %r:2 = jeet.fusion(%a, %b) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = jeet.add %x, %y : tensor<f32>, tensor<f32> -> tensor<f32>
    %e = jeet.exp %s : tensor<f32>
    jeet.yield %s, %e : tensor<f32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}
