// RUN: jeet-opt %s -split-input-file -verify-diagnostics

// Diagnostics of reduce_min, reduce_prod, argmax/argmin and iota.

// The axes of a reduction are in range.
func.func @reduce_min_axes(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'jeet.reduce_min' op axes [2] out of range [0, 2) for 'tensor<4x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.reduce_min %x {axes = array<i64: 2>} : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

// Booleans have no product.
func.func @reduce_prod_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'jeet.reduce_prod' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %0 = jeet.reduce_prod %x {axes = array<i64: 0>} : tensor<4xi1> -> tensor<i1>
  return
}

// -----

// The axis of an argmax is in range.
func.func @argmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'jeet.argmax' op axis [-1] out of range [0, 2) for 'tensor<4x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.argmax %x {axis = -1 : i64} : tensor<4x8xf32> -> tensor<4xi64>
  return
}

// -----

// An argmin needs its axis.
func.func @argmin_no_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'jeet.argmin' op requires attribute 'axis'}}
  %0 = "jeet.argmin"(%x) : (tensor<4x8xf32>) -> tensor<4xi64>
  return
}

// -----

// Indices are i64.
func.func @argmax_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'jeet.argmax' op result #0 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = jeet.argmax %x {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4xi32>
  return
}

// -----

// The result shape drops the axis (or keeps it as 1).
func.func @argmax_shape(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'jeet.argmax' op inferred type(s) 'tensor<4x1xi64>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.argmax %x {axis = 1 : i64, keepdims = true} : tensor<4x8xf32> -> tensor<4xi64>
  return
}

// -----

// The axis of an iota is in range.
func.func @iota_axis() {
  // expected-error @+1 {{'jeet.iota' op axis 2 out of range [0, 2) for 'tensor<2x3xi64>'}}
  %0 = jeet.iota {axis = 2 : i64} : tensor<2x3xi64>
  return
}

// -----

// An iota of booleans is meaningless.
func.func @iota_bool() {
  // expected-error @+1 {{'jeet.iota' op result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xi1>'}}
  %0 = jeet.iota {axis = 0 : i64} : tensor<3xi1>
  return
}
