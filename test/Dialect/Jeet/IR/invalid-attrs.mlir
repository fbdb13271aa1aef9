// RUN: jeet-opt %s -split-input-file -verify-diagnostics

// Attribute errors in MLIR's generic form: missing attributes, attributes of
// the wrong kind, and wrong operand or result counts.

// transpose needs its permutation.
func.func @transpose_missing_permutation(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.transpose' op requires attribute 'permutation'}}
  %0 = "jeet.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// permutation is a dense i64 array, not an array attribute.
func.func @transpose_permutation_array_attr(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.transpose' op attribute 'permutation' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "jeet.transpose"(%x) {permutation = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// permutation is a dense i64 array, not an i32 one.
func.func @transpose_permutation_i32(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.transpose' op attribute 'permutation' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "jeet.transpose"(%x) {permutation = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// A wrong kind of attribute written as a property is rejected by the parser.
func.func @transpose_permutation_property(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{invalid properties {permutation = [1, 0]} for op jeet.transpose: Invalid attribute `permutation` in property conversion: [1, 0]}}
  %0 = "jeet.transpose"(%x) <{permutation = [1, 0]}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// Reductions need their axes.
func.func @reduce_sum_missing_axes(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.reduce_sum' op requires attribute 'axes'}}
  %0 = "jeet.reduce_sum"(%x) : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// axes is a dense i64 array, not a dense elements attribute.
func.func @reduce_max_axes_dense(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.reduce_max' op attribute 'axes' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "jeet.reduce_max"(%x) {axes = dense<[1]> : tensor<1xi64>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// keepdims is a bool, not an integer.
func.func @reduce_mean_keepdims_int(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.reduce_mean' op attribute 'keepdims' failed to satisfy constraint: bool attribute}}
  %0 = "jeet.reduce_mean"(%x) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// softmax needs its axis.
func.func @softmax_missing_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.softmax' op requires attribute 'axis'}}
  %0 = "jeet.softmax"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// axis is an i64 integer, not a float.
func.func @softmax_axis_float(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.softmax' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "jeet.softmax"(%x) {axis = 1.0} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// axis is an i64 integer, not an i32 one.
func.func @softmax_axis_i32(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.softmax' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "jeet.softmax"(%x) {axis = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A constant needs its value.
func.func @constant_missing_value() {
  // expected-error @+1 {{'jeet.constant' op requires attribute 'value'}}
  %0 = "jeet.constant"() : () -> tensor<2xf32>
  return
}

// -----

// Binary ops take two operands.
func.func @add_one_operand(%x: tensor<2xf32>) {
  // expected-error @+1 {{'jeet.add' op expected 2 operands, but found 1}}
  %0 = "jeet.add"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Binary ops take two operands, not three.
func.func @add_three_operands(%x: tensor<2xf32>) {
  // expected-error @+1 {{'jeet.add' op expected 2 operands, but found 3}}
  %0 = "jeet.add"(%x, %x, %x) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Unary ops take one operand.
func.func @exp_two_operands(%x: tensor<2xf32>) {
  // expected-error @+1 {{'jeet.exp' op requires a single operand}}
  %0 = "jeet.exp"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// Ops have one result.
func.func @add_no_result(%x: tensor<2xf32>) {
  // expected-error @+1 {{'jeet.add' op requires one result}}
  "jeet.add"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> ()
  return
}

// -----

// A constant has no operands.
func.func @constant_operand(%x: tensor<2xf32>) {
  // expected-error @+1 {{'jeet.constant' op requires zero operands}}
  %0 = "jeet.constant"(%x) {value = dense<1.0> : tensor<2xf32>} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A fusion has one region.
func.func @fusion_no_region(%x: tensor<2xf32>) {
  // expected-error @+1 {{'jeet.fusion' op requires one region}}
  %0 = "jeet.fusion"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A fusion's block is not empty: it ends with jeet.yield.
func.func @fusion_empty_block(%x: tensor<2xf32>) {
  // expected-error @+1 {{'jeet.fusion' op expects a non-empty block}}
  %0 = "jeet.fusion"(%x) ({
  ^bb0(%a: tensor<2xf32>):
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A fusion's block ends with a terminator.
func.func @fusion_no_terminator(%x: tensor<2xf32>) {
  %0 = "jeet.fusion"(%x) ({
  ^bb0(%a: tensor<2xf32>):
    // expected-error @+1 {{block with no terminator}}
    %e = "jeet.exp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// A fusion's region has a single block.
func.func @fusion_two_blocks(%x: tensor<2xf32>) {
  // expected-error @+1 {{'jeet.fusion' op expects region #0 to have 0 or 1 blocks}}
  %0 = "jeet.fusion"(%x) ({
  ^bb0(%a: tensor<2xf32>):
    "jeet.yield"(%a) : (tensor<2xf32>) -> ()
  ^bb1:
    "jeet.yield"(%a) : (tensor<2xf32>) -> ()
  }) : (tensor<2xf32>) -> tensor<2xf32>
  return
}
