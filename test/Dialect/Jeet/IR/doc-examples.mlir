// RUN: jeet-opt %s | jeet-opt | FileCheck %s

// The ```mlir examples of the op descriptions in JeetOps.td (and so in the
// generated docs/Dialects/JeetDialect.md), one function each, with their free
// values as arguments. Keep this file in sync with the .td examples.

// CHECK-LABEL: func.func @abs
// CHECK: jeet.abs %{{.*}} : tensor<4x3xf32>
func.func @abs(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.abs %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @acos
// CHECK: jeet.acos %{{.*}} : tensor<4x3xf32>
func.func @acos(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.acos %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @acosh
// CHECK: jeet.acosh %{{.*}} : tensor<4x3xf32>
func.func @acosh(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.acosh %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @add
// CHECK: jeet.add %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
func.func @add(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = jeet.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @and
// CHECK: jeet.and %{{.*}}, %{{.*}} : tensor<4x3xi1>, tensor<3xi1> -> tensor<4x3xi1>
func.func @and(%a: tensor<4x3xi1>, %b: tensor<3xi1>) -> tensor<4x3xi1> {
  %r = jeet.and %a, %b : tensor<4x3xi1>, tensor<3xi1> -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @argmax
// CHECK: jeet.argmax %{{.*}} {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4xi64>
func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %i = jeet.argmax %x {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4xi64>
  return %i : tensor<4xi64>
}

// CHECK-LABEL: func.func @argmin
// CHECK: jeet.argmin %{{.*}} {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4xi64>
func.func @argmin(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %i = jeet.argmin %x {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4xi64>
  return %i : tensor<4xi64>
}

// CHECK-LABEL: func.func @asin
// CHECK: jeet.asin %{{.*}} : tensor<4x3xf32>
func.func @asin(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.asin %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @asinh
// CHECK: jeet.asinh %{{.*}} : tensor<4x3xf32>
func.func @asinh(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.asinh %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @atan
// CHECK: jeet.atan %{{.*}} : tensor<4x3xf32>
func.func @atan(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.atan %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @atanh
// CHECK: jeet.atanh %{{.*}} : tensor<4x3xf32>
func.func @atanh(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.atanh %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @avg_pool2d
// CHECK: jeet.avg_pool2d %{{.*}} {count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
func.func @avg_pool2d(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %y = jeet.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  return %y : tensor<1x3x8x8xf32>
}

// CHECK-LABEL: func.func @broadcast_to
// CHECK: jeet.broadcast_to %{{.*}} : tensor<3xf32> -> tensor<4x3xf32>
func.func @broadcast_to(%x: tensor<3xf32>) -> tensor<4x3xf32> {
  %b = jeet.broadcast_to %x : tensor<3xf32> -> tensor<4x3xf32>
  return %b : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @cast
// CHECK: jeet.cast %{{.*}} : tensor<4xf32> -> tensor<4xf16>
// CHECK: jeet.cast %{{.*}} : tensor<4xi64> -> tensor<4xi1>
func.func @cast(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf16>, tensor<4xi1>) {
  %h = jeet.cast %x : tensor<4xf32> -> tensor<4xf16>
  %b = jeet.cast %i : tensor<4xi64> -> tensor<4xi1>
  return %h, %b : tensor<4xf16>, tensor<4xi1>
}

// CHECK-LABEL: func.func @ceil
// CHECK: jeet.ceil %{{.*}} : tensor<4x3xf32>
func.func @ceil(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.ceil %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK: jeet.concat %{{.*}}, %{{.*}} {axis
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<6x3xf32> {
  %c = jeet.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
  return %c : tensor<6x3xf32>
}

// CHECK-LABEL: func.func @constant
// CHECK: jeet.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @constant() -> tensor<2xf32> {
  %0 = jeet.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @conv2d
// CHECK: jeet.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
func.func @conv2d(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func.func @cos
// CHECK: jeet.cos %{{.*}} : tensor<4x3xf32>
func.func @cos(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.cos %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @cosh
// CHECK: jeet.cosh %{{.*}} : tensor<4x3xf32>
func.func @cosh(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.cosh %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @div
// CHECK: jeet.div %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
func.func @div(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = jeet.div %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @eq
// CHECK: jeet.eq %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
func.func @eq(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xi1> {
  %r = jeet.eq %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @erf
// CHECK: jeet.erf %{{.*}} : tensor<4x3xf32>
func.func @erf(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.erf %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @exp
// CHECK: jeet.exp %{{.*}} : tensor<4x3xf32>
func.func @exp(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.exp %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @floor
// CHECK: jeet.floor %{{.*}} : tensor<4x3xf32>
func.func @floor(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.floor %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @fusion
// CHECK: jeet.fusion(%{{.*}}, %{{.*}}) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> {
// CHECK:   jeet.add
// CHECK:   jeet.relu
// CHECK:   jeet.yield %{{.*}} : tensor<16xf32>
func.func @fusion(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%x: tensor<16xf32>, %y: tensor<16xf32>):
    %s = jeet.add %x, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
    %t = jeet.relu %s : tensor<16xf32>
    jeet.yield %t : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// CHECK-LABEL: func.func @gather
// CHECK: jeet.gather %{{.*}}, %{{.*}} {axis
func.func @gather(%table: tensor<1000x64xf32>, %ids: tensor<8x16xi64>) -> tensor<8x16x64xf32> {
  %e = jeet.gather %table, %ids {axis = 0 : i64} : tensor<1000x64xf32>, tensor<8x16xi64> -> tensor<8x16x64xf32>
  return %e : tensor<8x16x64xf32>
}

// CHECK-LABEL: func.func @ge
// CHECK: jeet.ge %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
func.func @ge(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xi1> {
  %r = jeet.ge %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @gelu
// CHECK: jeet.gelu %{{.*}} : tensor<4x3xf32>
// CHECK: jeet.gelu %{{.*}} {approximate = "tanh"} : tensor<4x3xf32>
func.func @gelu(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %r = jeet.gelu %x : tensor<4x3xf32>
  %t = jeet.gelu %x {approximate = "tanh"} : tensor<4x3xf32>
  return %r, %t : tensor<4x3xf32>, tensor<4x3xf32>
}

// CHECK-LABEL: func.func @gt
// CHECK: jeet.gt %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
func.func @gt(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xi1> {
  %r = jeet.gt %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @im2col
// CHECK: jeet.im2col %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>} : tensor<1x3x10x10xf32> -> tensor<1x3x3x3x8x8xf32>
func.func @im2col(%x: tensor<1x3x10x10xf32>) -> tensor<1x3x3x3x8x8xf32> {
  %cols = jeet.im2col %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x3x10x10xf32> -> tensor<1x3x3x3x8x8xf32>
  return %cols : tensor<1x3x3x3x8x8xf32>
}

// CHECK-LABEL: func.func @iota
// CHECK: jeet.iota {axis = 1 : i64} : tensor<2x3xi64>
func.func @iota() -> tensor<2x3xi64> {
  %i = jeet.iota {axis = 1 : i64} : tensor<2x3xi64>
  return %i : tensor<2x3xi64>
}

// CHECK-LABEL: func.func @le
// CHECK: jeet.le %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
func.func @le(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xi1> {
  %r = jeet.le %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @log
// CHECK: jeet.log %{{.*}} : tensor<4x3xf32>
func.func @log(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.log %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @lt
// CHECK: jeet.lt %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
func.func @lt(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xi1> {
  %r = jeet.lt %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @matmul
// CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<8x64x32xf32>, tensor<32x16xf32> -> tensor<8x64x16xf32>
// CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<8x64x32xf32>, tensor<32xf32> -> tensor<8x64xf32>
func.func @matmul(%a: tensor<8x64x32xf32>, %b: tensor<32x16xf32>, %x: tensor<32xf32>) -> (tensor<8x64x16xf32>, tensor<8x64xf32>) {
  %c = jeet.matmul %a, %b : tensor<8x64x32xf32>, tensor<32x16xf32> -> tensor<8x64x16xf32>
  %v = jeet.matmul %a, %x : tensor<8x64x32xf32>, tensor<32xf32> -> tensor<8x64xf32>
  return %c, %v : tensor<8x64x16xf32>, tensor<8x64xf32>
}

// CHECK-LABEL: func.func @max
// CHECK: jeet.max %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
func.func @max(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = jeet.max %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @max_pool2d
// CHECK: jeet.max_pool2d %{{.*}} {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
func.func @max_pool2d(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %y = jeet.max_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// CHECK-LABEL: func.func @min
// CHECK: jeet.min %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
func.func @min(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = jeet.min %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @mul
// CHECK: jeet.mul %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
func.func @mul(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = jeet.mul %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @ne
// CHECK: jeet.ne %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
func.func @ne(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xi1> {
  %r = jeet.ne %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @neg
// CHECK: jeet.neg %{{.*}} : tensor<4x3xf32>
func.func @neg(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.neg %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @not
// CHECK: jeet.not %{{.*}} : tensor<4x3xi1>
func.func @not(%x: tensor<4x3xi1>) -> tensor<4x3xi1> {
  %r = jeet.not %x : tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @or
// CHECK: jeet.or %{{.*}}, %{{.*}} : tensor<4x3xi1>, tensor<3xi1> -> tensor<4x3xi1>
func.func @or(%a: tensor<4x3xi1>, %b: tensor<3xi1>) -> tensor<4x3xi1> {
  %r = jeet.or %a, %b : tensor<4x3xi1>, tensor<3xi1> -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @pad
// CHECK: jeet.pad %{{.*}}, %{{.*}} {high = array<i64: 2, 1>, low = array<i64: 0, 1>} : tensor<2x3xf32>, tensor<f32> -> tensor<4x5xf32>
func.func @pad(%x: tensor<2x3xf32>, %zero: tensor<f32>) -> tensor<4x5xf32> {
  %p = jeet.pad %x, %zero {low = array<i64: 0, 1>, high = array<i64: 2, 1>} : tensor<2x3xf32>, tensor<f32> -> tensor<4x5xf32>
  return %p : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @pow
// CHECK: jeet.pow %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
func.func @pow(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = jeet.pow %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @reduce_max
// CHECK: jeet.reduce_max %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
func.func @reduce_max(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %s = jeet.reduce_max %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// CHECK-LABEL: func.func @reduce_mean
// CHECK: jeet.reduce_mean %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
func.func @reduce_mean(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %s = jeet.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// CHECK-LABEL: func.func @reduce_min
// CHECK: jeet.reduce_min %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
func.func @reduce_min(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %s = jeet.reduce_min %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// CHECK-LABEL: func.func @reduce_prod
// CHECK: jeet.reduce_prod %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
func.func @reduce_prod(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %s = jeet.reduce_prod %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// CHECK-LABEL: func.func @reduce_sum
// CHECK: jeet.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
func.func @reduce_sum(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %s = jeet.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// CHECK-LABEL: func.func @relu
// CHECK: jeet.relu %{{.*}} : tensor<4x3xf32>
func.func @relu(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.relu %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @rem
// CHECK: jeet.rem %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
func.func @rem(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = jeet.rem %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK: jeet.reshape %{{.*}} : tensor<2x6xf32> -> tensor<3x4xf32>
func.func @reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %r = jeet.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @round
// CHECK: jeet.round %{{.*}} : tensor<4x3xf32>
func.func @round(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.round %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @rsqrt
// CHECK: jeet.rsqrt %{{.*}} : tensor<4x3xf32>
func.func @rsqrt(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.rsqrt %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @select
// CHECK: jeet.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
func.func @select(%c: tensor<4x3xi1>, %a: tensor<4x3xf32>, %b: tensor<f32>) -> tensor<4x3xf32> {
  %r = jeet.select %c, %a, %b : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @sigmoid
// CHECK: jeet.sigmoid %{{.*}} : tensor<4x3xf32>
func.func @sigmoid(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.sigmoid %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @sin
// CHECK: jeet.sin %{{.*}} : tensor<4x3xf32>
func.func @sin(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.sin %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @sinh
// CHECK: jeet.sinh %{{.*}} : tensor<4x3xf32>
func.func @sinh(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.sinh %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK: jeet.slice %{{.*}} {starts = array<i64: 1, -1>, steps = array<i64: 1, -2>, stops = array<i64: 3, -9223372036854775808>} : tensor<4x6xf32> -> tensor<2x3xf32>
func.func @slice(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %s = jeet.slice %x {starts = array<i64: 1, -1>, stops = array<i64: 3, -9223372036854775808>, steps = array<i64: 1, -2>} : tensor<4x6xf32> -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @softmax
// CHECK: jeet.softmax %{{.*}} {axis = 1 : i64} : tensor<4x8xf32>
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = jeet.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @sqrt
// CHECK: jeet.sqrt %{{.*}} : tensor<4x3xf32>
func.func @sqrt(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.sqrt %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @sub
// CHECK: jeet.sub %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
func.func @sub(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = jeet.sub %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @tan
// CHECK: jeet.tan %{{.*}} : tensor<4x3xf32>
func.func @tan(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.tan %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @tanh
// CHECK: jeet.tanh %{{.*}} : tensor<4x3xf32>
func.func @tanh(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = jeet.tanh %x : tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK: jeet.transpose %{{.*}} {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @xor
// CHECK: jeet.xor %{{.*}}, %{{.*}} : tensor<4x3xi1>, tensor<3xi1> -> tensor<4x3xi1>
func.func @xor(%a: tensor<4x3xi1>, %b: tensor<3xi1>) -> tensor<4x3xi1> {
  %r = jeet.xor %a, %b : tensor<4x3xi1>, tensor<3xi1> -> tensor<4x3xi1>
  return %r : tensor<4x3xi1>
}

// CHECK-LABEL: func.func @yield
// CHECK: jeet.yield %{{.*}} : tensor<16xf32>
func.func @yield(%a: tensor<16xf32>) -> tensor<16xf32> {
  %r = jeet.fusion (%a) : (tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%t: tensor<16xf32>):
    jeet.yield %t : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
