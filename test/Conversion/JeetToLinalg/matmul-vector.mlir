// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s

// A matrix-vector product lowers as its decomposition: the vector expanded
// to a column, a matmul of matrices, and the unit column collapsed away.
// CHECK-LABEL: func.func @matvec
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK: %[[COL:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[A]], %[[COL]] : tensor<4x3xf32>, tensor<3x1xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK: return %[[R]]
func.func @matvec(%a: tensor<4x3xf32>, %v: tensor<3xf32>) -> tensor<4xf32> {
  %0 = jeet.matmul %a, %v : tensor<4x3xf32>, tensor<3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
