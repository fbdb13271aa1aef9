// RUN: jeet-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds are exact: none changes a NaN, the sign of a zero or a rounding.

// x + (-0.0) is x for every x, -0.0 and NaN included.
// CHECK-LABEL: func.func @add_negative_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @add_negative_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = jeet.constant dense<-0.0> : tensor<4xf32>
  %0 = jeet.add %x, %z : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// (-0.0) + x is x as well; a rank-0 zero broadcasts without changing x's type.
// CHECK-LABEL: func.func @add_negative_zero_lhs
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: return %[[X]]
func.func @add_negative_zero_lhs(%x: tensor<4xf16>) -> tensor<4xf16> {
  %z = jeet.constant dense<-0.0> : tensor<f16>
  %0 = jeet.add %z, %x : tensor<f16>, tensor<4xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// x + (+0.0) is not x: -0.0 + 0.0 is +0.0.
// CHECK-LABEL: func.func @add_positive_zero
// CHECK: %[[Z:.*]] = jeet.constant dense<0.000000e+00>
// CHECK: %[[R:.*]] = jeet.add %{{.*}}, %[[Z]]
// CHECK: return %[[R]]
func.func @add_positive_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = jeet.constant dense<0.0> : tensor<4xf32>
  %0 = jeet.add %x, %z : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Integer x + 0 is x.
// CHECK-LABEL: func.func @add_int_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]]
func.func @add_int_zero(%x: tensor<4xi32>) -> tensor<4xi32> {
  %z = jeet.constant dense<0> : tensor<4xi32>
  %0 = jeet.add %x, %z : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// x - (+0.0) is x.
// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @sub_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = jeet.constant dense<0.0> : tensor<f32>
  %0 = jeet.sub %x, %z : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x - (-0.0) is not x: -0.0 - (-0.0) is +0.0.
// CHECK-LABEL: func.func @sub_negative_zero
// CHECK: jeet.sub
func.func @sub_negative_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = jeet.constant dense<-0.0> : tensor<f32>
  %0 = jeet.sub %x, %z : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 0 - x is not -x (0.0 - 0.0 is +0.0, -(0.0) is -0.0).
// CHECK-LABEL: func.func @zero_sub
// CHECK: jeet.sub
func.func @zero_sub(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = jeet.constant dense<0.0> : tensor<f32>
  %0 = jeet.sub %z, %x : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x * 1 and 1 * x are x.
// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @mul_one(%x: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %one = jeet.constant dense<1.0> : tensor<4xbf16>
  %0 = jeet.mul %x, %one : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xbf16>
  %1 = jeet.mul %one, %x : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}

// -----

// Integer x * 1 is x.
// CHECK-LABEL: func.func @mul_int_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]]
func.func @mul_int_one(%x: tensor<4xi32>) -> tensor<4xi32> {
  %one = jeet.constant dense<1> : tensor<i32>
  %0 = jeet.mul %one, %x : tensor<i32>, tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// x * 0 is not 0 (NaN, infinities, signed zeros).
// CHECK-LABEL: func.func @mul_zero
// CHECK: jeet.mul
func.func @mul_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = jeet.constant dense<0.0> : tensor<4xf32>
  %0 = jeet.mul %x, %z : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x / 1 is x; 1 / x is not.
// CHECK-LABEL: func.func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = jeet.div %{{.*}}, %[[X]]
// CHECK: return %[[X]], %[[R]]
func.func @div_one(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = jeet.constant dense<1.0> : tensor<4xf32>
  %0 = jeet.div %x, %one : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = jeet.div %one, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// An identity that would broadcast x to a larger shape does not fold.
// CHECK-LABEL: func.func @add_broadcasting_identity
// CHECK: %[[R:.*]] = jeet.add %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
// CHECK: return %[[R]]
func.func @add_broadcasting_identity(%x: tensor<3xf32>) -> tensor<4x3xf32> {
  %z = jeet.constant dense<-0.0> : tensor<4x3xf32>
  %0 = jeet.add %x, %z : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Likewise for 1 * x.
// CHECK-LABEL: func.func @mul_broadcasting_identity
// CHECK: jeet.mul
func.func @mul_broadcasting_identity(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %one = jeet.constant dense<1.0> : tensor<2x3xf32>
  %0 = jeet.mul %one, %x : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// x ** 1 is x; x ** 2 is left to the math library.
// CHECK-LABEL: func.func @pow_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = jeet.pow %[[X]]
// CHECK: return %[[X]], %[[R]]
func.func @pow_one(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = jeet.constant dense<1.0> : tensor<f32>
  %two = jeet.constant dense<2.0> : tensor<f32>
  %0 = jeet.pow %x, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = jeet.pow %x, %two : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// neg(neg(x)) is x.
// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.neg %x : tensor<4xf32>
  %1 = jeet.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// abs(abs(x)) is abs(x).
// CHECK-LABEL: func.func @abs_abs
// CHECK-NEXT: %[[A:.*]] = jeet.abs
// CHECK-NEXT: return %[[A]]
func.func @abs_abs(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = jeet.abs %x : tensor<4xi32>
  %1 = jeet.abs %0 : tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// relu(relu(x)) is relu(x).
// CHECK-LABEL: func.func @relu_relu
// CHECK-NEXT: %[[A:.*]] = jeet.relu
// CHECK-NEXT: return %[[A]]
func.func @relu_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.relu %x : tensor<4xf32>
  %1 = jeet.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Two transposes compose into one.
// CHECK-LABEL: func.func @transpose_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = jeet.transpose %[[X]] {permutation = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = jeet.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = jeet.transpose %0 {permutation = array<i64: 1, 0, 2>} : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// A transpose and its inverse cancel.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = jeet.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = jeet.transpose %0 {permutation = array<i64: 2, 0, 1>} : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// The identity permutation folds away.
// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jeet.transpose %x {permutation = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A transpose that swaps two equal dimensions is not an identity.
// CHECK-LABEL: func.func @transpose_square
// CHECK: jeet.transpose
func.func @transpose_square(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// Two reshapes become one.
// CHECK-LABEL: func.func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
// CHECK-NEXT: %[[R:.*]] = jeet.reshape %[[X]] : tensor<2x6xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_reshape(%x: tensor<2x6xf32>) -> tensor<4x3xf32> {
  %0 = jeet.reshape %x : tensor<2x6xf32> -> tensor<12xf32>
  %1 = jeet.reshape %0 : tensor<12xf32> -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// Reshapes back to the original type cancel.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %0 = jeet.reshape %x : tensor<2x6xf32> -> tensor<12xf32>
  %1 = jeet.reshape %0 : tensor<12xf32> -> tensor<2x6xf32>
  return %1 : tensor<2x6xf32>
}

// -----

// A reshape to the same type, a broadcast_to the same shape and a cast to the
// same type are no-ops.
// CHECK-LABEL: func.func @same_type
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]]
func.func @same_type(%x: tensor<2x6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>) {
  %0 = jeet.reshape %x : tensor<2x6xf32> -> tensor<2x6xf32>
  %1 = jeet.broadcast_to %x : tensor<2x6xf32> -> tensor<2x6xf32>
  %2 = jeet.cast %x : tensor<2x6xf32> -> tensor<2x6xf32>
  return %0, %1, %2 : tensor<2x6xf32>, tensor<2x6xf32>, tensor<2x6xf32>
}

// -----

// A cast that changes the type stays.
// CHECK-LABEL: func.func @cast_other_type
// CHECK: jeet.cast
func.func @cast_other_type(%x: tensor<2xf32>) -> tensor<2xf16> {
  %0 = jeet.cast %x : tensor<2xf32> -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// Binary ops of two small constants fold, with broadcasting.
// CHECK-LABEL: func.func @fold_binary
// CHECK-DAG: %[[ADD:.*]] = jeet.constant dense<[
// CHECK-SAME{LITERAL}: [1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[SUB:.*]] = jeet.constant dense<[-9.000000e+00, -1.800000e+01]> : tensor<2xf32>
// CHECK-DAG: %[[MUL:.*]] = jeet.constant dense<[1.000000e+01, 4.000000e+01]> : tensor<2xf32>
// CHECK-DAG: %[[DIV:.*]] = jeet.constant dense<1.000000e-01> : tensor<2xf32>
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]]
func.func @fold_binary() -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = jeet.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = jeet.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %m = jeet.constant dense<[[10.0, 20.0], [12.0, 22.0]]> : tensor<2x2xf32>
  %0 = jeet.add %a, %m : tensor<2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %1 = jeet.sub %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %2 = jeet.mul %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %3 = jeet.div %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// max and min of constants fold; a NaN operand gives NaN.
// CHECK-LABEL: func.func @fold_max_min
// CHECK-DAG: %[[MAX:.*]] = jeet.constant dense<[0x7FC00000, 2.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[MIN:.*]] = jeet.constant dense<[0x7FC00000, 1.000000e+00, -0.000000e+00]> : tensor<3xf32>
// CHECK: return %[[MAX]], %[[MIN]]
func.func @fold_max_min() -> (tensor<3xf32>, tensor<3xf32>) {
  %a = jeet.constant dense<[0x7FC00000, 1.0, -0.0]> : tensor<3xf32>
  %b = jeet.constant dense<[1.0, 2.0, 0.0]> : tensor<3xf32>
  %0 = jeet.max %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %1 = jeet.min %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Integer constants fold with wrap-around and signed comparison.
// CHECK-LABEL: func.func @fold_int
// CHECK-DAG: %[[ADD:.*]] = jeet.constant dense<[-2147483648, 3]> : tensor<2xi32>
// CHECK-DAG: %[[MAX:.*]] = jeet.constant dense<[2147483647, 2]> : tensor<2xi32>
// CHECK-DAG: %[[DIV:.*]] = jeet.constant dense<[-1073741823, 0]> : tensor<2xi32>
// CHECK: return %[[ADD]], %[[MAX]], %[[DIV]]
func.func @fold_int() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %a = jeet.constant dense<[2147483647, 1]> : tensor<2xi32>
  %b = jeet.constant dense<[1, 2]> : tensor<2xi32>
  %c = jeet.constant dense<[-2, 3]> : tensor<2xi32>
  %0 = jeet.add %a, %b : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  %1 = jeet.max %a, %b : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  %2 = jeet.div %a, %c : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

// -----

// Integer division by zero, and INT_MIN / -1, fold to the values run time
// computes (x / 0 = -1, INT_MIN / -1 = INT_MIN).
// CHECK-LABEL: func.func @fold_int_div_edges
// CHECK-DAG: jeet.constant dense<[2, -1]> : tensor<2xi32>
// CHECK-DAG: jeet.constant dense<-2147483648> : tensor<i32>
// CHECK-NOT: jeet.div
func.func @fold_int_div_edges() -> (tensor<2xi32>, tensor<i32>) {
  %a = jeet.constant dense<[4, 6]> : tensor<2xi32>
  %b = jeet.constant dense<[2, 0]> : tensor<2xi32>
  %min = jeet.constant dense<-2147483648> : tensor<i32>
  %m1 = jeet.constant dense<-1> : tensor<i32>
  %0 = jeet.div %a, %b : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  %1 = jeet.div %min, %m1 : tensor<i32>, tensor<i32> -> tensor<i32>
  return %0, %1 : tensor<2xi32>, tensor<i32>
}

// -----

// Remainders fold to the values run time computes: C's fmod for floats (the
// dividend's sign, NaN for a zero divisor), and for integers the truncated
// remainder, x rem 0 = x and INT_MIN rem -1 = 0.
// CHECK-LABEL: func.func @fold_rem
// CHECK-DAG: jeet.constant dense<[-1, 1, -1, 1, 5, 0]> : tensor<6xi32>
// CHECK-DAG: jeet.constant dense<[-1.500000e+00, 1.500000e+00, -0.000000e+00, 0x7FC00000]> : tensor<4xf32>
// CHECK-NOT: jeet.rem
func.func @fold_rem() -> (tensor<6xi32>, tensor<4xf32>) {
  %a = jeet.constant dense<[-7, 7, -7, 7, 5, -2147483648]> : tensor<6xi32>
  %b = jeet.constant dense<[3, 3, -3, -3, 0, -1]> : tensor<6xi32>
  %x = jeet.constant dense<[-7.5, 7.5, -4.0, 1.0]> : tensor<4xf32>
  %y = jeet.constant dense<[2.0, -2.0, 2.0, 0.0]> : tensor<4xf32>
  %0 = jeet.rem %a, %b : tensor<6xi32>, tensor<6xi32> -> tensor<6xi32>
  %1 = jeet.rem %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<6xi32>, tensor<4xf32>
}

// -----

// Float division by zero folds to IEEE infinities and NaN.
// CHECK-LABEL: func.func @fold_float_div_zero
// CHECK: jeet.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<3xf32>
// CHECK-NOT: jeet.div
func.func @fold_float_div_zero() -> tensor<3xf32> {
  %a = jeet.constant dense<[1.0, -1.0, 0.0]> : tensor<3xf32>
  %z = jeet.constant dense<0.0> : tensor<3xf32>
  %0 = jeet.div %a, %z : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// f16 constants fold with f16 rounding.
// CHECK-LABEL: func.func @fold_f16
// CHECK: jeet.constant dense<[2.048000e+03, 6.550400e+04]> : tensor<2xf16>
func.func @fold_f16() -> tensor<2xf16> {
  %a = jeet.constant dense<[2048.0, 65504.0]> : tensor<2xf16>
  %b = jeet.constant dense<[1.0, 0.0]> : tensor<2xf16>
  %0 = jeet.add %a, %b : tensor<2xf16>, tensor<2xf16> -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// neg, abs and relu of a constant fold; relu keeps NaN and gives +0.0 for -0.0.
// CHECK-LABEL: func.func @fold_unary
// CHECK-DAG: %[[NEG:.*]] = jeet.constant dense<[-1.000000e+00, 2.000000e+00, 0.000000e+00, 0xFFC00000]> : tensor<4xf32>
// CHECK-DAG: %[[ABS:.*]] = jeet.constant dense<[1.000000e+00, 2.000000e+00, 0.000000e+00, 0x7FC00000]> : tensor<4xf32>
// CHECK-DAG: %[[RELU:.*]] = jeet.constant dense<[1.000000e+00, 0.000000e+00, 0.000000e+00, 0x7FC00000]> : tensor<4xf32>
// CHECK-DAG: %[[IABS:.*]] = jeet.constant dense<[3, -2147483648]> : tensor<2xi32>
// CHECK: return %[[NEG]], %[[ABS]], %[[RELU]], %[[IABS]]
func.func @fold_unary() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi32>) {
  %c = jeet.constant dense<[1.0, -2.0, -0.0, 0x7FC00000]> : tensor<4xf32>
  %i = jeet.constant dense<[-3, -2147483648]> : tensor<2xi32>
  %0 = jeet.neg %c : tensor<4xf32>
  %1 = jeet.abs %c : tensor<4xf32>
  %2 = jeet.relu %c : tensor<4xf32>
  %3 = jeet.abs %i : tensor<2xi32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xi32>
}

// -----

// Functions of a constant whose result depends on the math library stay.
// CHECK-LABEL: func.func @no_fold_exp
// CHECK: jeet.exp
func.func @no_fold_exp() -> tensor<2xf32> {
  %c = jeet.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = jeet.exp %c : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A reshape of a constant and a broadcast_to of a splat fold.
// CHECK-LABEL: func.func @fold_shape
// CHECK-DAG: %[[R:.*]] = jeet.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-DAG: %[[B:.*]] = jeet.constant dense<5.000000e-01> : tensor<3x4xf32>
// CHECK: return %[[R]], %[[B]]
func.func @fold_shape() -> (tensor<2x2xi32>, tensor<3x4xf32>) {
  %c = jeet.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %s = jeet.constant dense<0.5> : tensor<4xf32>
  %0 = jeet.reshape %c : tensor<4xi32> -> tensor<2x2xi32>
  %1 = jeet.broadcast_to %s : tensor<4xf32> -> tensor<3x4xf32>
  return %0, %1 : tensor<2x2xi32>, tensor<3x4xf32>
}

// -----

// Splats of any size fold.
// CHECK-LABEL: func.func @fold_large_splat
// CHECK: %[[C:.*]] = jeet.constant dense<3.000000e+00> : tensor<1024x1024xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_large_splat() -> tensor<1024x1024xf32> {
  %a = jeet.constant dense<1.0> : tensor<1024x1024xf32>
  %b = jeet.constant dense<2.0> : tensor<1024x1024xf32>
  %0 = jeet.add %a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32> -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// Large non-splat constants are not folded (nor copied by a reshape).
// CHECK-LABEL: func.func @no_fold_large
// CHECK: jeet.add
// CHECK: jeet.neg
// CHECK: jeet.reshape
func.func @no_fold_large() -> (tensor<257xf32>, tensor<257xf32>, tensor<1x257xf32>) {
  %a = jeet.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0, 130.0, 131.0, 132.0, 133.0, 134.0, 135.0, 136.0, 137.0, 138.0, 139.0, 140.0, 141.0, 142.0, 143.0, 144.0, 145.0, 146.0, 147.0, 148.0, 149.0, 150.0, 151.0, 152.0, 153.0, 154.0, 155.0, 156.0, 157.0, 158.0, 159.0, 160.0, 161.0, 162.0, 163.0, 164.0, 165.0, 166.0, 167.0, 168.0, 169.0, 170.0, 171.0, 172.0, 173.0, 174.0, 175.0, 176.0, 177.0, 178.0, 179.0, 180.0, 181.0, 182.0, 183.0, 184.0, 185.0, 186.0, 187.0, 188.0, 189.0, 190.0, 191.0, 192.0, 193.0, 194.0, 195.0, 196.0, 197.0, 198.0, 199.0, 200.0, 201.0, 202.0, 203.0, 204.0, 205.0, 206.0, 207.0, 208.0, 209.0, 210.0, 211.0, 212.0, 213.0, 214.0, 215.0, 216.0, 217.0, 218.0, 219.0, 220.0, 221.0, 222.0, 223.0, 224.0, 225.0, 226.0, 227.0, 228.0, 229.0, 230.0, 231.0, 232.0, 233.0, 234.0, 235.0, 236.0, 237.0, 238.0, 239.0, 240.0, 241.0, 242.0, 243.0, 244.0, 245.0, 246.0, 247.0, 248.0, 249.0, 250.0, 251.0, 252.0, 253.0, 254.0, 255.0, 256.0]> : tensor<257xf32>
  %one = jeet.constant dense<2.0> : tensor<257xf32>
  %0 = jeet.add %a, %one : tensor<257xf32>, tensor<257xf32> -> tensor<257xf32>
  %1 = jeet.neg %a : tensor<257xf32>
  %2 = jeet.reshape %a : tensor<257xf32> -> tensor<1x257xf32>
  return %0, %1, %2 : tensor<257xf32>, tensor<257xf32>, tensor<1x257xf32>
}

// -----

// Ops on tensors with no elements fold to constants: empty results, a matmul
// over K = 0 is zeros, a reduction over an empty axis its identity (a mean
// of nothing is NaN).
// CHECK-LABEL: func.func @fold_empty
// CHECK-DAG: jeet.constant dense<> : tensor<0x3xf32>
// CHECK-DAG: jeet.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: jeet.constant dense<0xFF800000> : tensor<3xf32>
// CHECK-DAG: jeet.constant dense<0x7FC00000> : tensor<3xf32>
// CHECK-DAG: jeet.constant dense<-2147483648> : tensor<3xi32>
// CHECK-DAG: jeet.constant dense<0> : tensor<3xi32>
// CHECK-NOT: jeet.matmul
// CHECK-NOT: jeet.reduce
// CHECK-NOT: jeet.exp
func.func @fold_empty(%e: tensor<0x3xf32>, %a: tensor<2x0xf32>, %b: tensor<0x3xf32>, %r: tensor<3x0xf32>, %i: tensor<3x0xi32>)
    -> (tensor<0x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>) {
  %0 = jeet.exp %e : tensor<0x3xf32>
  %1 = jeet.matmul %a, %b : tensor<2x0xf32>, tensor<0x3xf32> -> tensor<2x3xf32>
  %2 = jeet.reduce_max %r {axes = array<i64: 1>} : tensor<3x0xf32> -> tensor<3xf32>
  %3 = jeet.reduce_mean %r {axes = array<i64: 1>} : tensor<3x0xf32> -> tensor<3xf32>
  %4 = jeet.reduce_max %i {axes = array<i64: 1>} : tensor<3x0xi32> -> tensor<3xi32>
  %5 = jeet.reduce_sum %i {axes = array<i64: 1>} : tensor<3x0xi32> -> tensor<3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<0x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>
}

// -----

// A transpose that only moves dimensions of size 1 is a reshape; one that
// moves elements stays.
// CHECK-LABEL: func.func @transpose_of_unit_dims
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x197x768xf32>, %[[Y:[^:]*]]: tensor<1x4x1x3xf32>
// CHECK: %[[A:.*]] = jeet.reshape %[[X]] : tensor<1x197x768xf32> -> tensor<197x1x768xf32>
// CHECK: %[[B:.*]] = jeet.reshape %[[Y]] : tensor<1x4x1x3xf32> -> tensor<4x1x3x1xf32>
// CHECK: %[[C:.*]] = jeet.transpose %[[Y]] {permutation = array<i64: 3, 1, 2, 0>}
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @transpose_of_unit_dims(%x: tensor<1x197x768xf32>, %y: tensor<1x4x1x3xf32>) -> (tensor<197x1x768xf32>, tensor<4x1x3x1xf32>, tensor<3x4x1x1xf32>) {
  %a = jeet.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<1x197x768xf32> -> tensor<197x1x768xf32>
  %b = jeet.transpose %y {permutation = array<i64: 1, 0, 3, 2>} : tensor<1x4x1x3xf32> -> tensor<4x1x3x1xf32>
  %c = jeet.transpose %y {permutation = array<i64: 3, 1, 2, 0>} : tensor<1x4x1x3xf32> -> tensor<3x4x1x1xf32>
  return %a, %b, %c : tensor<197x1x768xf32>, tensor<4x1x3x1xf32>, tensor<3x4x1x1xf32>
}

// -----

// A gather of one constant index is a slice of one element, reshaped: a
// negative index counts from the end, one out of range is clamped (as the
// op reads it); indices that are not one constant stay a gather.
// CHECK-LABEL: func.func @gather_of_a_constant_index
// CHECK-SAME: (%[[X:[^:]*]]: tensor<3x5x8xf32>, %[[I:[^:]*]]: tensor<i64>
// CHECK: %[[S0:.*]] = jeet.slice %[[X]] {starts = array<i64: 0, 2, 0>, steps = array<i64: 1, 1, 1>, stops = array<i64: 3, 3, 8>} : tensor<3x5x8xf32> -> tensor<3x1x8xf32>
// CHECK: %[[R0:.*]] = jeet.reshape %[[S0]] : tensor<3x1x8xf32> -> tensor<3x8xf32>
// CHECK: %[[S1:.*]] = jeet.slice %[[X]] {starts = array<i64: 2, 0, 0>, steps = array<i64: 1, 1, 1>, stops = array<i64: 3, 5, 8>} : tensor<3x5x8xf32> -> tensor<1x5x8xf32>
// CHECK-NOT: jeet.reshape %[[S1]]
// CHECK: %[[S2:.*]] = jeet.slice %[[X]] {starts = array<i64: 0, 0, 7>, steps = array<i64: 1, 1, 1>, stops = array<i64: 3, 5, 8>} : tensor<3x5x8xf32> -> tensor<3x5x1xf32>
// CHECK: %[[R2:.*]] = jeet.reshape %[[S2]] : tensor<3x5x1xf32> -> tensor<3x5x1x1xf32>
// CHECK: %[[G:.*]] = jeet.gather %[[X]], %[[I]]
// CHECK: return %[[R0]], %[[S1]], %[[R2]], %[[G]]
func.func @gather_of_a_constant_index(%x: tensor<3x5x8xf32>, %i: tensor<i64>) -> (tensor<3x8xf32>, tensor<1x5x8xf32>, tensor<3x5x1x1xf32>, tensor<5x8xf32>) {
  %c2 = jeet.constant dense<2> : tensor<i64>
  %a = jeet.gather %x, %c2 {axis = 1 : i64} : tensor<3x5x8xf32>, tensor<i64> -> tensor<3x8xf32>
  %m1 = jeet.constant dense<[-1]> : tensor<1xi32>
  %b = jeet.gather %x, %m1 {axis = 0 : i64} : tensor<3x5x8xf32>, tensor<1xi32> -> tensor<1x5x8xf32>
  %big = jeet.constant dense<[[99]]> : tensor<1x1xi64>
  %c = jeet.gather %x, %big {axis = 2 : i64} : tensor<3x5x8xf32>, tensor<1x1xi64> -> tensor<3x5x1x1xf32>
  %d = jeet.gather %x, %i {axis = 0 : i64} : tensor<3x5x8xf32>, tensor<i64> -> tensor<5x8xf32>
  return %a, %b, %c, %d : tensor<3x8xf32>, tensor<1x5x8xf32>, tensor<3x5x1x1xf32>, tensor<5x8xf32>
}

// -----

// A slice of a transpose that takes one element of the dimensions it moves
// is a reshape of a slice of its input (a view), whatever else reads the
// transpose; one that is still transposed stays.
// CHECK-LABEL: func.func @slice_of_transpose
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x3x8xf32>
// CHECK: %[[T:.*]] = jeet.transpose %[[X]] {permutation = array<i64: 1, 0, 2>}
// CHECK: %[[S0:.*]] = jeet.slice %[[X]] {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>, stops = array<i64: 4, 1, 8>} : tensor<4x3x8xf32> -> tensor<4x1x8xf32>
// CHECK: %[[R0:.*]] = jeet.reshape %[[S0]] : tensor<4x1x8xf32> -> tensor<1x4x8xf32>
// CHECK: %[[B:.*]] = jeet.slice %[[T]] {starts = array<i64: 1, 0, 0>
// CHECK: %[[S2:.*]] = jeet.slice %[[X]] {starts = array<i64: 0, 2, 0>, steps = array<i64: 1, 1, 2>, stops = array<i64: 4, 3, 8>} : tensor<4x3x8xf32> -> tensor<4x1x4xf32>
// CHECK: %[[R2:.*]] = jeet.reshape %[[S2]] : tensor<4x1x4xf32> -> tensor<1x4x4xf32>
// CHECK: %[[D:.*]] = jeet.neg %[[T]]
// CHECK: %[[U:.*]] = jeet.transpose %[[X]] {permutation = array<i64: 2, 1, 0>}
// CHECK: %[[E:.*]] = jeet.slice %[[U]]
// CHECK: return %[[R0]], %[[B]], %[[R2]], %[[D]], %[[E]]
func.func @slice_of_transpose(%x: tensor<4x3x8xf32>) -> (tensor<1x4x8xf32>, tensor<2x4x8xf32>, tensor<1x4x4xf32>, tensor<3x4x8xf32>, tensor<8x1x4xf32>) {
  %t = jeet.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<4x3x8xf32> -> tensor<3x4x8xf32>
  %a = jeet.slice %t {starts = array<i64: 0, 0, 0>, stops = array<i64: 1, 4, 8>, steps = array<i64: 1, 1, 1>} : tensor<3x4x8xf32> -> tensor<1x4x8xf32>
  %b = jeet.slice %t {starts = array<i64: 1, 0, 0>, stops = array<i64: 3, 4, 8>, steps = array<i64: 1, 1, 1>} : tensor<3x4x8xf32> -> tensor<2x4x8xf32>
  %c = jeet.slice %t {starts = array<i64: 2, 0, 0>, stops = array<i64: 3, 4, 8>, steps = array<i64: 1, 1, 2>} : tensor<3x4x8xf32> -> tensor<1x4x4xf32>
  %d = jeet.neg %t : tensor<3x4x8xf32>
  %u = jeet.transpose %x {permutation = array<i64: 2, 1, 0>} : tensor<4x3x8xf32> -> tensor<8x3x4xf32>
  %e = jeet.slice %u {starts = array<i64: 0, 1, 0>, stops = array<i64: 8, 2, 4>, steps = array<i64: 1, 1, 1>} : tensor<8x3x4xf32> -> tensor<8x1x4xf32>
  return %a, %b, %c, %d, %e : tensor<1x4x8xf32>, tensor<2x4x8xf32>, tensor<1x4x4xf32>, tensor<3x4x8xf32>, tensor<8x1x4xf32>
}

// -----

// PyTorch's exported attention: the packed projection's (S, 3, D) moved to
// (3, S, D) and Q, K, V taken from that copy are slices of the projection,
// reshaped to heads; K's two transposes on either side of a reshape by a
// unit dimension fold into one.
// CHECK-LABEL: func.func @packed_projection
// CHECK-SAME: (%[[Y:[^:]*]]: tensor<5x1x24xf32>
// CHECK-DAG: %[[Q:.*]] = jeet.slice %[[Y]] {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>, stops = array<i64: 5, 1, 8>} : tensor<5x1x24xf32> -> tensor<5x1x8xf32>
// CHECK-DAG: %[[K:.*]] = jeet.slice %[[Y]] {starts = array<i64: 0, 0, 8>, steps = array<i64: 1, 1, 1>, stops = array<i64: 5, 1, 16>} : tensor<5x1x24xf32> -> tensor<5x1x8xf32>
// CHECK-DAG: %[[QH:.*]] = jeet.reshape %[[Q]] : tensor<5x1x8xf32> -> tensor<5x2x4xf32>
// CHECK-DAG: %[[KH:.*]] = jeet.reshape %[[K]] : tensor<5x1x8xf32> -> tensor<1x5x2x4xf32>
// CHECK-DAG: %[[QT:.*]] = jeet.transpose %[[QH]] {permutation = array<i64: 1, 0, 2>} : tensor<5x2x4xf32> -> tensor<2x5x4xf32>
// CHECK-DAG: %[[KT:.*]] = jeet.transpose %[[KH]] {permutation = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x4xf32> -> tensor<1x2x4x5xf32>
// CHECK-NOT: jeet.transpose
// CHECK: return %[[QT]], %[[KT]]
func.func @packed_projection(%y: tensor<5x1x24xf32>) -> (tensor<2x5x4xf32>, tensor<1x2x4x5xf32>) {
  %0 = jeet.reshape %y : tensor<5x1x24xf32> -> tensor<5x1x3x8xf32>
  %1 = jeet.reshape %0 : tensor<5x1x3x8xf32> -> tensor<1x5x1x3x8xf32>
  %2 = jeet.transpose %1 {permutation = array<i64: 3, 1, 2, 0, 4>} : tensor<1x5x1x3x8xf32> -> tensor<3x5x1x1x8xf32>
  %3 = jeet.reshape %2 : tensor<3x5x1x1x8xf32> -> tensor<3x5x1x8xf32>
  %q = jeet.slice %3 {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 1, 5, 1, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<3x5x1x8xf32> -> tensor<1x5x1x8xf32>
  %k = jeet.slice %3 {starts = array<i64: 1, 0, 0, 0>, stops = array<i64: 2, 5, 1, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<3x5x1x8xf32> -> tensor<1x5x1x8xf32>
  %q1 = jeet.reshape %q : tensor<1x5x1x8xf32> -> tensor<5x2x4xf32>
  %k1 = jeet.reshape %k : tensor<1x5x1x8xf32> -> tensor<5x2x4xf32>
  %q2 = jeet.transpose %q1 {permutation = array<i64: 1, 0, 2>} : tensor<5x2x4xf32> -> tensor<2x5x4xf32>
  %k2 = jeet.transpose %k1 {permutation = array<i64: 1, 0, 2>} : tensor<5x2x4xf32> -> tensor<2x5x4xf32>
  %k3 = jeet.reshape %k2 : tensor<2x5x4xf32> -> tensor<1x2x5x4xf32>
  %k4 = jeet.transpose %k3 {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x4xf32> -> tensor<1x2x4x5xf32>
  return %q2, %k4 : tensor<2x5x4xf32>, tensor<1x2x4x5xf32>
}

// -----

// A slice of a reshape is a reshape of a slice of its input where each group
// of dimensions the reshape splits or merges is sliced as one progression
// that is a box of the input's dimensions: whole rows of a matrix made a
// vector, a column of a vector made a matrix (a step), a dimension kept as
// it is (any step); a slice that is not one progression of a group, or would
// leave dimensions to merge after it, stays.
// CHECK-LABEL: func.func @slice_of_reshape
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x6xf32>, %[[V:[^:]*]]: tensor<24xf32>, %[[Z:[^:]*]]: tensor<3x24xf32>
// CHECK: %[[A:.*]] = jeet.slice %[[X]] {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>, stops = array<i64: 2, 6>} : tensor<4x6xf32> -> tensor<1x6xf32>
// CHECK: jeet.reshape %[[A]] : tensor<1x6xf32> -> tensor<6xf32>
// CHECK: %[[B:.*]] = jeet.slice %[[V]] {starts = array<i64: 1>, steps = array<i64: 6>, stops = array<i64: 20>} : tensor<24xf32> -> tensor<4xf32>
// CHECK: jeet.reshape %[[B]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: %[[C:.*]] = jeet.slice %[[Z]] {starts = array<i64: -1, 0>, steps = array<i64: -2, 1>, stops = array<i64: -9223372036854775808, 24>} : tensor<3x24xf32> -> tensor<2x24xf32>
// CHECK: jeet.reshape %[[C]] : tensor<2x24xf32> -> tensor<2x4x6xf32>
// CHECK: %[[D:.*]] = jeet.reshape %[[X]] : tensor<4x6xf32> -> tensor<24xf32>
// CHECK: jeet.slice %[[D]] {starts = array<i64: 0>
// CHECK: %[[E:.*]] = jeet.reshape %[[V]] : tensor<24xf32> -> tensor<4x6xf32>
// CHECK: jeet.slice %[[E]] {starts = array<i64: 0, 0>
func.func @slice_of_reshape(%x: tensor<4x6xf32>, %v: tensor<24xf32>, %z: tensor<3x24xf32>) -> (tensor<6xf32>, tensor<4x1xf32>, tensor<2x4x6xf32>, tensor<12xf32>, tensor<2x3xf32>) {
  %xr = jeet.reshape %x : tensor<4x6xf32> -> tensor<24xf32>
  %a = jeet.slice %xr {starts = array<i64: 6>, stops = array<i64: 12>, steps = array<i64: 1>} : tensor<24xf32> -> tensor<6xf32>
  %vr = jeet.reshape %v : tensor<24xf32> -> tensor<4x6xf32>
  %b = jeet.slice %vr {starts = array<i64: 0, 1>, stops = array<i64: 4, 2>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<4x1xf32>
  %zr = jeet.reshape %z : tensor<3x24xf32> -> tensor<3x4x6xf32>
  %c = jeet.slice %zr {starts = array<i64: -1, 0, 0>, stops = array<i64: -9223372036854775808, 4, 6>, steps = array<i64: -2, 1, 1>} : tensor<3x4x6xf32> -> tensor<2x4x6xf32>
  %xr2 = jeet.reshape %x : tensor<4x6xf32> -> tensor<24xf32>
  %d = jeet.slice %xr2 {starts = array<i64: 0>, stops = array<i64: 12>, steps = array<i64: 1>} : tensor<24xf32> -> tensor<12xf32>
  %vr2 = jeet.reshape %v : tensor<24xf32> -> tensor<4x6xf32>
  %e = jeet.slice %vr2 {starts = array<i64: 0, 0>, stops = array<i64: 2, 3>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<2x3xf32>
  return %a, %b, %c, %d, %e : tensor<6xf32>, tensor<4x1xf32>, tensor<2x4x6xf32>, tensor<12xf32>, tensor<2x3xf32>
}

// -----

// A reshape by unit dimensions of a transpose is a transpose of the input so
// reshaped, the unit dimensions placed so that a matrix transpose stays one;
// a transpose with other readers stays.
// CHECK-LABEL: func.func @reshape_of_transpose
// CHECK-SAME: (%[[X:[^:]*]]: tensor<6x5xf32>, %[[Y:[^:]*]]: tensor<1x6x5xf32>
// CHECK: %[[A:.*]] = jeet.reshape %[[X]] : tensor<6x5xf32> -> tensor<1x6x5xf32>
// CHECK: %[[AT:.*]] = jeet.transpose %[[A]] {permutation = array<i64: 0, 2, 1>} : tensor<1x6x5xf32> -> tensor<1x5x6xf32>
// CHECK: %[[B:.*]] = jeet.reshape %[[Y]] : tensor<1x6x5xf32> -> tensor<6x5xf32>
// CHECK: %[[BT:.*]] = jeet.transpose %[[B]] {permutation = array<i64: 1, 0>} : tensor<6x5xf32> -> tensor<5x6xf32>
// CHECK: %[[T:.*]] = jeet.transpose %[[X]] {permutation = array<i64: 1, 0>}
// CHECK: %[[C:.*]] = jeet.reshape %[[T]] : tensor<5x6xf32> -> tensor<5x1x6xf32>
// CHECK: return %[[AT]], %[[BT]], %[[C]], %[[T]]
func.func @reshape_of_transpose(%x: tensor<6x5xf32>, %y: tensor<1x6x5xf32>) -> (tensor<1x5x6xf32>, tensor<5x6xf32>, tensor<5x1x6xf32>, tensor<5x6xf32>) {
  %t = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<6x5xf32> -> tensor<5x6xf32>
  %a = jeet.reshape %t : tensor<5x6xf32> -> tensor<1x5x6xf32>
  %u = jeet.transpose %y {permutation = array<i64: 0, 2, 1>} : tensor<1x6x5xf32> -> tensor<1x5x6xf32>
  %b = jeet.reshape %u : tensor<1x5x6xf32> -> tensor<5x6xf32>
  %t2 = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<6x5xf32> -> tensor<5x6xf32>
  %c = jeet.reshape %t2 : tensor<5x6xf32> -> tensor<5x1x6xf32>
  return %a, %b, %c, %t2 : tensor<1x5x6xf32>, tensor<5x6xf32>, tensor<5x1x6xf32>, tensor<5x6xf32>
}
