// RUN: jeet-opt %s -split-input-file -verify-diagnostics

// Diagnostics of the comparisons, select, the logical ops and GELU.

// The operands of a comparison have one element type.
func.func @compare_element_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+2 {{'jeet.lt' op operand element types differ: 'tensor<4xf32>' and 'tensor<4xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.lt %a, %b : tensor<4xf32>, tensor<4xi32> -> tensor<4xi1>
  return
}

// -----

// Comparison operands broadcast.
func.func @compare_shapes(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'jeet.eq' op operand shapes are not broadcast-compatible: 'tensor<4xf32>' and 'tensor<3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.eq %a, %b : tensor<4xf32>, tensor<3xf32> -> tensor<4xi1>
  return
}

// -----

// A comparison gives booleans.
func.func @compare_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.ge' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "jeet.ge"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// The condition of a select is a tensor of booleans.
func.func @select_condition(%c: tensor<4xi32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = jeet.select %c, %a, %a : tensor<4xi32>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// The two values of a select have one element type.
func.func @select_values(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{'jeet.select' op the two values' element types differ: 'tensor<4xf32>' and 'tensor<4xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

// The three operands of a select broadcast together.
func.func @select_shapes(%c: tensor<5xi1>, %a: tensor<4xf32>) {
  // expected-error @+2 {{'jeet.select' op operand shapes are not broadcast-compatible: 'tensor<5xi1>', 'tensor<4xf32>' and 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.select %c, %a, %a : tensor<5xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// The result type of a select is inferred.
func.func @select_result(%c: tensor<4xi1>, %a: tensor<f32>) {
  // expected-error @+2 {{'jeet.select' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "jeet.select"(%c, %a, %a) : (tensor<4xi1>, tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

// The logical ops take booleans and integers, not floats.
func.func @and_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.and' op operand #0 must be statically shaped tensor of 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = jeet.and %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @not_float(%a: tensor<4xf16>) {
  // expected-error @+1 {{'jeet.not' op operand #0 must be statically shaped tensor of 1-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf16>'}}
  %0 = jeet.not %a : tensor<4xf16>
  return
}

// -----

// Arithmetic does not take booleans.
func.func @add_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{'jeet.add' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = jeet.add %a, %a : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

// erf, sin and cos take floats.
func.func @erf_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{'jeet.erf' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = jeet.erf %a : tensor<4xi32>
  return
}

// -----

// So do the rounding ops (an integer is its own floor: the frontends pass it
// through without an op).
func.func @floor_int(%a: tensor<4xi64>) {
  // expected-error @+1 {{'jeet.floor' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi64>'}}
  %0 = jeet.floor %a : tensor<4xi64>
  return
}

// -----

// GELU has two forms.
func.func @gelu_form(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.gelu' op approximate must be "none" or "tanh", got "erf"}}
  %0 = jeet.gelu %a {approximate = "erf"} : tensor<4xf32>
  return
}

// -----

func.func @gelu_form_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'jeet.gelu' op attribute 'approximate' failed to satisfy constraint: string attribute}}
  %0 = jeet.gelu %a {approximate = 1 : i64} : tensor<4xf32>
  return
}
