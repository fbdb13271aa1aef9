// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse=multi-reduction=true | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse | FileCheck %s --check-prefix=DEFAULT

// Multi-reduction fusion: a reduction group takes the row ops that read its
// reductions broadcast back over the rows, and further reductions of those
// rows over the same axes.

// Softmax (max; x - max, exp; sum; / sum): one group instead of three.
// CHECK-LABEL: func.func @softmax
// CHECK-COUNT-1: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
// DEFAULT-LABEL: func.func @softmax
// DEFAULT-COUNT-3: jeet.fusion
// DEFAULT-NOT: jeet.fusion
// DEFAULT: return
func.func @softmax(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// Layernorm (mean; x - mean, square; mean; + eps, rsqrt; scale, shift): one
// group, the epilogues of both means (/ N) and the variance's included.
// CHECK-LABEL: func.func @layernorm
// CHECK: jeet.fusion
// CHECK: jeet.reduce_sum
// CHECK: jeet.div
// CHECK: jeet.sub
// CHECK: jeet.mul
// CHECK: jeet.reduce_sum
// CHECK: jeet.div
// CHECK: jeet.add
// CHECK: jeet.rsqrt
// CHECK: jeet.mul
// CHECK: jeet.mul
// CHECK: jeet.add
// CHECK: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
// DEFAULT-LABEL: func.func @layernorm
// DEFAULT-COUNT-3: jeet.fusion
// DEFAULT-NOT: jeet.fusion
// DEFAULT: return
func.func @layernorm(%x: tensor<128x1024xf32>, %g: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<128x1024xf32> {
  %eps = jeet.constant dense<1.0e-5> : tensor<f32>
  %m = jeet.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : tensor<128x1024xf32> -> tensor<128x1xf32>
  %d = jeet.sub %x, %m : tensor<128x1024xf32>, tensor<128x1xf32> -> tensor<128x1024xf32>
  %sq = jeet.mul %d, %d : tensor<128x1024xf32>, tensor<128x1024xf32> -> tensor<128x1024xf32>
  %v = jeet.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : tensor<128x1024xf32> -> tensor<128x1xf32>
  %ve = jeet.add %v, %eps : tensor<128x1xf32>, tensor<f32> -> tensor<128x1xf32>
  %r = jeet.rsqrt %ve : tensor<128x1xf32>
  %n = jeet.mul %d, %r : tensor<128x1024xf32>, tensor<128x1xf32> -> tensor<128x1024xf32>
  %s = jeet.mul %n, %g : tensor<128x1024xf32>, tensor<1024xf32> -> tensor<128x1024xf32>
  %o = jeet.add %s, %b : tensor<128x1024xf32>, tensor<1024xf32> -> tensor<128x1024xf32>
  return %o : tensor<128x1024xf32>
}

// -----

// A second reduction over other axes reduces other rows: its own group.
// CHECK-LABEL: func.func @other_axes
// CHECK-COUNT-2: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @other_axes(%x: tensor<32x48xf32>) -> tensor<1x48xf32> {
  %m = jeet.reduce_max %x {axes = array<i64: 1>, keepdims = true} : tensor<32x48xf32> -> tensor<32x1xf32>
  %d = jeet.sub %x, %m : tensor<32x48xf32>, tensor<32x1xf32> -> tensor<32x48xf32>
  %s = jeet.reduce_sum %d {axes = array<i64: 0>, keepdims = true} : tensor<32x48xf32> -> tensor<1x48xf32>
  return %s : tensor<1x48xf32>
}

// -----

// keepdims must agree too (the group's epilogue shape is the reductions').
// CHECK-LABEL: func.func @other_keepdims
// CHECK-COUNT-2: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @other_keepdims(%x: tensor<32x48xf32>) -> tensor<32xf32> {
  %m = jeet.reduce_max %x {axes = array<i64: 1>, keepdims = true} : tensor<32x48xf32> -> tensor<32x1xf32>
  %d = jeet.sub %x, %m : tensor<32x48xf32>, tensor<32x1xf32> -> tensor<32x48xf32>
  %s = jeet.reduce_sum %d {axes = array<i64: 1>, keepdims = false} : tensor<32x48xf32> -> tensor<32xf32>
  return %s : tensor<32xf32>
}

// -----

// An op over another shape than the rows (a column broadcast of the row
// maxima against a bigger tensor) is not a row op.
// CHECK-LABEL: func.func @not_rows
// CHECK-COUNT-2: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @not_rows(%x: tensor<32x48xf32>, %y: tensor<4x32x48xf32>) -> tensor<4x32x48xf32> {
  %m = jeet.reduce_max %x {axes = array<i64: 1>, keepdims = true} : tensor<32x48xf32> -> tensor<32x1xf32>
  %d = jeet.sub %y, %m : tensor<4x32x48xf32>, tensor<32x1xf32> -> tensor<4x32x48xf32>
  return %d : tensor<4x32x48xf32>
}
