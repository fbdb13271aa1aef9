// RUN: jeet-opt %s | FileCheck %s
// RUN: jeet-opt %s --mlir-print-op-generic | jeet-opt | FileCheck %s

// Jeet ops written in MLIR's generic form, as tests outside the project write
// them: attributes in the attribute dictionary `{...}`, not as properties.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %i: tensor<4xi32>) {
  // CHECK: jeet.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
  %c = "jeet.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  // CHECK: jeet.add %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %0 = "jeet.add"(%a, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.sub
  %1 = "jeet.sub"(%a, %c) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.mul
  %2 = "jeet.mul"(%a, %a) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.div
  %3 = "jeet.div"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: jeet.max
  %4 = "jeet.max"(%a, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.min
  %5 = "jeet.min"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: jeet.pow
  %6 = "jeet.pow"(%a, %b) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.neg %{{.*}} : tensor<4x3xf32>
  %7 = "jeet.neg"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.abs %{{.*}} : tensor<4xi32>
  %8 = "jeet.abs"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: jeet.exp
  %9 = "jeet.exp"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.log
  %10 = "jeet.log"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.sqrt
  %11 = "jeet.sqrt"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.rsqrt
  %12 = "jeet.rsqrt"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.tanh
  %13 = "jeet.tanh"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.sigmoid
  %14 = "jeet.sigmoid"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.relu
  %15 = "jeet.relu"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: jeet.gelu
  %16 = "jeet.gelu"(%a) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// CHECK-LABEL: func.func @structured
func.func @structured(%x: tensor<2x3xf32>, %m: tensor<8x3x4xf16>, %n: tensor<4x5xf16>) {
  // CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<8x3x4xf16>, tensor<4x5xf16> -> tensor<8x3x5xf16>
  %0 = "jeet.matmul"(%m, %n) : (tensor<8x3x4xf16>, tensor<4x5xf16>) -> tensor<8x3x5xf16>
  // CHECK: jeet.transpose %{{.*}} {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = "jeet.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: jeet.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
  %2 = "jeet.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  // CHECK: jeet.broadcast_to %{{.*}} : tensor<2x3xf32> -> tensor<5x2x3xf32>
  %3 = "jeet.broadcast_to"(%x) : (tensor<2x3xf32>) -> tensor<5x2x3xf32>
  // CHECK: jeet.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2x1xf32>
  %4 = "jeet.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  // CHECK: jeet.reduce_max %{{.*}} {axes = array<i64: 0>} : tensor<2x3xf32> -> tensor<3xf32>
  %5 = "jeet.reduce_max"(%x) {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xf32>) -> tensor<3xf32>
  // CHECK: jeet.reduce_mean %{{.*}} {axes = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<f32>
  %6 = "jeet.reduce_mean"(%x) {axes = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<f32>
  // CHECK: jeet.softmax %{{.*}} {axis = 1 : i64} : tensor<2x3xf32>
  %7 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: jeet.cast %{{.*}} : tensor<2x3xf32> -> tensor<2x3xbf16>
  %8 = "jeet.cast"(%x) : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  return
}

// Properties written as `<{...}>` parse as well.
// CHECK-LABEL: func.func @properties
func.func @properties(%x: tensor<2x3xf32>) {
  // CHECK: jeet.transpose %{{.*}} {permutation = array<i64: 1, 0>}
  %0 = "jeet.transpose"(%x) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: jeet.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = true}
  %1 = "jeet.reduce_sum"(%x) <{axes = array<i64: 1>, keepdims = true}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// CHECK-LABEL: func.func @fusion
func.func @fusion(%a: tensor<16xf32>) -> tensor<16xf32> {
  // CHECK: jeet.fusion(%{{.*}}) : (tensor<16xf32>) -> tensor<16xf32> {
  // CHECK:   jeet.exp
  // CHECK:   jeet.yield %{{.*}} : tensor<16xf32>
  %r = "jeet.fusion"(%a) ({
  ^bb0(%x: tensor<16xf32>):
    %e = "jeet.exp"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    "jeet.yield"(%e) : (tensor<16xf32>) -> ()
  }) : (tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}
