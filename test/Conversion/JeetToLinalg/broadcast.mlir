// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s

// Broadcast operands are read through their indexing maps, never expanded.

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[B3IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @trailing
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[COL]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32>)
// CHECK: arith.addf
func.func @trailing(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = jeet.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// Unit dimensions that stretch are collapsed away.
// CHECK-LABEL: func.func @stretch_both
// CHECK-SAME: (%[[A:.*]]: tensor<4x1xf32>, %[[B:.*]]: tensor<1x3xf32>)
// CHECK-DAG: %[[CA:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK-DAG: %[[CB:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1]] : tensor<1x3xf32> into tensor<3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ROW]], #[[COL]], #[[ID2]]]
// CHECK-SAME: ins(%[[CA]], %[[CB]] :
// CHECK: arith.mulf
func.func @stretch_both(%a: tensor<4x1xf32>, %b: tensor<1x3xf32>) -> tensor<4x3xf32> {
  %0 = jeet.mul %a, %b : tensor<4x1xf32>, tensor<1x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// A unit dimension that does not stretch stays.
// CHECK-LABEL: func.func @unit_kept
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]]
func.func @unit_kept(%a: tensor<4x1xf32>, %b: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = jeet.sub %a, %b : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// A rank-0 operand has an empty-result map.
// CHECK-LABEL: func.func @rank0
// CHECK-SAME: (%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<2x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #[[ID2]], #[[ID2]]]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<f32>, tensor<2x3xf32>)
// CHECK: arith.divf
func.func @rank0(%a: tensor<f32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jeet.div %a, %b : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// An all-ones operand collapses to rank 0.
// CHECK-LABEL: func.func @all_ones
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[SCALAR]], #[[ID2]]]
// CHECK-SAME: ins(%{{.*}}, %[[C]] :
func.func @all_ones(%a: tensor<2x3xf32>, %b: tensor<1x1xf32>) -> tensor<2x3xf32> {
  %0 = jeet.max %a, %b : tensor<2x3xf32>, tensor<1x1xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// broadcast_to is a generic that copies through the broadcast map.
// CHECK-LABEL: func.func @broadcast_to
// CHECK-SAME: (%[[A:.*]]: tensor<2x1x6xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0], [1, 2]] : tensor<2x1x6xf32> into tensor<2x6xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x5x6xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[B3IN]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[C]] : tensor<2x6xf32>) outs(%[[E]] : tensor<2x5x6xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[X]] : f32
// CHECK: return %[[R]]
func.func @broadcast_to(%a: tensor<2x1x6xf32>) -> tensor<2x5x6xf32> {
  %0 = jeet.broadcast_to %a : tensor<2x1x6xf32> -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}
