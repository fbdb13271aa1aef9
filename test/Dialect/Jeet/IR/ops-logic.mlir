// RUN: jeet-opt %s | jeet-opt | FileCheck %s
// RUN: jeet-opt %s --mlir-print-op-generic | jeet-opt | FileCheck %s

// Comparisons, select, the logical ops, erf/sin/cos and both forms of GELU
// round-trip through the custom and the generic form.

// CHECK-LABEL: func.func @comparisons
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<2xi64>, %[[P:.*]]: tensor<2xi1>)
func.func @comparisons(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi64>, %p: tensor<2xi1>) {
  // CHECK: jeet.eq %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  %0 = jeet.eq %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  // CHECK: jeet.ne %[[B]], %[[A]] : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
  %1 = jeet.ne %b, %a : tensor<3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
  // CHECK: jeet.lt %[[I]], %[[I]] : tensor<2xi64>, tensor<2xi64> -> tensor<2xi1>
  %2 = jeet.lt %i, %i : tensor<2xi64>, tensor<2xi64> -> tensor<2xi1>
  // CHECK: jeet.le %[[P]], %[[P]] : tensor<2xi1>, tensor<2xi1> -> tensor<2xi1>
  %3 = jeet.le %p, %p : tensor<2xi1>, tensor<2xi1> -> tensor<2xi1>
  // CHECK: jeet.gt %[[A]], %[[A]] : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
  %4 = jeet.gt %a, %a : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xi1>
  // CHECK: jeet.ge %[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  %5 = jeet.ge %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  return
}

// CHECK-LABEL: func.func @select
func.func @select(%c: tensor<4x3xi1>, %a: tensor<4x3xf32>, %b: tensor<f32>, %i: tensor<3xi64>) {
  // CHECK: jeet.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
  %0 = jeet.select %c, %a, %b : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
  // CHECK: jeet.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x3xi1>, tensor<3xi64>, tensor<3xi64> -> tensor<4x3xi64>
  %1 = jeet.select %c, %i, %i : tensor<4x3xi1>, tensor<3xi64>, tensor<3xi64> -> tensor<4x3xi64>
  return
}

// CHECK-LABEL: func.func @logical
func.func @logical(%p: tensor<4xi1>, %q: tensor<i1>, %i: tensor<4xi32>) {
  // CHECK: jeet.and %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<i1> -> tensor<4xi1>
  %0 = jeet.and %p, %q : tensor<4xi1>, tensor<i1> -> tensor<4xi1>
  // CHECK: jeet.or %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  %1 = jeet.or %p, %p : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  // CHECK: jeet.xor %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %2 = jeet.xor %i, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  // CHECK: jeet.not %{{.*}} : tensor<4xi1>
  %3 = jeet.not %p : tensor<4xi1>
  // CHECK: jeet.not %{{.*}} : tensor<4xi32>
  %4 = jeet.not %i : tensor<4xi32>
  return
}

// CHECK-LABEL: func.func @math
func.func @math(%x: tensor<4x3xf32>, %h: tensor<2xf16>) {
  // CHECK: jeet.erf %{{.*}} : tensor<4x3xf32>
  %0 = jeet.erf %x : tensor<4x3xf32>
  // CHECK: jeet.sin %{{.*}} : tensor<2xf16>
  %1 = jeet.sin %h : tensor<2xf16>
  // CHECK: jeet.cos %{{.*}} : tensor<4x3xf32>
  %2 = jeet.cos %x : tensor<4x3xf32>
  // CHECK: jeet.atanh %{{.*}} : tensor<2xf16>
  %t = jeet.atanh %h : tensor<2xf16>
  // CHECK: jeet.round %{{.*}} : tensor<4x3xf32>
  %r = jeet.round %x : tensor<4x3xf32>
  // The default form is printed without the attribute.
  // CHECK: jeet.gelu %{{.*}} : tensor<4x3xf32>
  %3 = jeet.gelu %x {approximate = "none"} : tensor<4x3xf32>
  // CHECK: jeet.gelu %{{.*}} {approximate = "tanh"} : tensor<4x3xf32>
  %4 = jeet.gelu %x {approximate = "tanh"} : tensor<4x3xf32>
  return
}
