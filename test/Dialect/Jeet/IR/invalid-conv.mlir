// RUN: jeet-opt %s -split-input-file -verify-diagnostics

// Diagnostics of conv2d and the 2-D poolings.

func.func @conv_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jeet.conv2d' op expects an NCHW input of rank 4, got 'tensor<3x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+2 {{'jeet.conv2d' op expects an OIHW filter of rank 4, got 'tensor<4x3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_types(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) {
  // expected-error @+2 {{'jeet.conv2d' op input and filter element types differ: 'tensor<1x3x8x8xf32>' and 'tensor<4x3x3x3xf16>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+2 {{'jeet.conv2d' op input 'tensor<1x4x8x8xf32>' and filter 'tensor<6x4x3x3xf32>' do not agree with groups = 2 (the filter needs C / groups input channels, and groups must divide C and O)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jeet.conv2d' op strides [1, 0] must have 2 entries of at least 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 0>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jeet.conv2d' op padding [1, 1] must have 4 entries of at least 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @conv_window(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jeet.conv2d' op a window of [3, 3] (dilations [3, 3]) does not fit the padded input 'tensor<1x3x4x4xf32>' (padding [0, 0, 0, 0])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 3, 3>, groups = 1 : i64} : tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @conv_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'jeet.conv2d' op inferred type(s) 'tensor<1x4x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @pool_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'jeet.max_pool2d' op kernel_shape must have 2 entries}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.max_pool2d %x {kernel_shape = array<i64: 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_int(%x: tensor<1x3x8x8xi32>) {
  // expected-error @+1 {{'jeet.avg_pool2d' op operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<1x3x8x8xi32>'}}
  %0 = jeet.avg_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xi32> -> tensor<1x3x4x4xi32>
  return
}

// -----

func.func @pool_window(%x: tensor<1x3x2x8xf32>) {
  // expected-error @+2 {{'jeet.avg_pool2d' op a window of [3, 3] (dilations [1, 1]) does not fit the padded input 'tensor<1x3x2x8xf32>' (padding [0, 0, 0, 0])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x2x8xf32> -> tensor<1x3x1x6xf32>
  return
}

// -----

// im2col takes an NCHW input.
func.func @im2col_rank(%x: tensor<3x8x8xf32>) {
  // expected-error @+2 {{'jeet.im2col' op expects an NCHW input of rank 4, got 'tensor<3x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.im2col %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<3x8x8xf32> -> tensor<1x3x3x3x6x6xf32>
  return
}

// -----

// im2col's kernel_shape has one entry per spatial dimension.
func.func @im2col_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'jeet.im2col' op kernel_shape must have 2 entries}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.im2col %x {kernel_shape = array<i64: 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x3x3x6x6xf32>
  return
}

// -----

// im2col does not pad: the window must fit the input.
func.func @im2col_fit(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+2 {{'jeet.im2col' op a window of [5, 5] (dilations [1, 1]) does not fit the padded input 'tensor<1x3x4x4xf32>' (padding [0, 0, 0, 0])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.im2col %x {kernel_shape = array<i64: 5, 5>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x5x5x1x1xf32>
  return
}

// -----

// im2col's strides are at least 1.
func.func @im2col_strides(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{'jeet.im2col' op strides [0, 1] must have 2 entries of at least 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = jeet.im2col %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 0, 1>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x3x3x6x6xf32>
  return
}
