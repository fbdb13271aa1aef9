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

// A constant filter (an ONNX initialiser) gives its taps as slices of the
// one constant, as any filter does: jeet-fuse reads them in place (views of
// the filter's global), so the sum's kernel reads a channel's taps from one
// buffer, where a constant per tap was a global, and a pointer, each.
// CHECK-LABEL: func.func @depthwise_constant_filter
// CHECK: %[[W:.*]] = jeet.constant {{.*}} : tensor<3x1x2x2xf32>
// CHECK-NOT: jeet.constant
// CHECK: jeet.slice %[[W]] {starts = array<i64: 0, 0, 0, 0>, {{.*}}, stops = array<i64: 3, 1, 1, 1>}
// CHECK: jeet.slice %[[W]] {starts = array<i64: 0, 0, 0, 1>, {{.*}}, stops = array<i64: 3, 1, 1, 2>}
// CHECK: jeet.slice %[[W]] {starts = array<i64: 0, 0, 1, 0>, {{.*}}, stops = array<i64: 3, 1, 2, 1>}
// CHECK: jeet.slice %[[W]] {starts = array<i64: 0, 0, 1, 1>, {{.*}}, stops = array<i64: 3, 1, 2, 2>}
// CHECK-NOT: jeet.constant
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
// padding or dilation), as any pooling of up to 49 taps: max_pool2d is the
// maximum of the input's strided views, avg_pool2d their sum divided by the
// window size (a scalar: without padding each window lies in the input
// whole), no window copy (a reduction over dimensions of 2 or 3 innermost
// was 2-10 times slower on the CPU). Past 49 taps (8x8) a tiling pooling
// reduces a reshape of the input.
// CHECK-LABEL: func.func @tiled_pools
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x2x4x6xf32>)
// CHECK: %[[SIX:.*]] = jeet.constant dense<6.000000e+00> : tensor<f32>
// CHECK-NOT: jeet.im2col
// CHECK-NOT: jeet.reduce_max
// CHECK: jeet.slice %[[X]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 3>, stops = array<i64: 1, 2, 3, 4>}
// CHECK-COUNT-5: jeet.max
// CHECK-NOT: jeet.reduce
// CHECK: jeet.slice %[[X]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 3>, stops = array<i64: 1, 2, 3, 4>}
// CHECK-COUNT-5: jeet.add
// CHECK-NOT: jeet.reduce
// CHECK: jeet.div %{{.*}}, %[[SIX]] : tensor<1x2x2x2xf32>, tensor<f32> -> tensor<1x2x2x2xf32>
// CHECK-NOT: jeet.im2col
// CHECK-LABEL: func.func @tiled_large_window
// CHECK: %[[W:.*]] = jeet.reshape %{{.*}} : tensor<1x2x16x16xf32> -> tensor<1x2x2x8x2x8xf32>
// CHECK: jeet.reduce_max %[[W]] {axes = array<i64: 3, 5>}
// CHECK: %[[V:.*]] = jeet.reshape %{{.*}} : tensor<1x2x16x16xf32> -> tensor<1x2x2x8x2x8xf32>
// CHECK: %[[SUM:.*]] = jeet.reduce_sum %[[V]] {axes = array<i64: 3, 5>} : tensor<1x2x2x8x2x8xf32> -> tensor<1x2x2x2xf32>
// CHECK: jeet.div %[[SUM]], %{{.*}}
func.func @tiled_pools(%x: tensor<1x2x4x6xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %0 = jeet.max_pool2d %x {kernel_shape = array<i64: 2, 3>, strides = array<i64: 2, 3>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x2x4x6xf32> -> tensor<1x2x2x2xf32>
  %1 = jeet.avg_pool2d %x {kernel_shape = array<i64: 2, 3>, strides = array<i64: 2, 3>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false} : tensor<1x2x4x6xf32> -> tensor<1x2x2x2xf32>
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
func.func @tiled_large_window(%x: tensor<1x2x16x16xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %0 = jeet.max_pool2d %x {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x2x16x16xf32> -> tensor<1x2x2x2xf32>
  %1 = jeet.avg_pool2d %x {kernel_shape = array<i64: 8, 8>, strides = array<i64: 8, 8>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false} : tensor<1x2x16x16xf32> -> tensor<1x2x2x2xf32>
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
// strided or not; with groups of 8 output channels it stays (see
// @grouped_transposed for 16). 36 positions (6x6) fill 36 of the
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

// -----

// A grouped convolution with a constant filter at 3x3 positions and 16
// output channels a group: each group computed transposed, (N, g, 9, K / g)
// x (g, K / g, O / g), the filter's groups transposed at compile time
// (w[o, c, t] = 100 o + 10 c + t: group 0's first row holds 0, 100, ...,
// 1500, its second starts at 1; group 1's first row, row 18 of the
// constant, at 1600, 1700), then moved back.
// CHECK-LABEL: func.func @grouped_transposed
// CHECK-DAG: %[[FT:.*]] = jeet.constant dense<"0x000000000000C842000048430000964300{{[0-9A-F]*}}0080BB440000803F{{[0-9A-F]*}}0000C8440080D444{{[0-9A-F]*}}"> : tensor<36x16xf32>
// CHECK: %[[W:.*]] = jeet.reshape %{{.*}} : tensor<1x4x3x3x3x3xf32> -> tensor<1x2x18x9xf32>
// CHECK: %[[T:.*]] = jeet.transpose %[[W]] {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x2x18x9xf32> -> tensor<1x2x9x18xf32>
// CHECK: %[[F:.*]] = jeet.reshape %[[FT]] : tensor<36x16xf32> -> tensor<2x18x16xf32>
// CHECK: %[[P:.*]] = jeet.matmul %[[T]], %[[F]] : tensor<1x2x9x18xf32>, tensor<2x18x16xf32> -> tensor<1x2x9x16xf32>
// CHECK: %[[B:.*]] = jeet.transpose %[[P]] {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x2x9x16xf32> -> tensor<1x2x16x9xf32>
// CHECK: jeet.reshape %[[B]] : tensor<1x2x16x9xf32> -> tensor<1x32x3x3xf32>
func.func @grouped_transposed(%x: tensor<1x4x5x5xf32>) -> tensor<1x32x3x3xf32> {
  %w = jeet.constant dense<[[[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]], [[10.0, 11.0, 12.0], [13.0, 14.0, 15.0], [16.0, 17.0, 18.0]]], [[[100.0, 101.0, 102.0], [103.0, 104.0, 105.0], [106.0, 107.0, 108.0]], [[110.0, 111.0, 112.0], [113.0, 114.0, 115.0], [116.0, 117.0, 118.0]]], [[[200.0, 201.0, 202.0], [203.0, 204.0, 205.0], [206.0, 207.0, 208.0]], [[210.0, 211.0, 212.0], [213.0, 214.0, 215.0], [216.0, 217.0, 218.0]]], [[[300.0, 301.0, 302.0], [303.0, 304.0, 305.0], [306.0, 307.0, 308.0]], [[310.0, 311.0, 312.0], [313.0, 314.0, 315.0], [316.0, 317.0, 318.0]]], [[[400.0, 401.0, 402.0], [403.0, 404.0, 405.0], [406.0, 407.0, 408.0]], [[410.0, 411.0, 412.0], [413.0, 414.0, 415.0], [416.0, 417.0, 418.0]]], [[[500.0, 501.0, 502.0], [503.0, 504.0, 505.0], [506.0, 507.0, 508.0]], [[510.0, 511.0, 512.0], [513.0, 514.0, 515.0], [516.0, 517.0, 518.0]]], [[[600.0, 601.0, 602.0], [603.0, 604.0, 605.0], [606.0, 607.0, 608.0]], [[610.0, 611.0, 612.0], [613.0, 614.0, 615.0], [616.0, 617.0, 618.0]]], [[[700.0, 701.0, 702.0], [703.0, 704.0, 705.0], [706.0, 707.0, 708.0]], [[710.0, 711.0, 712.0], [713.0, 714.0, 715.0], [716.0, 717.0, 718.0]]], [[[800.0, 801.0, 802.0], [803.0, 804.0, 805.0], [806.0, 807.0, 808.0]], [[810.0, 811.0, 812.0], [813.0, 814.0, 815.0], [816.0, 817.0, 818.0]]], [[[900.0, 901.0, 902.0], [903.0, 904.0, 905.0], [906.0, 907.0, 908.0]], [[910.0, 911.0, 912.0], [913.0, 914.0, 915.0], [916.0, 917.0, 918.0]]], [[[1000.0, 1001.0, 1002.0], [1003.0, 1004.0, 1005.0], [1006.0, 1007.0, 1008.0]], [[1010.0, 1011.0, 1012.0], [1013.0, 1014.0, 1015.0], [1016.0, 1017.0, 1018.0]]], [[[1100.0, 1101.0, 1102.0], [1103.0, 1104.0, 1105.0], [1106.0, 1107.0, 1108.0]], [[1110.0, 1111.0, 1112.0], [1113.0, 1114.0, 1115.0], [1116.0, 1117.0, 1118.0]]], [[[1200.0, 1201.0, 1202.0], [1203.0, 1204.0, 1205.0], [1206.0, 1207.0, 1208.0]], [[1210.0, 1211.0, 1212.0], [1213.0, 1214.0, 1215.0], [1216.0, 1217.0, 1218.0]]], [[[1300.0, 1301.0, 1302.0], [1303.0, 1304.0, 1305.0], [1306.0, 1307.0, 1308.0]], [[1310.0, 1311.0, 1312.0], [1313.0, 1314.0, 1315.0], [1316.0, 1317.0, 1318.0]]], [[[1400.0, 1401.0, 1402.0], [1403.0, 1404.0, 1405.0], [1406.0, 1407.0, 1408.0]], [[1410.0, 1411.0, 1412.0], [1413.0, 1414.0, 1415.0], [1416.0, 1417.0, 1418.0]]], [[[1500.0, 1501.0, 1502.0], [1503.0, 1504.0, 1505.0], [1506.0, 1507.0, 1508.0]], [[1510.0, 1511.0, 1512.0], [1513.0, 1514.0, 1515.0], [1516.0, 1517.0, 1518.0]]], [[[1600.0, 1601.0, 1602.0], [1603.0, 1604.0, 1605.0], [1606.0, 1607.0, 1608.0]], [[1610.0, 1611.0, 1612.0], [1613.0, 1614.0, 1615.0], [1616.0, 1617.0, 1618.0]]], [[[1700.0, 1701.0, 1702.0], [1703.0, 1704.0, 1705.0], [1706.0, 1707.0, 1708.0]], [[1710.0, 1711.0, 1712.0], [1713.0, 1714.0, 1715.0], [1716.0, 1717.0, 1718.0]]], [[[1800.0, 1801.0, 1802.0], [1803.0, 1804.0, 1805.0], [1806.0, 1807.0, 1808.0]], [[1810.0, 1811.0, 1812.0], [1813.0, 1814.0, 1815.0], [1816.0, 1817.0, 1818.0]]], [[[1900.0, 1901.0, 1902.0], [1903.0, 1904.0, 1905.0], [1906.0, 1907.0, 1908.0]], [[1910.0, 1911.0, 1912.0], [1913.0, 1914.0, 1915.0], [1916.0, 1917.0, 1918.0]]], [[[2000.0, 2001.0, 2002.0], [2003.0, 2004.0, 2005.0], [2006.0, 2007.0, 2008.0]], [[2010.0, 2011.0, 2012.0], [2013.0, 2014.0, 2015.0], [2016.0, 2017.0, 2018.0]]], [[[2100.0, 2101.0, 2102.0], [2103.0, 2104.0, 2105.0], [2106.0, 2107.0, 2108.0]], [[2110.0, 2111.0, 2112.0], [2113.0, 2114.0, 2115.0], [2116.0, 2117.0, 2118.0]]], [[[2200.0, 2201.0, 2202.0], [2203.0, 2204.0, 2205.0], [2206.0, 2207.0, 2208.0]], [[2210.0, 2211.0, 2212.0], [2213.0, 2214.0, 2215.0], [2216.0, 2217.0, 2218.0]]], [[[2300.0, 2301.0, 2302.0], [2303.0, 2304.0, 2305.0], [2306.0, 2307.0, 2308.0]], [[2310.0, 2311.0, 2312.0], [2313.0, 2314.0, 2315.0], [2316.0, 2317.0, 2318.0]]], [[[2400.0, 2401.0, 2402.0], [2403.0, 2404.0, 2405.0], [2406.0, 2407.0, 2408.0]], [[2410.0, 2411.0, 2412.0], [2413.0, 2414.0, 2415.0], [2416.0, 2417.0, 2418.0]]], [[[2500.0, 2501.0, 2502.0], [2503.0, 2504.0, 2505.0], [2506.0, 2507.0, 2508.0]], [[2510.0, 2511.0, 2512.0], [2513.0, 2514.0, 2515.0], [2516.0, 2517.0, 2518.0]]], [[[2600.0, 2601.0, 2602.0], [2603.0, 2604.0, 2605.0], [2606.0, 2607.0, 2608.0]], [[2610.0, 2611.0, 2612.0], [2613.0, 2614.0, 2615.0], [2616.0, 2617.0, 2618.0]]], [[[2700.0, 2701.0, 2702.0], [2703.0, 2704.0, 2705.0], [2706.0, 2707.0, 2708.0]], [[2710.0, 2711.0, 2712.0], [2713.0, 2714.0, 2715.0], [2716.0, 2717.0, 2718.0]]], [[[2800.0, 2801.0, 2802.0], [2803.0, 2804.0, 2805.0], [2806.0, 2807.0, 2808.0]], [[2810.0, 2811.0, 2812.0], [2813.0, 2814.0, 2815.0], [2816.0, 2817.0, 2818.0]]], [[[2900.0, 2901.0, 2902.0], [2903.0, 2904.0, 2905.0], [2906.0, 2907.0, 2908.0]], [[2910.0, 2911.0, 2912.0], [2913.0, 2914.0, 2915.0], [2916.0, 2917.0, 2918.0]]], [[[3000.0, 3001.0, 3002.0], [3003.0, 3004.0, 3005.0], [3006.0, 3007.0, 3008.0]], [[3010.0, 3011.0, 3012.0], [3013.0, 3014.0, 3015.0], [3016.0, 3017.0, 3018.0]]], [[[3100.0, 3101.0, 3102.0], [3103.0, 3104.0, 3105.0], [3106.0, 3107.0, 3108.0]], [[3110.0, 3111.0, 3112.0], [3113.0, 3114.0, 3115.0], [3116.0, 3117.0, 3118.0]]]]> : tensor<32x2x3x3xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : tensor<1x4x5x5xf32>, tensor<32x2x3x3xf32> -> tensor<1x32x3x3xf32>
  return %0 : tensor<1x32x3x3xf32>
}

// -----

// A depthwise conv2d with few output positions (3x3) and many taps (5x5),
// of 16 channels or more, channels last: the input transposed to NHWC and
// padded there, each window (N, OH, OW, C) times a row (1, C) of the filter
// as (KH * KW, C), summed, and the sum transposed back to NCHW. A bound
// filter is transposed in the graph, a constant one at compile time (its
// first row: the first tap of channels 0, 1, 2, ..., values 0, 25, 50);
// 3x3 taps at 3x3 positions stay NCHW.
// CHECK-LABEL: func.func @depthwise_channels_last
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x16x3x3xf32>, %[[W:[^:]*]]: tensor<16x1x5x5xf32>
// CHECK: %[[WF:.*]] = jeet.reshape %[[W]] : tensor<16x1x5x5xf32> -> tensor<16x25xf32>
// CHECK: %[[ROWS:.*]] = jeet.transpose %[[WF]] {permutation = array<i64: 1, 0>} : tensor<16x25xf32> -> tensor<25x16xf32>
// CHECK: %[[T:.*]] = jeet.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x16x3x3xf32> -> tensor<1x3x3x16xf32>
// CHECK: %[[P:.*]] = jeet.pad %[[T]], %{{.*}} {high = array<i64: 0, 2, 2, 0>, low = array<i64: 0, 2, 2, 0>} : tensor<1x3x3x16xf32>, tensor<f32> -> tensor<1x7x7x16xf32>
// CHECK: jeet.slice %[[P]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>, stops = array<i64: 1, 3, 3, 16>} : tensor<1x7x7x16xf32> -> tensor<1x3x3x16xf32>
// CHECK: jeet.slice %[[ROWS]] {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>, stops = array<i64: 1, 16>} : tensor<25x16xf32> -> tensor<1x16xf32>
// CHECK: jeet.mul %{{.*}}, %{{.*}} : tensor<1x3x3x16xf32>, tensor<1x16xf32> -> tensor<1x3x3x16xf32>
// CHECK: jeet.slice %[[P]] {starts = array<i64: 0, 4, 4, 0>, steps = array<i64: 1, 1, 1, 1>, stops = array<i64: 1, 7, 7, 16>}
// CHECK: jeet.slice %[[ROWS]] {starts = array<i64: 24, 0>, steps = array<i64: 1, 1>, stops = array<i64: 25, 16>}
// CHECK: %[[SUM:.*]] = jeet.add
// CHECK: %[[Y:.*]] = jeet.transpose %[[SUM]] {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x3x3x16xf32> -> tensor<1x16x3x3xf32>
// CHECK: return %[[Y]]
// CHECK-LABEL: func.func @depthwise_channels_last_constant
// CHECK: %[[ROWS:.*]] = jeet.constant dense<"0x000000000000C84100004842{{.*}}"> : tensor<25x16xf32>
// CHECK-NOT: jeet.constant {{.*}} : tensor<16x1x5x5xf32>
// CHECK: jeet.transpose %{{.*}} {permutation = array<i64: 0, 2, 3, 1>}
// CHECK: jeet.slice %[[ROWS]] {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>, stops = array<i64: 2, 16>}
// CHECK-LABEL: func.func @depthwise_three_taps_nchw
// CHECK-NOT: jeet.transpose
// CHECK: jeet.pad %{{.*}}, %{{.*}} {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>}
// CHECK-NOT: jeet.transpose
// CHECK: return
func.func @depthwise_channels_last(%x: tensor<1x16x3x3xf32>, %w: tensor<16x1x5x5xf32>) -> tensor<1x16x3x3xf32> {
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>, groups = 16 : i64} : tensor<1x16x3x3xf32>, tensor<16x1x5x5xf32> -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}
func.func @depthwise_channels_last_constant(%x: tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32> {
  %w = jeet.constant dense<"0x000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42000090420000924200009442000096420000984200009A4200009C4200009E420000A0420000A2420000A4420000A6420000A8420000AA420000AC420000AE420000B0420000B2420000B4420000B6420000B8420000BA420000BC420000BE420000C0420000C2420000C4420000C6420000C8420000CA420000CC420000CE420000D0420000D2420000D4420000D6420000D8420000DA420000DC420000DE420000E0420000E2420000E4420000E6420000E8420000EA420000EC420000EE420000F0420000F2420000F4420000F6420000F8420000FA420000FC420000FE420000004300000143000002430000034300000443000005430000064300000743000008430000094300000A4300000B4300000C4300000D4300000E4300000F430000104300001143000012430000134300001443000015430000164300001743000018430000194300001A4300001B4300001C4300001D4300001E4300001F430000204300002143000022430000234300002443000025430000264300002743000028430000294300002A4300002B4300002C4300002D4300002E4300002F430000304300003143000032430000334300003443000035430000364300003743000038430000394300003A4300003B4300003C4300003D4300003E4300003F430000404300004143000042430000434300004443000045430000464300004743000048430000494300004A4300004B4300004C4300004D4300004E4300004F430000504300005143000052430000534300005443000055430000564300005743000058430000594300005A4300005B4300005C4300005D4300005E4300005F430000604300006143000062430000634300006443000065430000664300006743000068430000694300006A4300006B4300006C4300006D4300006E4300006F430000704300007143000072430000734300007443000075430000764300007743000078430000794300007A4300007B4300007C4300007D4300007E4300007F43000080430080804300008143008081430000824300808243000083430080834300008443008084430000854300808543000086430080864300008743008087430000884300808843000089430080894300008A4300808A4300008B4300808B4300008C4300808C4300008D4300808D4300008E4300808E4300008F4300808F43000090430080904300009143008091430000924300809243000093430080934300009443008094430000954300809543000096430080964300009743008097430000984300809843000099430080994300009A4300809A4300009B4300809B4300009C4300809C4300009D4300809D4300009E4300809E4300009F4300809F430000A0430080A0430000A1430080A1430000A2430080A2430000A3430080A3430000A4430080A4430000A5430080A5430000A6430080A6430000A7430080A7430000A8430080A8430000A9430080A9430000AA430080AA430000AB430080AB430000AC430080AC430000AD430080AD430000AE430080AE430000AF430080AF430000B0430080B0430000B1430080B1430000B2430080B2430000B3430080B3430000B4430080B4430000B5430080B5430000B6430080B6430000B7430080B7430000B8430080B8430000B9430080B9430000BA430080BA430000BB430080BB430000BC430080BC430000BD430080BD430000BE430080BE430000BF430080BF430000C0430080C0430000C1430080C1430000C2430080C2430000C3430080C3430000C4430080C4430000C5430080C5430000C6430080C6430000C7430080C743"> : tensor<16x1x5x5xf32>
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>, groups = 16 : i64} : tensor<1x16x3x3xf32>, tensor<16x1x5x5xf32> -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}
func.func @depthwise_three_taps_nchw(%x: tensor<1x16x3x3xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<1x16x3x3xf32> {
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 16 : i64} : tensor<1x16x3x3xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}
