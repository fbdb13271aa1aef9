// RUN: jeet-opt %s --split-input-file --jeet-cancel-transposes | FileCheck %s

// A convolution computed transposed, then a depthwise one computed channels
// last: the result's transpose back to NCHW, its bias, the reshape to
// (N, C, H, W) and the transpose to NHWC become the bias on the matmul's
// (N, positions, C) and a reshape. The bias (1, C, 1) is read as (1, 1, C).
// CHECK-LABEL: func.func @into_channels_last
// CHECK-SAME: (%[[M:[^:]*]]: tensor<1x9x32xf32>, %[[B:[^:]*]]: tensor<1x32x1xf32>)
// CHECK-NOT: jeet.transpose
// CHECK: %[[B2:.*]] = jeet.reshape %[[B]] : tensor<1x32x1xf32> -> tensor<1x1x32xf32>
// CHECK: %[[A:.*]] = jeet.add %[[M]], %[[B2]] : tensor<1x9x32xf32>, tensor<1x1x32xf32> -> tensor<1x9x32xf32>
// CHECK: %[[R:.*]] = jeet.relu %[[A]] : tensor<1x9x32xf32>
// CHECK: %[[Y:.*]] = jeet.reshape %[[R]] : tensor<1x9x32xf32> -> tensor<1x3x3x32xf32>
// CHECK-NOT: jeet.transpose
// CHECK: return %[[Y]]
func.func @into_channels_last(%m: tensor<1x9x32xf32>, %b: tensor<1x32x1xf32>) -> tensor<1x3x3x32xf32> {
  %t = jeet.transpose %m {permutation = array<i64: 0, 2, 1>} : tensor<1x9x32xf32> -> tensor<1x32x9xf32>
  %a = jeet.add %t, %b : tensor<1x32x9xf32>, tensor<1x32x1xf32> -> tensor<1x32x9xf32>
  %r = jeet.relu %a : tensor<1x32x9xf32>
  %s = jeet.reshape %r : tensor<1x32x9xf32> -> tensor<1x32x3x3xf32>
  %y = jeet.transpose %s {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x32x3x3xf32> -> tensor<1x3x3x32xf32>
  return %y : tensor<1x3x3x32xf32>
}

// -----

// The way back: a channels-last result transposed to NCHW, a bias of rank 3
// (C, 1, 1) and a cast, the positions merged, and the next convolution's
// transpose to (N, positions, C). The merged dimensions (H, W) are
// neighbours in the same order before the transpose.
// CHECK-LABEL: func.func @out_of_channels_last
// CHECK-SAME: (%[[S:[^:]*]]: tensor<1x3x3x32xf32>, %[[B:[^:]*]]: tensor<32x1x1xf32>)
// CHECK-NOT: jeet.transpose
// CHECK: %[[B2:.*]] = jeet.reshape %[[B]] : tensor<32x1x1xf32> -> tensor<1x1x1x32xf32>
// CHECK: %[[A:.*]] = jeet.add %[[S]], %[[B2]] : tensor<1x3x3x32xf32>, tensor<1x1x1x32xf32> -> tensor<1x3x3x32xf32>
// CHECK: %[[C:.*]] = jeet.cast %[[A]] : tensor<1x3x3x32xf32> -> tensor<1x3x3x32xf16>
// CHECK: %[[Y:.*]] = jeet.reshape %[[C]] : tensor<1x3x3x32xf16> -> tensor<1x9x32xf16>
// CHECK-NOT: jeet.transpose
// CHECK: return %[[Y]]
func.func @out_of_channels_last(%s: tensor<1x3x3x32xf32>, %b: tensor<32x1x1xf32>) -> tensor<1x9x32xf16> {
  %t = jeet.transpose %s {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x3x3x32xf32> -> tensor<1x32x3x3xf32>
  %a = jeet.add %t, %b : tensor<1x32x3x3xf32>, tensor<32x1x1xf32> -> tensor<1x32x3x3xf32>
  %c = jeet.cast %a : tensor<1x32x3x3xf32> -> tensor<1x32x3x3xf16>
  %r = jeet.reshape %c : tensor<1x32x3x3xf16> -> tensor<1x32x9xf16>
  %y = jeet.transpose %r {permutation = array<i64: 0, 2, 1>} : tensor<1x32x9xf16> -> tensor<1x9x32xf16>
  return %y : tensor<1x9x32xf16>
}

// -----

// Two transposes that meet directly: the pair goes (the fold would compose
// them too).
// CHECK-LABEL: func.func @adjacent
// CHECK-NOT: jeet.transpose
// CHECK: return %arg0
func.func @adjacent(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %t = jeet.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %y = jeet.transpose %t {permutation = array<i64: 1, 2, 0>} : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// Left alone: the second operand of the add has two dimensions that are
// not 1 (a residual connection in NCHW): moving the transpose would need
// one of it.
// CHECK-LABEL: func.func @full_operand
// CHECK-COUNT-2: jeet.transpose
// CHECK: return
func.func @full_operand(%m: tensor<1x9x32xf32>, %r: tensor<1x32x9xf32>) -> tensor<1x9x32xf32> {
  %t = jeet.transpose %m {permutation = array<i64: 0, 2, 1>} : tensor<1x9x32xf32> -> tensor<1x32x9xf32>
  %a = jeet.add %t, %r : tensor<1x32x9xf32>, tensor<1x32x9xf32> -> tensor<1x32x9xf32>
  %y = jeet.transpose %a {permutation = array<i64: 0, 2, 1>} : tensor<1x32x9xf32> -> tensor<1x9x32xf32>
  return %y : tensor<1x9x32xf32>
}

// -----

// Left alone: the biased value has a second reader, which needs it in NCHW.
// CHECK-LABEL: func.func @second_reader
// CHECK-COUNT-2: jeet.transpose
// CHECK: return
func.func @second_reader(%m: tensor<1x9x32xf32>, %b: tensor<1x32x1xf32>) -> (tensor<1x9x32xf32>, tensor<1x32x9xf32>) {
  %t = jeet.transpose %m {permutation = array<i64: 0, 2, 1>} : tensor<1x9x32xf32> -> tensor<1x32x9xf32>
  %a = jeet.add %t, %b : tensor<1x32x9xf32>, tensor<1x32x1xf32> -> tensor<1x32x9xf32>
  %y = jeet.transpose %a {permutation = array<i64: 0, 2, 1>} : tensor<1x32x9xf32> -> tensor<1x9x32xf32>
  return %y, %a : tensor<1x9x32xf32>, tensor<1x32x9xf32>
}

// -----

// Left alone: the second transpose does not undo the first.
// CHECK-LABEL: func.func @not_inverse
// CHECK-COUNT-2: jeet.transpose
// CHECK: return
func.func @not_inverse(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %t = jeet.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %e = jeet.exp %t : tensor<2x4x3xf32>
  %y = jeet.transpose %e {permutation = array<i64: 2, 1, 0>} : tensor<2x4x3xf32> -> tensor<3x4x2xf32>
  return %y : tensor<3x4x2xf32>
}

// -----

// Left alone: the reshape merges dimensions that the transpose took from
// places that are not neighbours in order (C and H of NCHW read as (H, C)):
// no reshape of the input gives them.
// CHECK-LABEL: func.func @merge_across
// CHECK-COUNT-2: jeet.transpose
// CHECK: return
func.func @merge_across(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %t = jeet.transpose %x {permutation = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  %r = jeet.reshape %t : tensor<4x3x2xf32> -> tensor<4x6xf32>
  %y = jeet.transpose %r {permutation = array<i64: 1, 0>} : tensor<4x6xf32> -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

// Values with several readers that join again before the inverse (a
// hardswish, x * relu6(x + 3) / 6, reads x twice; a square reads its
// operand twice): every op between the transposes is recomputed on the
// untransposed value.
// CHECK-LABEL: func.func @readers_that_join
// CHECK-SAME: (%[[M:[^:]*]]: tensor<1x9x32xf32>
// CHECK-NOT: jeet.transpose
// CHECK: %[[A:.*]] = jeet.add %[[M]], %{{.*}} : tensor<1x9x32xf32>, tensor<1x1x32xf32> -> tensor<1x9x32xf32>
// CHECK: %[[S:.*]] = jeet.add %[[A]], %{{.*}} : tensor<1x9x32xf32>, tensor<f32> -> tensor<1x9x32xf32>
// CHECK: %[[R:.*]] = jeet.relu %[[S]] : tensor<1x9x32xf32>
// CHECK: %[[H:.*]] = jeet.mul %[[A]], %[[R]] : tensor<1x9x32xf32>, tensor<1x9x32xf32> -> tensor<1x9x32xf32>
// CHECK: %[[Q:.*]] = jeet.mul %[[H]], %[[H]] : tensor<1x9x32xf32>, tensor<1x9x32xf32> -> tensor<1x9x32xf32>
// CHECK: %[[Y:.*]] = jeet.reshape %[[Q]] : tensor<1x9x32xf32> -> tensor<1x3x3x32xf32>
// CHECK-NOT: jeet.transpose
// CHECK: return %[[Y]]
func.func @readers_that_join(%m: tensor<1x9x32xf32>, %b: tensor<1x32x1xf32>) -> tensor<1x3x3x32xf32> {
  %three = jeet.constant dense<3.0> : tensor<f32>
  %t = jeet.transpose %m {permutation = array<i64: 0, 2, 1>} : tensor<1x9x32xf32> -> tensor<1x32x9xf32>
  %a = jeet.add %t, %b : tensor<1x32x9xf32>, tensor<1x32x1xf32> -> tensor<1x32x9xf32>
  %s = jeet.add %a, %three : tensor<1x32x9xf32>, tensor<f32> -> tensor<1x32x9xf32>
  %r = jeet.relu %s : tensor<1x32x9xf32>
  %h = jeet.mul %a, %r : tensor<1x32x9xf32>, tensor<1x32x9xf32> -> tensor<1x32x9xf32>
  %q = jeet.mul %h, %h : tensor<1x32x9xf32>, tensor<1x32x9xf32> -> tensor<1x32x9xf32>
  %c = jeet.reshape %q : tensor<1x32x9xf32> -> tensor<1x32x3x3xf32>
  %y = jeet.transpose %c {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x32x3x3xf32> -> tensor<1x3x3x32xf32>
  return %y : tensor<1x3x3x32xf32>
}

// -----

// One reader of x takes a reshape to (4, 6) and back: the same layout
// again, so the add reads both in one layout and the pair cancels.
// CHECK-LABEL: func.func @readers_through_a_round_trip
// CHECK-NOT: jeet.transpose
// CHECK: %[[F:.*]] = jeet.reshape %arg0 : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: %[[G:.*]] = jeet.reshape %[[F]] : tensor<6x4xf32> -> tensor<2x3x4xf32>
// CHECK: %[[A:.*]] = jeet.add %arg0, %[[G]] : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
// CHECK-NOT: jeet.transpose
// CHECK: return %[[A]]
func.func @readers_through_a_round_trip(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %t = jeet.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %f = jeet.reshape %t : tensor<4x2x3xf32> -> tensor<4x6xf32>
  %g = jeet.reshape %f : tensor<4x6xf32> -> tensor<4x2x3xf32>
  %a = jeet.add %t, %g : tensor<4x2x3xf32>, tensor<4x2x3xf32> -> tensor<4x2x3xf32>
  %y = jeet.transpose %a {permutation = array<i64: 1, 2, 0>} : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}
