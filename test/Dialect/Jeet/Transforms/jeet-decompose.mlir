// RUN: jeet-opt %s --jeet-decompose --split-input-file | FileCheck %s

// softmax subtracts the maximum along its axis before exponentiating, so it
// does not overflow, and keeps the reduced dimension to broadcast back.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[M:.*]] = jeet.reduce_max %[[X]] {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[D:.*]] = jeet.sub %[[X]], %[[M]] : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[E:.*]] = jeet.exp %[[D]] : tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = jeet.reduce_sum %[[E]] {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[R:.*]] = jeet.div %[[E]], %[[S]] : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// softmax along a leading axis, in f16: computed in f32 and rounded once
// (x - max rounded to f16 would lose |x - max| 2^-12, which exp makes a
// relative error of the result).
// CHECK-LABEL: func.func @softmax_f16_axis0
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
// CHECK-NEXT: %[[W:.*]] = jeet.cast %[[X]] : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT: %[[M:.*]] = jeet.reduce_max %[[W]] {axes = array<i64: 0>, keepdims = true} : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT: %[[D:.*]] = jeet.sub %[[W]], %[[M]] : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[E:.*]] = jeet.exp %[[D]] : tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = jeet.reduce_sum %[[E]] {axes = array<i64: 0>, keepdims = true} : tensor<4x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT: %[[Q:.*]] = jeet.div %[[E]], %[[S]] : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]] = jeet.cast %[[Q]] : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK-NEXT: return %[[R]]
func.func @softmax_f16_axis0(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = jeet.softmax %x {axis = 0 : i64} : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// gelu in its tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<16xf32>)
// CHECK-DAG: %[[HALF:.*]] = jeet.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = jeet.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[K:.*]] = jeet.constant dense<0.797884583> : tensor<f32>
// CHECK-DAG: %[[C:.*]] = jeet.constant dense<4.471500e-02> : tensor<f32>
// CHECK: %[[X2:.*]] = jeet.mul %[[X]], %[[X]]
// CHECK-NEXT: %[[X3:.*]] = jeet.mul %[[X2]], %[[X]]
// CHECK-NEXT: %[[CX3:.*]] = jeet.mul %[[C]], %[[X3]] : tensor<f32>, tensor<16xf32> -> tensor<16xf32>
// CHECK-NEXT: %[[IN:.*]] = jeet.add %[[X]], %[[CX3]]
// CHECK-NEXT: %[[SC:.*]] = jeet.mul %[[K]], %[[IN]]
// CHECK-NEXT: %[[T:.*]] = jeet.tanh %[[SC]] : tensor<16xf32>
// CHECK-NEXT: %[[T1:.*]] = jeet.add %[[ONE]], %[[T]]
// CHECK-NEXT: %[[HX:.*]] = jeet.mul %[[HALF]], %[[X]]
// CHECK-NEXT: %[[R:.*]] = jeet.mul %[[HX]], %[[T1]] : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
// CHECK-NEXT: return %[[R]]
func.func @gelu_tanh(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = jeet.gelu %x {approximate = "tanh"} : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// gelu in its exact form (the default): 0.5 x (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<16xf32>)
// CHECK-DAG: %[[HALF:.*]] = jeet.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: %[[ONE:.*]] = jeet.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[K:.*]] = jeet.constant dense<0.707106769> : tensor<f32>
// CHECK: %[[SC:.*]] = jeet.mul %[[X]], %[[K]]
// CHECK-NEXT: %[[E:.*]] = jeet.erf %[[SC]] : tensor<16xf32>
// CHECK-NEXT: %[[E1:.*]] = jeet.add %[[ONE]], %[[E]]
// CHECK-NEXT: %[[HX:.*]] = jeet.mul %[[HALF]], %[[X]]
// CHECK-NEXT: %[[R:.*]] = jeet.mul %[[HX]], %[[E1]] : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
// CHECK-NEXT: return %[[R]]
func.func @gelu(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = jeet.gelu %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// gelu in f16 and bf16 is computed in f32 and rounded once: rounded
// between the ops, 1 + tanh(...) (or 1 + erf(...)) cancels for x below -2.
// CHECK-LABEL: func.func @gelu_f16
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf16>)
// CHECK-DAG: %[[W:.*]] = jeet.cast %[[X]] : tensor<2x8xf16> -> tensor<2x8xf32>
// CHECK-DAG: jeet.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: jeet.constant dense<0.797884583> : tensor<f32>
// CHECK: jeet.tanh %{{.*}} : tensor<2x8xf32>
// CHECK: %[[G:.*]] = jeet.mul %{{.*}}, %{{.*}} : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[R:.*]] = jeet.cast %[[G]] : tensor<2x8xf32> -> tensor<2x8xf16>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: jeet.gelu
func.func @gelu_f16(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %0 = jeet.gelu %x {approximate = "tanh"} : tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// CHECK-LABEL: func.func @gelu_bf16
// CHECK-SAME: (%[[X:.*]]: tensor<3xbf16>)
// CHECK: jeet.cast %[[X]] : tensor<3xbf16> -> tensor<3xf32>
// CHECK: jeet.erf %{{.*}} : tensor<3xf32>
// CHECK: jeet.cast %{{.*}} : tensor<3xf32> -> tensor<3xbf16>
// CHECK-NEXT: return
func.func @gelu_bf16(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  %0 = jeet.gelu %x : tensor<3xbf16>
  return %0 : tensor<3xbf16>
}

// -----

// reduce_mean is the sum divided by the number of reduced elements.
// CHECK-LABEL: func.func @reduce_mean
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[N:.*]] = jeet.constant dense<8.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[S:.*]] = jeet.reduce_sum %[[X]] {axes = array<i64: 0, 2>} : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[R:.*]] = jeet.div %[[S]], %[[N]] : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_mean(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = jeet.reduce_mean %x {axes = array<i64: 0, 2>} : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// reduce_mean with keepdims keeps the reduced dimensions in the sum.
// CHECK-LABEL: func.func @reduce_mean_keepdims
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[N:.*]] = jeet.constant dense<8.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[S:.*]] = jeet.reduce_sum %[[X]] {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[R:.*]] = jeet.div %[[S]], %[[N]] : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_mean_keepdims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = jeet.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// reduce_mean in f16 is summed and divided in f32, as NumPy means f16: the
// sum of 3000 values of 30 is past f16's largest finite value (65504).
// CHECK-LABEL: func.func @reduce_mean_f16
// CHECK-SAME: (%[[X:.*]]: tensor<2x3000xf16>)
// CHECK: %[[N:.*]] = jeet.constant dense<3.000000e+03> : tensor<f32>
// CHECK-NEXT: %[[W:.*]] = jeet.cast %[[X]] : tensor<2x3000xf16> -> tensor<2x3000xf32>
// CHECK-NEXT: %[[S:.*]] = jeet.reduce_sum %[[W]] {axes = array<i64: 1>} : tensor<2x3000xf32> -> tensor<2xf32>
// CHECK-NEXT: %[[D:.*]] = jeet.div %[[S]], %[[N]] : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
// CHECK-NEXT: %[[R:.*]] = jeet.cast %[[D]] : tensor<2xf32> -> tensor<2xf16>
// CHECK-NEXT: return %[[R]]
func.func @reduce_mean_f16(%x: tensor<2x3000xf16>) -> tensor<2xf16> {
  %0 = jeet.reduce_mean %x {axes = array<i64: 1>} : tensor<2x3000xf16> -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// bf16 too (its sum would be rounded to 8 bits before the division).
// CHECK-LABEL: func.func @reduce_mean_bf16
// CHECK: jeet.cast %{{.*}} : tensor<2x3001xbf16> -> tensor<2x3001xf32>
// CHECK-NEXT: jeet.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<2x3001xf32> -> tensor<2x1xf32>
// CHECK-NEXT: jeet.div
// CHECK-NEXT: jeet.cast %{{.*}} : tensor<2x1xf32> -> tensor<2x1xbf16>
func.func @reduce_mean_bf16(%x: tensor<2x3001xbf16>) -> tensor<2x1xbf16> {
  %0 = jeet.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : tensor<2x3001xbf16> -> tensor<2x1xbf16>
  return %0 : tensor<2x1xbf16>
}

// -----

// Primitive ops are left alone.
// CHECK-LABEL: func.func @primitives
// CHECK-NEXT: jeet.reduce_sum
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: return
func.func @primitives(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = jeet.reduce_sum %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %1 = jeet.exp %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// argmax: the row maximum, the positions that hold it or a NaN, their
// indices (the axis size elsewhere), and the least of them. The iota, small,
// folds into a constant.
// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[N:.*]] = jeet.constant dense<8> : tensor<i64>
// CHECK-DAG: %[[IOTA:.*]] = jeet.constant dense<{{\[\[}}0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>
// CHECK: %[[MAX:.*]] = jeet.reduce_max %[[X]] {axes = array<i64: 1>, keepdims = true}
// CHECK: %[[EQ:.*]] = jeet.eq %[[X]], %[[MAX]]
// CHECK: %[[NAN:.*]] = jeet.ne %[[X]], %[[X]]
// CHECK: %[[HIT:.*]] = jeet.or %[[EQ]], %[[NAN]]
// CHECK: %[[SEL:.*]] = jeet.select %[[HIT]], %[[IOTA]], %[[N]]
// CHECK: jeet.reduce_min %[[SEL]] {axes = array<i64: 1>} : tensor<4x8xi64> -> tensor<4xi64>
func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %0 = jeet.argmax %x {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// argmin of integers (no NaN), keeping the axis.
// CHECK-LABEL: func.func @argmin
// CHECK: jeet.constant dense<{{\[\[}}0], [1], [2], [3], [4], [5]]> : tensor<6x1xi64>
// CHECK: %[[MIN:.*]] = jeet.reduce_min %{{.*}} {axes = array<i64: 0>, keepdims = true}
// CHECK-NOT: jeet.ne
// CHECK: jeet.reduce_min %{{.*}} {axes = array<i64: 0>, keepdims = true} : tensor<6x3xi64> -> tensor<1x3xi64>
func.func @argmin(%x: tensor<6x3xi32>) -> tensor<1x3xi64> {
  %0 = jeet.argmin %x {axis = 0 : i64, keepdims = true} : tensor<6x3xi32> -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}

// -----

// A matmul with a 1-D operand is one of matrices between reshapes, and so
// is one of batches of rows by one matrix: (2, 4, 3) x (3, 4) is (8, 3) x
// (3, 4) (the matrix-vector product too, after its column: (8, 3) x (3, 1)).
// CHECK-LABEL: func.func @matmul_vectors
// CHECK-SAME: (%[[A:[^:]*]]: tensor<2x4x3xf32>, %[[V:[^:]*]]: tensor<3xf32>, %[[W:[^:]*]]: tensor<4xf32>, %[[M:[^:]*]]: tensor<4x3xf32>, %[[N:[^:]*]]: tensor<3x4xf32>)
// CHECK: %[[COL:.*]] = jeet.reshape %[[V]] : tensor<3xf32> -> tensor<3x1xf32>
// CHECK: %[[A8:.*]] = jeet.reshape %[[A]] : tensor<2x4x3xf32> -> tensor<8x3xf32>
// CHECK: %[[MV:.*]] = jeet.matmul %[[A8]], %[[COL]] : tensor<8x3xf32>, tensor<3x1xf32> -> tensor<8x1xf32>
// CHECK: %[[R0:.*]] = jeet.reshape %[[MV]] : tensor<8x1xf32> -> tensor<2x4xf32>
// CHECK: %[[ROW:.*]] = jeet.reshape %[[W]] : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: %[[VM:.*]] = jeet.matmul %[[ROW]], %[[M]] : tensor<1x4xf32>, tensor<4x3xf32> -> tensor<1x3xf32>
// CHECK: %[[R1:.*]] = jeet.reshape %[[VM]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK: %[[ROW2:.*]] = jeet.reshape %[[V]] : tensor<3xf32> -> tensor<1x3xf32>
// CHECK: %[[COL2:.*]] = jeet.reshape %[[V]] : tensor<3xf32> -> tensor<3x1xf32>
// CHECK: %[[DOT:.*]] = jeet.matmul %[[ROW2]], %[[COL2]] : tensor<1x3xf32>, tensor<3x1xf32> -> tensor<1x1xf32>
// CHECK: %[[R2:.*]] = jeet.reshape %[[DOT]] : tensor<1x1xf32> -> tensor<f32>
// CHECK: %[[B8:.*]] = jeet.reshape %[[A]] : tensor<2x4x3xf32> -> tensor<8x3xf32>
// CHECK: %[[MM:.*]] = jeet.matmul %[[B8]], %[[N]] : tensor<8x3xf32>, tensor<3x4xf32> -> tensor<8x4xf32>
// CHECK: %[[R3:.*]] = jeet.reshape %[[MM]] : tensor<8x4xf32> -> tensor<2x4x4xf32>
// CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
func.func @matmul_vectors(%a: tensor<2x4x3xf32>, %v: tensor<3xf32>, %w: tensor<4xf32>, %m: tensor<4x3xf32>, %n: tensor<3x4xf32>)
    -> (tensor<2x4xf32>, tensor<3xf32>, tensor<f32>, tensor<2x4x4xf32>) {
  %0 = jeet.matmul %a, %v : tensor<2x4x3xf32>, tensor<3xf32> -> tensor<2x4xf32>
  %1 = jeet.matmul %w, %m : tensor<4xf32>, tensor<4x3xf32> -> tensor<3xf32>
  %2 = jeet.matmul %v, %v : tensor<3xf32>, tensor<3xf32> -> tensor<f32>
  %3 = jeet.matmul %a, %n : tensor<2x4x3xf32>, tensor<3x4xf32> -> tensor<2x4x4xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<3xf32>, tensor<f32>, tensor<2x4x4xf32>
}

// -----

// Batches of rows by a matrix stay batches where the lhs is a transpose
// (the matmul reads it in place), or where the rhs has batches of its own.
// CHECK-LABEL: func.func @matmul_batches_kept
// CHECK-NOT: jeet.reshape
// CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<2x4x3xf32>, tensor<3x5xf32> -> tensor<2x4x5xf32>
// CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<2x4x3xf32>, tensor<2x3x5xf32> -> tensor<2x4x5xf32>
func.func @matmul_batches_kept(%a: tensor<2x3x4xf32>, %b: tensor<3x5xf32>, %c: tensor<2x4x3xf32>, %d: tensor<2x3x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x5xf32>) {
  %at = jeet.transpose %a {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %0 = jeet.matmul %at, %b : tensor<2x4x3xf32>, tensor<3x5xf32> -> tensor<2x4x5xf32>
  %1 = jeet.matmul %c, %d : tensor<2x4x3xf32>, tensor<2x3x5xf32> -> tensor<2x4x5xf32>
  return %0, %1 : tensor<2x4x5xf32>, tensor<2x4x5xf32>
}

// -----

// conv2d: a zero pad (none here: it folds), the windows (im2col:
// (N, C, KH, KW, OH, OW)), and a matmul with the filter as (O, C*KH*KW).
// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x4x4xf32>, %[[W:[^:]*]]: tensor<3x2x2x2xf32>)
// CHECK-NOT: jeet.pad
// CHECK: %[[G:.*]] = jeet.im2col %[[X]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x2x2x2x2xf32>
// CHECK: %[[WF:.*]] = jeet.reshape %[[W]] : tensor<3x2x2x2xf32> -> tensor<3x8xf32>
// CHECK: %[[COLS:.*]] = jeet.reshape %[[G]] : tensor<1x2x2x2x2x2xf32> -> tensor<1x8x4xf32>
// CHECK: %[[M:.*]] = jeet.matmul %[[WF]], %[[COLS]] : tensor<3x8xf32>, tensor<1x8x4xf32> -> tensor<1x3x4xf32>
// CHECK: jeet.reshape %[[M]] : tensor<1x3x4xf32> -> tensor<1x3x2x2xf32>
func.func @conv2d(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %0 = jeet.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x4x4xf32>, tensor<3x2x2x2xf32> -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// -----

// A depthwise conv2d (one input and one output channel per group, f32): the
// padded input's strided window at each of the kernel's offsets times that
// tap of the filter, summed; no im2col, no matmul. The f16 one, and a
// grouped conv with several channels per group, keep the grouped matmul.
// CHECK-LABEL: func.func @depthwise
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x3x5x5xf32>, %[[W:[^:]*]]: tensor<3x1x2x2xf32>
// CHECK: %[[P:.*]] = jeet.pad %[[X]], %{{.*}} {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>}
// CHECK: jeet.slice %[[P]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 2>, stops = array<i64: 1, 3, 5, 5>} : tensor<1x3x7x7xf32> -> tensor<1x3x3x3xf32>
// CHECK: jeet.slice %[[W]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>, stops = array<i64: 3, 1, 1, 1>} : tensor<3x1x2x2xf32> -> tensor<3x1x1x1xf32>
// CHECK: jeet.reshape %{{.*}} : tensor<3x1x1x1xf32> -> tensor<3x1x1xf32>
// CHECK: jeet.mul %{{.*}}, %{{.*}} : tensor<1x3x3x3xf32>, tensor<3x1x1xf32> -> tensor<1x3x3x3xf32>
// CHECK-COUNT-3: jeet.add
// CHECK-NOT: jeet.im2col
// CHECK-NOT: jeet.matmul
// CHECK: return
// CHECK-LABEL: func.func @depthwise_f16
// CHECK: jeet.im2col
// CHECK: jeet.matmul
// CHECK-LABEL: func.func @two_channels_per_group
// CHECK: jeet.im2col
// CHECK: jeet.matmul
func.func @depthwise(%x: tensor<1x3x5x5xf32>, %w: tensor<3x1x2x2xf32>) -> tensor<1x3x3x3xf32> {
  %0 = jeet.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 3 : i64} : tensor<1x3x5x5xf32>, tensor<3x1x2x2xf32> -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}
func.func @depthwise_f16(%x: tensor<1x3x5x5xf16>, %w: tensor<3x1x2x2xf16>) -> tensor<1x3x4x4xf16> {
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 3 : i64} : tensor<1x3x5x5xf16>, tensor<3x1x2x2xf16> -> tensor<1x3x4x4xf16>
  return %0 : tensor<1x3x4x4xf16>
}
func.func @two_channels_per_group(%x: tensor<1x4x5x5xf32>, %w: tensor<2x2x2x2xf32>) -> tensor<1x2x4x4xf32> {
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : tensor<1x4x5x5xf32>, tensor<2x2x2x2xf32> -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// A constant filter (an ONNX initialiser) gives each tap as a constant of its
// own, channel by channel in the filter's order: no slice of the filter,
// which would be a kernel copying C values at every call.
// CHECK-LABEL: func.func @depthwise_constant_filter
// CHECK-DAG: jeet.constant dense<{{\[\[\[}}1.000000e+00]], {{\[\[}}5.000000e+00]], {{\[\[}}9.000000e+00]]]> : tensor<3x1x1xf32>
// CHECK-DAG: jeet.constant dense<{{\[\[\[}}2.000000e+00]], {{\[\[}}6.000000e+00]], {{\[\[}}1.000000e+01]]]> : tensor<3x1x1xf32>
// CHECK-DAG: jeet.constant dense<{{\[\[\[}}3.000000e+00]], {{\[\[}}7.000000e+00]], {{\[\[}}1.100000e+01]]]> : tensor<3x1x1xf32>
// CHECK-DAG: jeet.constant dense<{{\[\[\[}}4.000000e+00]], {{\[\[}}8.000000e+00]], {{\[\[}}1.200000e+01]]]> : tensor<3x1x1xf32>
// CHECK-NOT: jeet.slice %{{.*}} : tensor<3x1x2x2xf32>
// CHECK-COUNT-3: jeet.add
// CHECK: return
func.func @depthwise_constant_filter(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x4x4xf32> {
  %w = jeet.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]], [[[9.0, 10.0], [11.0, 12.0]]]]> : tensor<3x1x2x2xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 3 : i64} : tensor<1x3x5x5xf32>, tensor<3x1x2x2xf32> -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// max_pool2d pads with -inf and takes the maximum of the padded input's
// views at the kernel's nine offsets (slices read in place: no window
// copy); avg_pool2d pads with 0, sums those views and, without
// count_include_pad, divides by each window's count of input elements.
// CHECK-LABEL: func.func @pools
// CHECK-DAG: jeet.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK-DAG: %[[NEGINF:.*]] = jeet.constant dense<0xFF800000> : tensor<f32>
// CHECK-NOT: jeet.im2col
// CHECK: %[[P:.*]] = jeet.pad %{{.*}}, %[[NEGINF]] {{.*}} -> tensor<1x1x5x5xf32>
// CHECK: %[[T0:.*]] = jeet.slice %[[P]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>, stops = array<i64: 1, 1, 3, 3>}
// CHECK: %[[T1:.*]] = jeet.slice %[[P]] {starts = array<i64: 0, 0, 0, 1>, steps = array<i64: 1, 1, 1, 1>, stops = array<i64: 1, 1, 3, 4>}
// CHECK: jeet.max %[[T0]], %[[T1]]
// CHECK-COUNT-7: jeet.max
// CHECK: %[[Z:.*]] = jeet.pad
// CHECK: %[[U0:.*]] = jeet.slice %[[Z]]
// CHECK: %[[U1:.*]] = jeet.slice %[[Z]]
// CHECK: jeet.add %[[U0]], %[[U1]]
// CHECK-COUNT-7: jeet.add
// CHECK: jeet.div %{{.*}}, %{{.*}} : tensor<1x1x3x3xf32>, tensor<3x3xf32> -> tensor<1x1x3x3xf32>
// CHECK-NOT: jeet.im2col
func.func @pools(%x: tensor<1x1x3x3xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) {
  %0 = jeet.max_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x1x3x3xf32> -> tensor<1x1x3x3xf32>
  %1 = jeet.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false} : tensor<1x1x3x3xf32> -> tensor<1x1x3x3xf32>
  return %0, %1 : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>
}

// -----

// An f16 average is summed and divided in f32 (nine values of 30000 sum
// past f16's 65504), then narrowed.
// CHECK-LABEL: func.func @avg_pool_f16
// CHECK: %[[W:.*]] = jeet.cast %{{.*}} : tensor<1x1x4x4xf16> -> tensor<1x1x4x4xf32>
// CHECK: jeet.slice %[[W]]
// CHECK-COUNT-8: jeet.add {{.*}} : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
// CHECK: %[[D:.*]] = jeet.div %{{.*}}, %{{.*}} : tensor<1x1x2x2xf32>, tensor<f32> -> tensor<1x1x2x2xf32>
// CHECK: jeet.cast %[[D]] : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf16>
func.func @avg_pool_f16(%x: tensor<1x1x4x4xf16>) -> tensor<1x1x2x2xf16> {
  %0 = jeet.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = true} : tensor<1x1x4x4xf16> -> tensor<1x1x2x2xf16>
  return %0 : tensor<1x1x2x2xf16>
}

// -----

// Poolings whose windows tile the input (strides equal to the kernel, no
// padding or dilation) reduce a reshape of the input, with no window copy;
// avg_pool2d divides by the window size.
// CHECK-LABEL: func.func @tiled_pools
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x4x6xf32>)
// CHECK-NOT: jeet.im2col
// CHECK-DAG: %[[SIZE:.*]] = jeet.constant dense<6.000000e+00> : tensor<f32>
// CHECK-DAG: %[[V:.*]] = jeet.reshape %[[X]] : tensor<1x2x4x6xf32> -> tensor<1x2x2x2x2x3xf32>
// CHECK: jeet.reduce_max %[[V]] {axes = array<i64: 3, 5>} : tensor<1x2x2x2x2x3xf32> -> tensor<1x2x2x2xf32>
// CHECK: %[[SUM:.*]] = jeet.reduce_sum %{{.*}} {axes = array<i64: 3, 5>} : tensor<1x2x2x2x2x3xf32> -> tensor<1x2x2x2xf32>
// CHECK: jeet.div %[[SUM]], %[[SIZE]]
// CHECK-NOT: jeet.im2col
func.func @tiled_pools(%x: tensor<1x2x4x6xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %0 = jeet.max_pool2d %x {kernel_shape = array<i64: 2, 3>, strides = array<i64: 2, 3>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x2x4x6xf32> -> tensor<1x2x2x2xf32>
  %1 = jeet.avg_pool2d %x {kernel_shape = array<i64: 2, 3>, strides = array<i64: 2, 3>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false} : tensor<1x2x4x6xf32> -> tensor<1x2x2x2xf32>
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Windows that do not divide the input (the last row is left out): the
// maximum of four strided views. A window of more than 49 taps (8x8) is
// gathered by im2col and reduced.
// CHECK-LABEL: func.func @untiled_pool
// CHECK-NOT: jeet.im2col
// CHECK-COUNT-2: jeet.max
// CHECK: jeet.slice %{{.*}} {starts = array<i64: 0, 0, 1, 1>, steps = array<i64: 1, 1, 2, 2>, stops = array<i64: 1, 1, 4, 4>}
// CHECK-NEXT: jeet.max
// CHECK-LABEL: func.func @large_window_pool
// CHECK: jeet.im2col
// CHECK: jeet.reduce_max %{{.*}} {axes = array<i64: 2, 3>}
func.func @untiled_pool(%x: tensor<1x1x5x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = jeet.max_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x5x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
func.func @large_window_pool(%x: tensor<1x1x9x9xf32>) -> tensor<1x1x2x2xf32> {
  %0 = jeet.max_pool2d %x {kernel_shape = array<i64: 8, 8>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x9x9xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// A pointwise conv2d with a constant filter and fewer output positions than
// a vector's lanes (3x3 = 9) is the matmul transposed: the positions are its
// rows, (N, 9, C) x filter^T (C, O) computed at compile time, then moved
// back to NCHW (a transpose of its matrices, reshaped). The same with the
// filter an argument, or with 16 positions, stays (O, C) x (N, C, 9). So is
// a 3x3 one (its windows an im2col of (N, C * 9, positions), transposed),
// strided or not; with groups it stays. 36 positions (6x6) fill 36 of the
// 48 lanes of three vectors: transposed too; 64 fill four: not.
// CHECK-LABEL: func.func @pointwise_few_positions
// CHECK-DAG: %[[FT:.*]] = jeet.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00, 7.000000e+00{{.*}}]]> : tensor<3x16xf32>
// CHECK-DAG: %[[R:.*]] = jeet.reshape %{{.*}} : tensor<1x3x3x3xf32> -> tensor<1x3x9xf32>
// CHECK: %[[T:.*]] = jeet.transpose %[[R]] {permutation = array<i64: 0, 2, 1>} : tensor<1x3x9xf32> -> tensor<1x9x3xf32>
// CHECK: %[[P:.*]] = jeet.matmul %[[T]], %[[FT]] : tensor<1x9x3xf32>, tensor<3x16xf32> -> tensor<1x9x16xf32>
// CHECK: %[[B:.*]] = jeet.transpose %[[P]] {permutation = array<i64: 0, 2, 1>} : tensor<1x9x16xf32> -> tensor<1x16x9xf32>
// CHECK: jeet.reshape %[[B]] : tensor<1x16x9xf32> -> tensor<1x16x3x3xf32>
// CHECK-LABEL: func.func @pointwise_filter_argument
// CHECK-NOT: jeet.transpose
// CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<16x3xf32>, tensor<1x3x9xf32> -> tensor<1x16x9xf32>
// CHECK-LABEL: func.func @pointwise_sixteen_positions
// CHECK-NOT: jeet.transpose
// CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<16x3xf32>, tensor<1x3x16xf32> -> tensor<1x16x16xf32>
// CHECK-LABEL: func.func @window_few_positions
// CHECK-DAG: %[[FT:.*]] = jeet.constant dense<{{.*}}> : tensor<27x16xf32>
// CHECK-DAG: %[[I:.*]] = jeet.im2col %{{.*}} : tensor<1x3x5x5xf32> -> tensor<1x3x3x3x3x3xf32>
// CHECK: %[[W:.*]] = jeet.reshape %[[I]] : tensor<1x3x3x3x3x3xf32> -> tensor<1x27x9xf32>
// CHECK: %[[T:.*]] = jeet.transpose %[[W]] {permutation = array<i64: 0, 2, 1>} : tensor<1x27x9xf32> -> tensor<1x9x27xf32>
// CHECK: %[[P:.*]] = jeet.matmul %[[T]], %[[FT]] : tensor<1x9x27xf32>, tensor<27x16xf32> -> tensor<1x9x16xf32>
// CHECK: jeet.transpose %[[P]] {permutation = array<i64: 0, 2, 1>} : tensor<1x9x16xf32> -> tensor<1x16x9xf32>
// CHECK-LABEL: func.func @strided_window_few_positions
// CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<1x9x27xf32>, tensor<27x16xf32> -> tensor<1x9x16xf32>
// CHECK-LABEL: func.func @grouped_window_few_positions
// CHECK-NOT: jeet.transpose
// CHECK: jeet.matmul
// CHECK-LABEL: func.func @pointwise_thirty_six_positions
// CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<1x36x3xf32>, tensor<3x16xf32> -> tensor<1x36x16xf32>
// CHECK: jeet.transpose %{{.*}} {permutation = array<i64: 0, 2, 1>} : tensor<1x36x16xf32> -> tensor<1x16x36xf32>
// CHECK-LABEL: func.func @pointwise_sixty_four_positions
// CHECK-NOT: jeet.transpose
// CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<16x3xf32>, tensor<1x3x64xf32> -> tensor<1x16x64xf32>
func.func @pointwise_few_positions(%x: tensor<1x3x3x3xf32>) -> tensor<1x16x3x3xf32> {
  %w = jeet.constant dense<[[[[1.0]], [[2.0]], [[3.0]]], [[[4.0]], [[5.0]], [[6.0]]], [[[7.0]], [[8.0]], [[9.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]], [[[1.0]], [[2.0]], [[3.0]]]]> : tensor<16x3x1x1xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x3x3xf32>, tensor<16x3x1x1xf32> -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}
func.func @pointwise_filter_argument(%x: tensor<1x3x3x3xf32>, %w: tensor<16x3x1x1xf32>) -> tensor<1x16x3x3xf32> {
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x3x3xf32>, tensor<16x3x1x1xf32> -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}
func.func @pointwise_sixteen_positions(%x: tensor<1x3x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w = jeet.constant dense<2.0> : tensor<16x3x1x1xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x4x4xf32>, tensor<16x3x1x1xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}
func.func @window_few_positions(%x: tensor<1x3x5x5xf32>) -> tensor<1x16x3x3xf32> {
  %w = jeet.constant dense<0.5> : tensor<16x3x3x3xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x5x5xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}
func.func @strided_window_few_positions(%x: tensor<1x3x6x6xf32>) -> tensor<1x16x3x3xf32> {
  %w = jeet.constant dense<0.5> : tensor<16x3x3x3xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x6x6xf32>, tensor<16x3x3x3xf32> -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}
func.func @grouped_window_few_positions(%x: tensor<1x4x5x5xf32>) -> tensor<1x16x3x3xf32> {
  %w = jeet.constant dense<0.5> : tensor<16x2x3x3xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : tensor<1x4x5x5xf32>, tensor<16x2x3x3xf32> -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}
func.func @pointwise_thirty_six_positions(%x: tensor<1x3x6x6xf32>) -> tensor<1x16x6x6xf32> {
  %w = jeet.constant dense<2.0> : tensor<16x3x1x1xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x6x6xf32>, tensor<16x3x1x1xf32> -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}
func.func @pointwise_sixty_four_positions(%x: tensor<1x3x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = jeet.constant dense<2.0> : tensor<16x3x1x1xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<16x3x1x1xf32> -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}
