// RUN: jeet-opt %s --split-input-file --jeet-lower-to-linalg=epilogue-tile-size=0 | FileCheck %s

// A transpose of matrices that only matmuls of its group read is folded into
// them: they read its input through transposed indexing maps, and no
// linalg.transpose is built.

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @rhs_transposed
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<4x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[BT]], #[[C]]] ins(%[[X]], %[[W]] : tensor<8x16xf32>, tensor<4x16xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @rhs_transposed(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>) -> tensor<8x4xf32> {
  %r = jeet.fusion (%x, %w) : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x16xf32>, %b: tensor<4x16xf32>):
    %bt = jeet.transpose %b {permutation = array<i64: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
    %0 = jeet.matmul %a, %bt : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
    jeet.yield %0 : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

// Batched, A transposed (attention's backward form), with an epilogue.
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batched_lhs_transposed
// CHECK-SAME: (%[[X:.*]]: tensor<3x16x8xf32>, %[[Y:.*]]: tensor<3x16x4xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[M:.*]] = linalg.batch_matmul indexing_maps = [#[[AT]], #[[B]], #[[C]]] ins(%[[X]], %[[Y]] : tensor<3x16x8xf32>, tensor<3x16x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[M]] :
// CHECK: arith.maximumf
func.func @batched_lhs_transposed(%x: tensor<3x16x8xf32>, %y: tensor<3x16x4xf32>) -> tensor<3x8x4xf32> {
  %r = jeet.fusion (%x, %y) : (tensor<3x16x8xf32>, tensor<3x16x4xf32>) -> tensor<3x8x4xf32> {
  ^bb0(%a: tensor<3x16x8xf32>, %b: tensor<3x16x4xf32>):
    %at = jeet.transpose %a {permutation = array<i64: 0, 2, 1>} : tensor<3x16x8xf32> -> tensor<3x8x16xf32>
    %0 = jeet.matmul %at, %b : tensor<3x8x16xf32>, tensor<3x16x4xf32> -> tensor<3x8x4xf32>
    %1 = jeet.relu %0 : tensor<3x8x4xf32>
    jeet.yield %1 : tensor<3x8x4xf32>
  }
  return %r : tensor<3x8x4xf32>
}

// -----

// Broadcast batch dimensions, both operands transposed: the contraction
// generic's maps swap each operand's matrix dimensions.
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>
// CHECK-LABEL: func.func @broadcast_both_transposed
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x16x8xf32>, %[[W:.*]]: tensor<4x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[AT]], #[[BT]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[W]] :
func.func @broadcast_both_transposed(%x: tensor<2x3x16x8xf32>, %w: tensor<4x16xf32>) -> tensor<2x3x8x4xf32> {
  %r = jeet.fusion (%x, %w) : (tensor<2x3x16x8xf32>, tensor<4x16xf32>) -> tensor<2x3x8x4xf32> {
  ^bb0(%a: tensor<2x3x16x8xf32>, %b: tensor<4x16xf32>):
    %at = jeet.transpose %a {permutation = array<i64: 0, 1, 3, 2>} : tensor<2x3x16x8xf32> -> tensor<2x3x8x16xf32>
    %bt = jeet.transpose %b {permutation = array<i64: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
    %0 = jeet.matmul %at, %bt : tensor<2x3x8x16xf32>, tensor<16x4xf32> -> tensor<2x3x8x4xf32>
    jeet.yield %0 : tensor<2x3x8x4xf32>
  }
  return %r : tensor<2x3x8x4xf32>
}

// -----

// A transpose that the group also yields is materialised, and the matmul
// reads the copy.
// CHECK-LABEL: func.func @transpose_yielded
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] :
func.func @transpose_yielded(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>) -> (tensor<8x4xf32>, tensor<16x4xf32>) {
  %r:2 = jeet.fusion (%x, %w) : (tensor<8x16xf32>, tensor<4x16xf32>) -> (tensor<8x4xf32>, tensor<16x4xf32>) {
  ^bb0(%a: tensor<8x16xf32>, %b: tensor<4x16xf32>):
    %bt = jeet.transpose %b {permutation = array<i64: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
    %0 = jeet.matmul %a, %bt : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
    jeet.yield %0, %bt : tensor<8x4xf32>, tensor<16x4xf32>
  }
  return %r#0, %r#1 : tensor<8x4xf32>, tensor<16x4xf32>
}
