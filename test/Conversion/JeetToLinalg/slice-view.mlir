// RUN: jeet-opt %s --split-input-file --jeet-lower-to-linalg=epilogue-tile-size=0 | FileCheck %s

// A slice that the ops of its group read (jeet-fuse puts it there) is a
// tensor.extract_slice of the group's input, read by the group's generic:
// no loop copies it. A reshape of it by unit dimensions is the slice with
// its unit dimensions dropped (a rank-reducing extract_slice) and the
// reshape's added (expand_shape): views of any strided buffer, where a
// collapse of the strided slice would have been copied.
// CHECK-LABEL: func.func @gates
// CHECK-SAME: (%[[Y:.*]]: tensor<4x48xf32>)
// CHECK-DAG: %[[A:.*]] = tensor.extract_slice %[[Y]][0, 0] [4, 16] [1, 1] : tensor<4x48xf32> to tensor<4x16xf32>
// CHECK-DAG: %[[C:.*]] = tensor.extract_slice %[[Y]][0, 16] [4, 16] [1, 2] : tensor<4x48xf32> to tensor<4x16xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[C]] : tensor<4x16xf32>, tensor<4x16xf32>)
// CHECK: math.exp
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @gates(%y: tensor<4x48xf32>) -> tensor<4x16xf32> {
  %0 = jeet.fusion(%y) : (tensor<4x48xf32>) -> tensor<4x16xf32> {
  ^bb0(%arg0: tensor<4x48xf32>):
    %a = jeet.slice %arg0 {starts = array<i64: 0, 0>, stops = array<i64: 4, 16>, steps = array<i64: 1, 1>} : tensor<4x48xf32> -> tensor<4x16xf32>
    %c = jeet.slice %arg0 {starts = array<i64: 0, 16>, stops = array<i64: 4, 48>, steps = array<i64: 1, 2>} : tensor<4x48xf32> -> tensor<4x16xf32>
    %s = jeet.sigmoid %a : tensor<4x16xf32>
    %r = jeet.add %s, %c : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
    jeet.yield %r : tensor<4x16xf32>
  }
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @stacked
// CHECK-SAME: (%[[X:.*]]: tensor<3x2x8xf32>, %[[W:.*]]: tensor<8x4xf32>)
// CHECK: %[[M:.*]] = tensor.extract_slice %[[X]][2, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<3x2x8xf32> to tensor<2x8xf32>
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.matmul ins(%[[M]], %[[W]] : tensor<2x8xf32>, tensor<8x4xf32>)
func.func @stacked(%x: tensor<3x2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %0 = jeet.fusion(%x, %w) : (tensor<3x2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%arg0: tensor<3x2x8xf32>, %arg1: tensor<8x4xf32>):
    %v = jeet.slice %arg0 {starts = array<i64: 2, 0, 0>, stops = array<i64: 3, 2, 8>, steps = array<i64: 1, 1, 1>} : tensor<3x2x8xf32> -> tensor<1x2x8xf32>
    %m = jeet.reshape %v : tensor<1x2x8xf32> -> tensor<2x8xf32>
    %r = jeet.matmul %m, %arg1 : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
    jeet.yield %r : tensor<2x4xf32>
  }
  return %0 : tensor<2x4xf32>
}

// -----

// A slice that its group yields is copied by a loop of its own.
// CHECK-LABEL: func.func @yielded
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.generic
// CHECK: tensor.extract
// CHECK: return
func.func @yielded(%x: tensor<6x8xf32>) -> tensor<3x8xf32> {
  %0 = jeet.fusion(%x) : (tensor<6x8xf32>) -> tensor<3x8xf32> {
  ^bb0(%arg0: tensor<6x8xf32>):
    %a = jeet.slice %arg0 {starts = array<i64: 0, 0>, stops = array<i64: 3, 8>, steps = array<i64: 1, 1>} : tensor<6x8xf32> -> tensor<3x8xf32>
    jeet.yield %a : tensor<3x8xf32>
  }
  return %0 : tensor<3x8xf32>
}

// -----

// Unit dimensions moved: dropped by the slice, added by an expand_shape.
// CHECK-LABEL: func.func @moved_unit_dims
// CHECK: %[[V:.*]] = tensor.extract_slice %{{.*}}[1, 1, 0, 0] [10, 1, 2, 15] [3, 1, 3, 1] : tensor<31x5x5x16xi32> to tensor<10x2x15xi32>
// CHECK: tensor.expand_shape %[[V]] {{\[}}[0], [1], [2, 3]] output_shape [10, 2, 1, 15] : tensor<10x2x15xi32> into tensor<10x2x1x15xi32>
// CHECK-NOT: tensor.collapse_shape
func.func @moved_unit_dims(%x: tensor<31x5x5x16xi32>, %y: tensor<10x2x1x15xi32>) -> tensor<10x2x1x15xi32> {
  %0 = jeet.fusion(%x, %y) : (tensor<31x5x5x16xi32>, tensor<10x2x1x15xi32>) -> tensor<10x2x1x15xi32> {
  ^bb0(%arg0: tensor<31x5x5x16xi32>, %arg1: tensor<10x2x1x15xi32>):
    %s = jeet.slice %arg0 {starts = array<i64: 1, 1, 0, 0>, steps = array<i64: 3, 1, 3, 1>, stops = array<i64: 40, 2, -1, -1>} : tensor<31x5x5x16xi32> -> tensor<10x1x2x15xi32>
    %r = jeet.reshape %s : tensor<10x1x2x15xi32> -> tensor<10x2x1x15xi32>
    %z = jeet.xor %r, %arg1 : tensor<10x2x1x15xi32>, tensor<10x2x1x15xi32> -> tensor<10x2x1x15xi32>
    jeet.yield %z : tensor<10x2x1x15xi32>
  }
  return %0 : tensor<10x2x1x15xi32>
}
