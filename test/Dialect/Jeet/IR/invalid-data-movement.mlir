// RUN: jeet-opt %s -split-input-file -verify-diagnostics

// Diagnostics of concat, slice, gather and pad.

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'jeet.concat' op axis [2] out of range [0, 2) for 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.concat %a, %a {axis = 2 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_sizes(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{'jeet.concat' op inputs 'tensor<2x3xf32>' and 'tensor<2x4xf32>' differ outside axis 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_ranks(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'jeet.concat' op inputs 'tensor<2x3xf32>' and 'tensor<3xf32>' differ outside axis 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @concat_types(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{'jeet.concat' op input element types differ: 'tensor<2x3xf32>' and 'tensor<2x3xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf16> -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_none() {
  // expected-error @+2 {{'jeet.concat' op needs at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "jeet.concat"() {axis = 0 : i64} : () -> tensor<4x3xf32>
  return
}

// -----

func.func @slice_step_zero(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{'jeet.slice' op steps [1, 0] has a step of 0 (dimension 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 4, 6>, steps = array<i64: 1, 0>} : tensor<4x6xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @slice_entries(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{'jeet.slice' op stops [4] has 1 entries but 'tensor<4x6xf32>' has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 4>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @slice_missing(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'jeet.slice' op requires attribute 'steps'}}
  %0 = "jeet.slice"(%x) {starts = array<i64: 0, 0>, stops = array<i64: 4, 6>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{'jeet.slice' op inferred type(s) 'tensor<2x6xf32>' are incompatible with return type(s) of operation 'tensor<3x6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 4, 6>, steps = array<i64: 2, 1>} : tensor<4x6xf32> -> tensor<3x6xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'jeet.gather' op axis [2] out of range [0, 2) for 'tensor<10x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.gather %t, %i {axis = 2 : i64} : tensor<10x4xf32>, tensor<3xi64> -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'jeet.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = jeet.gather %t, %i {axis = 0 : i64} : tensor<10x4xf32>, tensor<3xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_empty_axis(%t: tensor<0x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+2 {{'jeet.gather' op cannot take indices 'tensor<3xi32>' from axis 0 of 'tensor<0x4xf32>', which is empty}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.gather %t, %i {axis = 0 : i64} : tensor<0x4xf32>, tensor<3xi32> -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_result(%t: tensor<10x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+2 {{'jeet.gather' op inferred type(s) 'tensor<2x3x4xf32>' are incompatible with return type(s) of operation 'tensor<6x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.gather %t, %i {axis = 0 : i64} : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<6x4xf32>
  return
}

// -----

func.func @pad_value_type(%x: tensor<2x3xf32>, %v: tensor<f16>) {
  // expected-error @+2 {{'jeet.pad' op the value must be a 0-d tensor of the input's element type: 'tensor<f16>' for 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.pad %x, %v {low = array<i64: 0, 0>, high = array<i64: 0, 0>} : tensor<2x3xf32>, tensor<f16> -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_value_rank(%x: tensor<2x3xf32>, %v: tensor<1xf32>) {
  // expected-error @+2 {{'jeet.pad' op the value must be a 0-d tensor of the input's element type: 'tensor<1xf32>' for 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.pad %x, %v {low = array<i64: 0, 0>, high = array<i64: 0, 0>} : tensor<2x3xf32>, tensor<1xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{'jeet.pad' op high [0, -1] has a negative entry (crop with jeet.slice)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.pad %x, %v {low = array<i64: 0, 0>, high = array<i64: 0, -1>} : tensor<2x3xf32>, tensor<f32> -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_entries(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{'jeet.pad' op low [1] has 1 entries but 'tensor<2x3xf32>' has rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.pad %x, %v {low = array<i64: 1>, high = array<i64: 0, 0>} : tensor<2x3xf32>, tensor<f32> -> tensor<3x3xf32>
  return
}
