// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse="multi-reduction=true max-row-bytes=4096" | FileCheck %s

// Multi-reduction fusion with a row limit (the GPU pipeline's choice): a
// reduction group takes row ops and further reductions only when its rows
// are its trailing axes and at most max-row-bytes long.

// Rows of 4096 bytes (1024 f32): one group.
// CHECK-LABEL: func.func @fits
// CHECK-COUNT-1: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @fits(%x: tensor<4x1024xf32>) -> tensor<4x1024xf32> {
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<4x1024xf32>
  return %0 : tensor<4x1024xf32>
}

// -----

// Rows of 4100 bytes: a group per reduction (max; exp and its sum; divide).
// CHECK-LABEL: func.func @too_long
// CHECK-COUNT-3: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @too_long(%x: tensor<4x1025xf32>) -> tensor<4x1025xf32> {
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<4x1025xf32>
  return %0 : tensor<4x1025xf32>
}

// -----

// The same bytes in f16 (2048 halves): one group.
// CHECK-LABEL: func.func @halves
// CHECK-COUNT-1: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @halves(%x: tensor<4x2048xf16>) -> tensor<4x2048xf16> {
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<4x2048xf16>
  return %0 : tensor<4x2048xf16>
}

// -----

// Rows over a leading axis are not contiguous: a group per reduction.
// CHECK-LABEL: func.func @leading_axis
// CHECK-COUNT-3: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @leading_axis(%x: tensor<16x4xf32>) -> tensor<16x4xf32> {
  %0 = jeet.softmax %x {axis = 0 : i64} : tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// Rows of one element: the epilogue x - max runs over the rows too, so the
// sum of its exp joins the group.
// CHECK-LABEL: func.func @one_column
// CHECK-COUNT-1: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @one_column(%x: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}
