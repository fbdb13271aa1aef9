// RUN: jeet-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// Broadcast shapes that are incompatible name both operand types.
func.func @add_incompatible_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'jeet.add' op operand shapes are not broadcast-compatible: 'tensor<2x3xf32>' and 'tensor<4xf32>'}}
  // expected-error @+1 {{'jeet.add' op failed to infer returned types}}
  %0 = jeet.add %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x3xf32>
  return
}

// -----

// Binary operands must have the same element type.
func.func @mul_element_types(%a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error @+2 {{'jeet.mul' op operand element types differ: 'tensor<3xf32>' and 'tensor<3xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.mul %a, %b : tensor<3xf32>, tensor<3xf16> -> tensor<3xf32>
  return
}

// -----

// A wrong explicit result type for a binary op is reported against the inferred one.
func.func @add_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'jeet.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<3xf32>
  return
}

// -----

// A wrong explicit result type for a unary op names both types.
func.func @exp_wrong_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.exp' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "jeet.exp"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

// exp is defined on floats only.
func.func @exp_i32(%a: tensor<4xi32>) {
  // expected-error @+1 {{'jeet.exp' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = jeet.exp %a : tensor<4xi32>
  return
}

// -----

// pow is defined on floats and integers, not booleans.
func.func @pow_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'jeet.pow' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = jeet.pow %a, %a : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

// reduce_mean is defined on floats only.
func.func @reduce_mean_i32(%a: tensor<4x2xi32>) {
  // expected-error @+1 {{'jeet.reduce_mean' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x2xi32>'}}
  %0 = jeet.reduce_mean %a {axes = array<i64: 1>} : tensor<4x2xi32> -> tensor<4xi32>
  return
}

// -----

// softmax is defined on floats only.
func.func @softmax_i32(%a: tensor<4x2xi32>) {
  // expected-error @+1 {{'jeet.softmax' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x2xi32>'}}
  %0 = jeet.softmax %a {axis = 1 : i64} : tensor<4x2xi32>
  return
}

// -----

// Dynamic shapes are not supported.
func.func @dynamic_shape(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'jeet.relu' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<?x3xf32>'}}
  %0 = jeet.relu %a : tensor<?x3xf32>
  return
}

// -----

// Unranked tensors are not supported.
func.func @unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'jeet.add' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %0 = "jeet.add"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Element types outside f32, f16, bf16 and i32 are rejected.
func.func @f64(%a: tensor<4xf64>) {
  // expected-error @+1 {{'jeet.neg' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf64>'}}
  %0 = jeet.neg %a : tensor<4xf64>
  return
}

// -----

// memrefs are not jeet values.
func.func @memref(%a: memref<4xf32>) {
  // expected-error @+1 {{'jeet.abs' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'memref<4xf32>'}}
  %0 = "jeet.abs"(%a) : (memref<4xf32>) -> memref<4xf32>
  return
}

// -----

// matmul contraction dimensions must agree.
func.func @matmul_k_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'jeet.matmul' op contraction dimensions differ: 'tensor<2x3xf32>' has K = 3 but 'tensor<4x5xf32>' has K = 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

// matmul batch dimensions must broadcast.
func.func @matmul_batch(%a: tensor<2x4x3xf32>, %b: tensor<3x3x5xf32>) {
  // expected-error @+2 {{'jeet.matmul' op batch dimensions are not broadcast-compatible: 'tensor<2x4x3xf32>' and 'tensor<3x3x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.matmul %a, %b : tensor<2x4x3xf32>, tensor<3x3x5xf32> -> tensor<2x4x5xf32>
  return
}

// -----

// matmul operands need rank 1 or more.
func.func @matmul_rank0(%a: tensor<f32>, %b: tensor<3x5xf32>) {
  // expected-error @+2 {{'jeet.matmul' op operands must have rank 1 or more, got 'tensor<f32>' and 'tensor<3x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.matmul %a, %b : tensor<f32>, tensor<3x5xf32> -> tensor<5xf32>
  return
}

// -----

// A 1-D operand's length is its K.
func.func @matmul_vector_k(%a: tensor<4xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+2 {{'jeet.matmul' op contraction dimensions differ: 'tensor<4xf32>' has K = 4 but 'tensor<3x5xf32>' has K = 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.matmul %a, %b : tensor<4xf32>, tensor<3x5xf32> -> tensor<5xf32>
  return
}

// -----

// The promoted dimension is dropped from the result.
func.func @matmul_vector_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'jeet.matmul' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.matmul %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x1xf32>
  return
}

// -----

// matmul operands must have the same element type.
func.func @matmul_element_types(%a: tensor<2x3xf16>, %b: tensor<3x5xf32>) {
  // expected-error @+2 {{'jeet.matmul' op operand element types differ: 'tensor<2x3xf16>' and 'tensor<3x5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.matmul %a, %b : tensor<2x3xf16>, tensor<3x5xf32> -> tensor<2x5xf16>
  return
}

// -----

// matmul with a wrong result type.
func.func @matmul_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+2 {{'jeet.matmul' op inferred type(s) 'tensor<2x5xf32>' are incompatible with return type(s) of operation 'tensor<5x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.matmul %a, %b : tensor<2x3xf32>, tensor<3x5xf32> -> tensor<5x2xf32>
  return
}

// -----

// A transpose permutation has one entry per dimension.
func.func @transpose_length(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.transpose' op permutation [1, 0, 2] has 3 entries but 'tensor<2x3xf32>' has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.transpose %a {permutation = array<i64: 1, 0, 2>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

// Transpose permutation entries lie in [0, rank).
func.func @transpose_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.transpose' op permutation [2, 0] out of range [0, 2) for 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.transpose %a {permutation = array<i64: 2, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

// Negative transpose entries are out of range too.
func.func @transpose_negative(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.transpose' op permutation [-1, 0] out of range [0, 2) for 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.transpose %a {permutation = array<i64: -1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

// A transpose permutation does not repeat a dimension.
func.func @transpose_repeated(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.transpose' op permutation [1, 1] repeats axis 1 (input 'tensor<2x3xf32>')}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.transpose %a {permutation = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

// reshape keeps the element count.
func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.reshape' op cannot reshape 'tensor<2x3xf32>' (6 elements) to 'tensor<7xf32>' (7 elements)}}
  %0 = jeet.reshape %a : tensor<2x3xf32> -> tensor<7xf32>
  return
}

// -----

// reshape keeps the element type.
func.func @reshape_element_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.reshape' op changes the element type: 'tensor<2x3xf32>' to 'tensor<6xi32>'}}
  %0 = jeet.reshape %a : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

// reshape of a shape whose element count overflows 64 bits: beyond Jeet's
// size limit (every op checks it before its own verifier).
func.func @reshape_overflow(%a: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{'jeet.reshape' op operand #0 has type 'tensor<4294967296x4294967296xf32>' with more elements than Jeet's limit of 2^40 (1099511627776)}}
  %0 = jeet.reshape %a : tensor<4294967296x4294967296xf32> -> tensor<0xf32>
  return
}

// -----

// broadcast_to needs a numpy-compatible target shape.
func.func @broadcast_to_incompatible(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.broadcast_to' op cannot broadcast 'tensor<2x3xf32>' to 'tensor<4x3xf32>'}}
  %0 = jeet.broadcast_to %a : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

// broadcast_to cannot drop dimensions.
func.func @broadcast_to_lower_rank(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.broadcast_to' op cannot broadcast 'tensor<2x3xf32>' to 'tensor<3xf32>'}}
  %0 = jeet.broadcast_to %a : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

// broadcast_to keeps the element type.
func.func @broadcast_to_element_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{'jeet.broadcast_to' op changes the element type: 'tensor<3xf32>' to 'tensor<2x3xf16>'}}
  %0 = jeet.broadcast_to %a : tensor<3xf32> -> tensor<2x3xf16>
  return
}

// -----

// Reductions need at least one axis.
func.func @reduce_empty_axes(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.reduce_sum' op axes must not be empty (input 'tensor<2x3xf32>')}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.reduce_sum %a {axes = array<i64>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

// Reduction axes lie in [0, rank).
func.func @reduce_axis_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.reduce_max' op axes [0, 2] out of range [0, 2) for 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.reduce_max %a {axes = array<i64: 0, 2>} : tensor<2x3xf32> -> tensor<f32>
  return
}

// -----

// Reduction axes are not repeated.
func.func @reduce_axis_repeated(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.reduce_mean' op axes [1, 1] repeats axis 1 (input 'tensor<2x3xf32>')}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.reduce_mean %a {axes = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

// A reduction's result type must match keepdims (here the reduced dim is kept).
func.func @reduce_wrong_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.reduce_sum' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.reduce_sum %a {axes = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

// softmax's axis lies in [0, rank).
func.func @softmax_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.softmax' op axis 2 out of range [0, 2) for 'tensor<2x3xf32>'}}
  %0 = jeet.softmax %a {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

// softmax has no axis on a rank-0 tensor.
func.func @softmax_rank0(%a: tensor<f32>) {
  // expected-error @+1 {{'jeet.softmax' op axis 0 out of range [0, 0) for 'tensor<f32>'}}
  %0 = jeet.softmax %a {axis = 0 : i64} : tensor<f32>
  return
}

// -----

// cast changes the element type only.
func.func @cast_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'jeet.cast' op changes the shape: 'tensor<2x3xf32>' to 'tensor<3x2xf16>' (only the element type may change)}}
  %0 = jeet.cast %a : tensor<2x3xf32> -> tensor<3x2xf16>
  return
}

// -----

// A constant's value is a dense elements attribute, not a scalar.
func.func @constant_scalar() {
  // expected-error @+1 {{'jeet.constant' op attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = "jeet.constant"() {value = 1.0 : f32} : () -> tensor<f32>
  return
}

// -----

// A constant's value is dense, not sparse.
func.func @constant_sparse() {
  // expected-error @+1 {{'jeet.constant' op value must be a dense elements attribute, got sparse<0, 1.000000e+00> : tensor<2xf32>}}
  %0 = jeet.constant sparse<[[0]], [1.0]> : tensor<2xf32>
  return
}

// -----

// A constant's value is a tensor, not a vector.
func.func @constant_vector() {
  // expected-error @+1 {{'jeet.constant' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values, but got 'vector<2xf32>'}}
  %0 = "jeet.constant"() {value = dense<1.0> : vector<2xf32>} : () -> vector<2xf32>
  return
}

// -----

// A constant's result type is its value's type.
func.func @constant_wrong_result() {
  // expected-error @+2 {{'jeet.constant' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "jeet.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

// A fusion's region takes one argument per input.
func.func @fusion_arg_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.fusion' op has 1 inputs but its region takes 2 arguments}}
  %r = jeet.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    jeet.yield %x : tensor<4xf32>
  }
  return
}

// -----

// A fusion's region arguments have the inputs' types.
func.func @fusion_arg_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.fusion' op input #0 has type 'tensor<4xf32>' but region argument #0 has type 'tensor<4xf16>'}}
  %r = jeet.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf16>):
    %c = jeet.cast %x : tensor<4xf16> -> tensor<4xf32>
    jeet.yield %c : tensor<4xf32>
  }
  return
}

// -----

// jeet.yield returns the fusion's result types.
func.func @fusion_yield_type(%a: tensor<4xf32>) {
  %r = jeet.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %c = jeet.cast %x : tensor<4xf32> -> tensor<4xf16>
    // expected-error @+1 {{'jeet.yield' op yields 1 value(s) of type(s) 'tensor<4xf16>' but the fusion returns 'tensor<4xf32>'}}
    jeet.yield %c : tensor<4xf16>
  }
  return
}

// -----

// jeet.yield returns as many values as the fusion has results.
func.func @fusion_yield_count(%a: tensor<4xf32>) {
  %r = jeet.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'jeet.yield' op yields 2 value(s) of type(s) 'tensor<4xf32>', 'tensor<4xf32>' but the fusion returns 'tensor<4xf32>'}}
    jeet.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// A fusion holds jeet ops only.
func.func @fusion_foreign_op(%a: tensor<4xf32>) {
  %r = jeet.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'arith.addf' op is not a jeet op; a 'jeet.fusion' region holds jeet ops only}}
    %c = arith.addf %x, %x : tensor<4xf32>
    jeet.yield %c : tensor<4xf32>
  }
  return
}

// -----

// A fusion's region ends with jeet.yield, not another terminator.
func.func @fusion_foreign_terminator(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.fusion' op region must end with 'jeet.yield'}}
  %r = jeet.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    "test.end"(%x) : (tensor<4xf32>) -> ()
  }
  return
}

// -----

// Fusions do not nest.
func.func @fusion_nested(%a: tensor<4xf32>) {
  %r = jeet.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'jeet.fusion' op cannot be nested in another 'jeet.fusion'}}
    %c = jeet.fusion (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%y: tensor<4xf32>):
      jeet.yield %y : tensor<4xf32>
    }
    jeet.yield %c : tensor<4xf32>
  }
  return
}

// -----

// A fusion returns at least one tensor.
func.func @fusion_no_results(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.fusion' op returns no values; a kernel must produce at least one tensor}}
  jeet.fusion (%a) : (tensor<4xf32>) -> () {
  ^bb0(%x: tensor<4xf32>):
    jeet.yield
  }
  return
}

// -----

// A fusion's region is isolated from above.
func.func @fusion_captures(%a: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = jeet.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'jeet.yield' op using value defined outside the region}}
    jeet.yield %a : tensor<4xf32>
  }
  return
}

// -----

// A fusion's region has exactly one block.
func.func @fusion_empty_region(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.fusion' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %r = "jeet.fusion"(%a) ({}) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// jeet.yield appears only as the terminator of a fusion.
func.func @yield_outside_fusion(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.yield' op expects parent op 'jeet.fusion'}}
  jeet.yield %a : tensor<4xf32>
}

// -----

// Tensors beyond Jeet's size limit (2^40 elements, zero dimensions left out,
// rank 64): element and byte counts would overflow, loops never end.
func.func @beyond_size_limit(%a: tensor<9223372036854775807xf32>) {
  // expected-error @+1 {{'jeet.neg' op operand #0 has type 'tensor<9223372036854775807xf32>' with more elements than Jeet's limit of 2^40 (1099511627776)}}
  %0 = jeet.neg %a : tensor<9223372036854775807xf32>
  return
}

// -----

func.func @empty_but_huge(%a: tensor<0x9223372036854775807xf32>) {
  // expected-error @+1 {{'jeet.relu' op operand #0 has type 'tensor<0x9223372036854775807xf32>' with more elements than Jeet's limit}}
  %0 = jeet.relu %a : tensor<0x9223372036854775807xf32>
  return
}

// -----

func.func @constant_beyond_size_limit() {
  // expected-error @+1 {{'jeet.constant' op result #0 has type 'tensor<4611686018427387904xf32>' with more elements than Jeet's limit}}
  %0 = jeet.constant dense<1.0> : tensor<4611686018427387904xf32>
  return
}

// -----

func.func @rank_beyond_limit(%a: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) {
  // expected-error @+1 {{of rank 65, beyond Jeet's limit of 64}}
  %0 = jeet.abs %a : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>
  return
}
