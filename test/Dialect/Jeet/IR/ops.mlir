// RUN: jeet-opt %s | jeet-opt | FileCheck %s
// RUN: jeet-opt %s --mlir-print-op-generic | jeet-opt | FileCheck %s

// Every jeet op round-trips through the custom and the generic form.

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<2x2xf16>, tensor<3xbf16>, tensor<i32>) {
  // CHECK: jeet.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = jeet.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: jeet.constant dense<5.000000e-01> : tensor<2x2xf16>
  %1 = jeet.constant dense<0.5> : tensor<2x2xf16>
  // CHECK: jeet.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xbf16>
  %2 = jeet.constant dense<[1.0, 2.0, 3.0]> : tensor<3xbf16>
  // CHECK: jeet.constant dense<7> : tensor<i32>
  %3 = jeet.constant dense<7> : tensor<i32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2x2xf16>, tensor<3xbf16>, tensor<i32>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>
func.func @binary(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // CHECK: jeet.add %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %0 = jeet.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: jeet.sub %[[B]], %[[A]] : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %1 = jeet.sub %b, %a : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  // CHECK: jeet.mul %[[A]], %[[A]] : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %2 = jeet.mul %a, %a : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  // CHECK: jeet.div %[[A]], %[[B]]
  %3 = jeet.div %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: jeet.max %[[A]], %[[B]]
  %4 = jeet.max %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: jeet.min %[[A]], %[[B]]
  %5 = jeet.min %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: jeet.pow %[[A]], %[[B]]
  %6 = jeet.pow %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return
}

// Size-1 dimensions stretch on both sides, and rank-0 tensors broadcast.
// CHECK-LABEL: func.func @binary_broadcast
func.func @binary_broadcast(%a: tensor<4x1xf32>, %b: tensor<1x5xf32>, %s: tensor<f32>) {
  // CHECK: jeet.add %{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x5xf32>
  %0 = jeet.add %a, %b : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x5xf32>
  // CHECK: jeet.mul %{{.*}}, %{{.*}} : tensor<f32>, tensor<4x1xf32> -> tensor<4x1xf32>
  %1 = jeet.mul %s, %a : tensor<f32>, tensor<4x1xf32> -> tensor<4x1xf32>
  return
}

// CHECK-LABEL: func.func @binary_types
func.func @binary_types(%h: tensor<8xf16>, %b: tensor<8xbf16>, %i: tensor<8xi32>) {
  // CHECK: jeet.add %{{.*}}, %{{.*}} : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  %0 = jeet.add %h, %h : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  // CHECK: jeet.pow %{{.*}}, %{{.*}} : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  %1 = jeet.pow %h, %h : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  // CHECK: jeet.mul %{{.*}}, %{{.*}} : tensor<8xbf16>, tensor<8xbf16> -> tensor<8xbf16>
  %2 = jeet.mul %b, %b : tensor<8xbf16>, tensor<8xbf16> -> tensor<8xbf16>
  // CHECK: jeet.pow %{{.*}}, %{{.*}} : tensor<8xbf16>, tensor<8xbf16> -> tensor<8xbf16>
  %3 = jeet.pow %b, %b : tensor<8xbf16>, tensor<8xbf16> -> tensor<8xbf16>
  // CHECK: jeet.add %{{.*}}, %{{.*}} : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  %4 = jeet.add %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  // CHECK: jeet.sub %{{.*}}, %{{.*}} : tensor<8xi32>
  %5 = jeet.sub %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  // CHECK: jeet.mul %{{.*}}, %{{.*}} : tensor<8xi32>
  %6 = jeet.mul %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  // CHECK: jeet.div %{{.*}}, %{{.*}} : tensor<8xi32>
  %7 = jeet.div %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  // CHECK: jeet.max %{{.*}}, %{{.*}} : tensor<8xi32>
  %8 = jeet.max %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  // CHECK: jeet.min %{{.*}}, %{{.*}} : tensor<8xi32>
  %9 = jeet.min %i, %i : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  return
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>
func.func @unary(%x: tensor<4x3xf32>) {
  // CHECK: jeet.neg %[[X]] : tensor<4x3xf32>
  %0 = jeet.neg %x : tensor<4x3xf32>
  // CHECK: jeet.abs %[[X]] : tensor<4x3xf32>
  %1 = jeet.abs %x : tensor<4x3xf32>
  // CHECK: jeet.exp %[[X]] : tensor<4x3xf32>
  %2 = jeet.exp %x : tensor<4x3xf32>
  // CHECK: jeet.log %[[X]] : tensor<4x3xf32>
  %3 = jeet.log %x : tensor<4x3xf32>
  // CHECK: jeet.sqrt %[[X]] : tensor<4x3xf32>
  %4 = jeet.sqrt %x : tensor<4x3xf32>
  // CHECK: jeet.rsqrt %[[X]] : tensor<4x3xf32>
  %5 = jeet.rsqrt %x : tensor<4x3xf32>
  // CHECK: jeet.tanh %[[X]] : tensor<4x3xf32>
  %6 = jeet.tanh %x : tensor<4x3xf32>
  // CHECK: jeet.sigmoid %[[X]] : tensor<4x3xf32>
  %7 = jeet.sigmoid %x : tensor<4x3xf32>
  // CHECK: jeet.relu %[[X]] : tensor<4x3xf32>
  %8 = jeet.relu %x : tensor<4x3xf32>
  // CHECK: jeet.gelu %[[X]] : tensor<4x3xf32>
  %9 = jeet.gelu %x : tensor<4x3xf32>
  return
}

// CHECK-LABEL: func.func @unary_types
func.func @unary_types(%h: tensor<2xf16>, %b: tensor<2xbf16>, %i: tensor<2xi32>) {
  // CHECK: jeet.exp %{{.*}} : tensor<2xf16>
  %0 = jeet.exp %h : tensor<2xf16>
  // CHECK: jeet.gelu %{{.*}} : tensor<2xf16>
  %1 = jeet.gelu %h : tensor<2xf16>
  // CHECK: jeet.tanh %{{.*}} : tensor<2xbf16>
  %2 = jeet.tanh %b : tensor<2xbf16>
  // CHECK: jeet.rsqrt %{{.*}} : tensor<2xbf16>
  %3 = jeet.rsqrt %b : tensor<2xbf16>
  // CHECK: jeet.neg %{{.*}} : tensor<2xi32>
  %4 = jeet.neg %i : tensor<2xi32>
  // CHECK: jeet.abs %{{.*}} : tensor<2xi32>
  %5 = jeet.abs %i : tensor<2xi32>
  // CHECK: jeet.relu %{{.*}} : tensor<2xi32>
  %6 = jeet.relu %i : tensor<2xi32>
  return
}

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>,
                  %ba: tensor<8x64x32xf16>, %bb: tensor<32x16xf16>,
                  %x: tensor<2x1x4x5xbf16>, %y: tensor<3x5x6xbf16>,
                  %i: tensor<2x3xi32>, %j: tensor<3x4xi32>) {
  // CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %0 = jeet.matmul %a, %b : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  // CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<8x64x32xf16>, tensor<32x16xf16> -> tensor<8x64x16xf16>
  %1 = jeet.matmul %ba, %bb : tensor<8x64x32xf16>, tensor<32x16xf16> -> tensor<8x64x16xf16>
  // Batch dimensions broadcast: (2, 1) with (3) gives (2, 3).
  // CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<2x1x4x5xbf16>, tensor<3x5x6xbf16> -> tensor<2x3x4x6xbf16>
  %2 = jeet.matmul %x, %y : tensor<2x1x4x5xbf16>, tensor<3x5x6xbf16> -> tensor<2x3x4x6xbf16>
  // CHECK: jeet.matmul %{{.*}}, %{{.*}} : tensor<2x3xi32>, tensor<3x4xi32> -> tensor<2x4xi32>
  %3 = jeet.matmul %i, %j : tensor<2x3xi32>, tensor<3x4xi32> -> tensor<2x4xi32>
  return
}

// CHECK-LABEL: func.func @shape
func.func @shape(%x: tensor<2x3x4xf32>, %v: tensor<3xi32>, %s: tensor<f16>) {
  // CHECK: jeet.transpose %{{.*}} {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %0 = jeet.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK: jeet.reshape %{{.*}} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = jeet.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: jeet.reshape %{{.*}} : tensor<f16> -> tensor<1x1xf16>
  %2 = jeet.reshape %s : tensor<f16> -> tensor<1x1xf16>
  // CHECK: jeet.broadcast_to %{{.*}} : tensor<3xi32> -> tensor<2x3xi32>
  %3 = jeet.broadcast_to %v : tensor<3xi32> -> tensor<2x3xi32>
  // CHECK: jeet.broadcast_to %{{.*}} : tensor<f16> -> tensor<4x5xf16>
  %4 = jeet.broadcast_to %s : tensor<f16> -> tensor<4x5xf16>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x8xf32>, %h: tensor<2x3x4xf16>, %i: tensor<4x8xi32>) {
  // CHECK: jeet.reduce_sum %{{.*}} {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %0 = jeet.reduce_sum %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  // CHECK: jeet.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %1 = jeet.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  // CHECK: jeet.reduce_max %{{.*}} {axes = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  %2 = jeet.reduce_max %x {axes = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  // CHECK: jeet.reduce_max %{{.*}} {axes = array<i64: 0>, keepdims = true} : tensor<4x8xi32> -> tensor<1x8xi32>
  %3 = jeet.reduce_max %i {axes = array<i64: 0>, keepdims = true} : tensor<4x8xi32> -> tensor<1x8xi32>
  // CHECK: jeet.reduce_mean %{{.*}} {axes = array<i64: 0, 2>} : tensor<2x3x4xf16> -> tensor<3xf16>
  %4 = jeet.reduce_mean %h {axes = array<i64: 0, 2>} : tensor<2x3x4xf16> -> tensor<3xf16>
  // CHECK: jeet.reduce_mean %{{.*}} {axes = array<i64: 2>, keepdims = true} : tensor<2x3x4xf16> -> tensor<2x3x1xf16>
  %5 = jeet.reduce_mean %h {axes = array<i64: 2>, keepdims = true} : tensor<2x3x4xf16> -> tensor<2x3x1xf16>
  // An explicit keepdims = false is the default and is not printed.
  // CHECK: jeet.reduce_sum %{{.*}} {axes = array<i64: 0>} : tensor<4x8xi32> -> tensor<8xi32>
  %6 = jeet.reduce_sum %i {axes = array<i64: 0>, keepdims = false} : tensor<4x8xi32> -> tensor<8xi32>
  return
}

// CHECK-LABEL: func.func @softmax_cast
func.func @softmax_cast(%x: tensor<4x8xf32>, %b: tensor<8xbf16>, %i: tensor<8xi32>) {
  // CHECK: jeet.softmax %{{.*}} {axis = 1 : i64} : tensor<4x8xf32>
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  // CHECK: jeet.softmax %{{.*}} {axis = 0 : i64} : tensor<8xbf16>
  %1 = jeet.softmax %b {axis = 0 : i64} : tensor<8xbf16>
  // CHECK: jeet.cast %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf16>
  %2 = jeet.cast %x : tensor<4x8xf32> -> tensor<4x8xf16>
  // CHECK: jeet.cast %{{.*}} : tensor<8xbf16> -> tensor<8xi32>
  %3 = jeet.cast %b : tensor<8xbf16> -> tensor<8xi32>
  // CHECK: jeet.cast %{{.*}} : tensor<8xi32> -> tensor<8xf32>
  %4 = jeet.cast %i : tensor<8xi32> -> tensor<8xf32>
  return
}

// CHECK-LABEL: func.func @fusion
// CHECK-SAME: (%[[A:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
func.func @fusion(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<f32>) {
  // CHECK: %[[R:.*]]:2 = jeet.fusion(%[[A]], %[[B]]) : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<f32>) {
  // CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<16xf32>, %[[Y:.*]]: tensor<16xf32>):
  // CHECK-NEXT:   %[[C:.*]] = jeet.constant dense<1.000000e+00> : tensor<f32>
  // CHECK-NEXT:   %[[S:.*]] = jeet.add %[[X]], %[[Y]]
  // CHECK-NEXT:   %[[T:.*]] = jeet.add %[[S]], %[[C]]
  // CHECK-NEXT:   %[[M:.*]] = jeet.reduce_max %[[T]] {axes = array<i64: 0>}
  // CHECK-NEXT:   jeet.yield %[[T]], %[[M]] : tensor<16xf32>, tensor<f32>
  // CHECK-NEXT: }
  %r:2 = jeet.fusion (%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<f32>) {
  ^bb0(%x: tensor<16xf32>, %y: tensor<16xf32>):
    %c = jeet.constant dense<1.0> : tensor<f32>
    %s = jeet.add %x, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
    %t = jeet.add %s, %c : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
    %m = jeet.reduce_max %t {axes = array<i64: 0>} : tensor<16xf32> -> tensor<f32>
    jeet.yield %t, %m : tensor<16xf32>, tensor<f32>
  }
  // CHECK: return %[[R]]#0, %[[R]]#1
  return %r#0, %r#1 : tensor<16xf32>, tensor<f32>
}

// A fusion without inputs computes from constants alone.
// CHECK-LABEL: func.func @fusion_no_inputs
func.func @fusion_no_inputs() -> tensor<2xi32> {
  // CHECK: jeet.fusion() : () -> tensor<2xi32> {
  // CHECK:   jeet.yield %{{.*}} : tensor<2xi32>
  %r = jeet.fusion () : () -> tensor<2xi32> {
    %c = jeet.constant dense<[1, 2]> : tensor<2xi32>
    %n = jeet.neg %c : tensor<2xi32>
    jeet.yield %n : tensor<2xi32>
  }
  return %r : tensor<2xi32>
}

// Zero-sized dimensions are valid shapes.
// CHECK-LABEL: func.func @zero_sized
func.func @zero_sized(%x: tensor<0x3xf32>, %y: tensor<3xf32>) {
  // CHECK: jeet.add %{{.*}}, %{{.*}} : tensor<0x3xf32>, tensor<3xf32> -> tensor<0x3xf32>
  %0 = jeet.add %x, %y : tensor<0x3xf32>, tensor<3xf32> -> tensor<0x3xf32>
  // CHECK: jeet.reduce_sum %{{.*}} {axes = array<i64: 0>} : tensor<0x3xf32> -> tensor<3xf32>
  %1 = jeet.reduce_sum %x {axes = array<i64: 0>} : tensor<0x3xf32> -> tensor<3xf32>
  // CHECK: jeet.reshape %{{.*}} : tensor<0x3xf32> -> tensor<3x0xf32>
  %2 = jeet.reshape %x : tensor<0x3xf32> -> tensor<3x0xf32>
  return
}
