// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @casts
// CHECK: ^bb0(%[[A:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT: arith.truncf %[[A]] : f32 to f16
// CHECK: ^bb0(%[[B:.*]]: f16, %{{.*}}: f32):
// CHECK-NEXT: arith.extf %[[B]] : f16 to f32
// Float to integer saturates (NaN gives 0): arith.fptosi alone is poison
// out of range.
// CHECK: ^bb0(%[[C:.*]]: f32, %{{.*}}: i32):
// CHECK-DAG: %[[HIGH:.*]] = arith.cmpf oge, %[[C]]
// CHECK-DAG: %[[NAN:.*]] = arith.cmpf uno, %[[C]], %[[C]]
// CHECK-DAG: %[[LOW:.*]] = arith.maximumf %[[C]]
// CHECK: arith.select %[[HIGH]]
// CHECK: %[[SAFE:.*]] = arith.select %[[NAN]]
// CHECK: %[[I:.*]] = arith.fptosi %[[SAFE]] : f32 to i32
// CHECK: arith.select %[[HIGH]], %{{.*}}, %[[I]] : i32
// CHECK: ^bb0(%[[D:.*]]: i32, %{{.*}}: bf16):
// CHECK-NEXT: arith.sitofp %[[D]] : i32 to bf16
func.func @casts(%a: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = jeet.cast %a : tensor<4xf32> -> tensor<4xf16>
  %1 = jeet.cast %0 : tensor<4xf16> -> tensor<4xf32>
  %2 = jeet.cast %1 : tensor<4xf32> -> tensor<4xi32>
  %3 = jeet.cast %2 : tensor<4xi32> -> tensor<4xbf16>
  return %3 : tensor<4xbf16>
}

// f16 <-> bf16 goes through f32.
// CHECK-LABEL: func.func @half_to_bfloat
// CHECK: ^bb0(%[[X:.*]]: f16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[W]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[N]] : bf16
func.func @half_to_bfloat(%a: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = jeet.cast %a : tensor<4xf16> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
