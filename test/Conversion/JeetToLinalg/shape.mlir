// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = jeet.transpose %a {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @reshape_collapse
// CHECK: %[[R:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: return %[[R]]
func.func @reshape_collapse(%a: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = jeet.reshape %a : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// CHECK-LABEL: func.func @reshape_expand
// CHECK: %[[R:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2, 3, 2] : tensor<2x6xf32> into tensor<2x3x2xf32>
// CHECK: return %[[R]]
func.func @reshape_expand(%a: tensor<2x6xf32>) -> tensor<2x3x2xf32> {
  %0 = jeet.reshape %a : tensor<2x6xf32> -> tensor<2x3x2xf32>
  return %0 : tensor<2x3x2xf32>
}

// Neither a collapse nor an expansion: through 1-D.
// CHECK-LABEL: func.func @reshape_general
// CHECK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x6xf32> into tensor<12xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
// CHECK: return %[[R]]
func.func @reshape_general(%a: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = jeet.reshape %a : tensor<2x6xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @reshape_rank0
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[C]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: return %[[C]], %[[E]]
func.func @reshape_rank0(%a: tensor<1x1xf32>) -> (tensor<f32>, tensor<1xf32>) {
  %0 = jeet.reshape %a : tensor<1x1xf32> -> tensor<f32>
  %1 = jeet.reshape %0 : tensor<f32> -> tensor<1xf32>
  return %0, %1 : tensor<f32>, tensor<1xf32>
}
