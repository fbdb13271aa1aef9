// RUN: jeet-opt %s --jeet-gpu-form-kernels | FileCheck %s

// A group whose matmul reads the reshaped result of its reduction: tiling
// cannot fuse through the reshape (and a named matmul does not collapse), so
// the reduction is a forall of its own, and it must be a kernel of its own,
// launched first: the blocks of one launch do not wait for each other, so
// the matmul's blocks could read the reduction before it is written.
// CHECK-LABEL: func.func @reduction_feeds_matmul
// CHECK: scf.forall
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: } {jeet.kernel = 1 : i64
// CHECK: tensor.expand_shape
// CHECK: scf.forall
// CHECK: linalg.matmul
// CHECK: } {jeet.kernel = 0 : i64
func.func @reduction_feeds_matmul(%x: tensor<4x6xf32>, %w: tensor<1x5xf32>) -> tensor<4x5xf32> {
  %m = jeet.fusion(%x, %w) : (tensor<4x6xf32>, tensor<1x5xf32>) -> tensor<4x5xf32> {
  ^bb0(%a: tensor<4x6xf32>, %b: tensor<1x5xf32>):
    %r = jeet.reduce_sum %a {axes = array<i64: 1>, keepdims = true} : tensor<4x6xf32> -> tensor<4x1xf32>
    %0 = jeet.matmul %r, %b : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x5xf32>
    jeet.yield %0 : tensor<4x5xf32>
  }
  return %m : tensor<4x5xf32>
}
