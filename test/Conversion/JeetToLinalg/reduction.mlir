// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ALL:.*]] = affine_map<(d0, d1) -> ()>

// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]] : tensor<4x8xf32>) outs(%[[F]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: return %[[R]]
func.func @sum(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = jeet.reduce_sum %a {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// keepdims expands the reduced tensor.
// CHECK-LABEL: func.func @sum_keepdims
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK: %[[X:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK: return %[[X]]
func.func @sum_keepdims(%a: tensor<4x8xf32>) -> tensor<1x8xf32> {
  %0 = jeet.reduce_sum %a {axes = array<i64: 0>, keepdims = true} : tensor<4x8xf32> -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// A float max starts at -inf and uses maximumf (NaN propagates).
// CHECK-LABEL: func.func @max_all
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ALL]]], iterator_types = ["reduction", "reduction"]}
// CHECK: arith.maximumf
// CHECK: %[[X:.*]] = tensor.expand_shape %[[R]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: return %[[X]]
func.func @max_all(%a: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %0 = jeet.reduce_max %a {axes = array<i64: 0, 1>, keepdims = true} : tensor<4x8xf32> -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// An i32 max starts at INT_MIN.
// CHECK-LABEL: func.func @max_i32
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: linalg.fill ins(%[[MIN]] : i32)
// CHECK: arith.maxsi
func.func @max_i32(%a: tensor<4x8xi32>) -> tensor<4xi32> {
  %0 = jeet.reduce_max %a {axes = array<i64: 1>} : tensor<4x8xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// mean = sum, then divide by the count.
// CHECK-LABEL: func.func @mean
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<4xf32>)
// CHECK: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: return %[[R]]
func.func @mean(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = jeet.reduce_mean %a {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// f16 sums and means accumulate in f32.
// CHECK-LABEL: func.func @mean_f16
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[W]] : f32
// CHECK: tensor.expand_shape {{.*}} : tensor<4xf32> into tensor<4x1xf32>
// CHECK: ^bb0(%[[Y:.*]]: f32, %{{.*}}: f16):
// CHECK: %[[D:.*]] = arith.divf %[[Y]], %{{.*}} : f32
// CHECK: arith.truncf %[[D]] : f32 to f16
func.func @mean_f16(%a: tensor<4x8xf16>) -> tensor<4x1xf16> {
  %0 = jeet.reduce_mean %a {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf16> -> tensor<4x1xf16>
  return %0 : tensor<4x1xf16>
}

// softmax: max, then a sum whose body subtracts and exponentiates, then the
// division; only the max and the sum are materialised.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>)
// CHECK: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[A]] :
// CHECK: arith.maximumf
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[A]], %[[M]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]], #[[ROW]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[M]], %[[S]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: return %[[R]]
func.func @softmax(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = jeet.softmax %a {axis = 1 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
