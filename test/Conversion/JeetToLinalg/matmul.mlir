// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<8x4xf32>)
// CHECK: %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[F]] : tensor<8x4xf32>)
// CHECK: return %[[R]]
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = jeet.matmul %a, %b : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// f16 accumulates in f32 and truncates the result.
// CHECK-LABEL: func.func @matmul_f16
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<8x4xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins({{.*}} : tensor<8x16xf16>, tensor<16x4xf16>) outs(%[[F]] : tensor<8x4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8x4xf32>) outs(%{{.*}} : tensor<8x4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[R]]
func.func @matmul_f16(%a: tensor<8x16xf16>, %b: tensor<16x4xf16>) -> tensor<8x4xf16> {
  %0 = jeet.matmul %a, %b : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}

// i32 accumulates in i32.
// CHECK-LABEL: func.func @matmul_i32
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : i32)
// CHECK: %[[R:.*]] = linalg.matmul {{.*}} outs(%[[F]] : tensor<8x4xi32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @matmul_i32(%a: tensor<8x16xi32>, %b: tensor<16x4xi32>) -> tensor<8x4xi32> {
  %0 = jeet.matmul %a, %b : tensor<8x16xi32>, tensor<16x4xi32> -> tensor<8x4xi32>
  return %0 : tensor<8x4xi32>
}

// CHECK-LABEL: func.func @batch_matmul
// CHECK: linalg.batch_matmul ins({{.*}} : tensor<3x8x16xf32>, tensor<3x16x4xf32>) outs({{.*}} : tensor<3x8x4xf32>)
func.func @batch_matmul(%a: tensor<3x8x16xf32>, %b: tensor<3x16x4xf32>) -> tensor<3x8x4xf32> {
  %0 = jeet.matmul %a, %b : tensor<3x8x16xf32>, tensor<3x16x4xf32> -> tensor<3x8x4xf32>
  return %0 : tensor<3x8x4xf32>
}

// Broadcast batch dimensions: a contraction generic over (batch..., m, n, k).
// CHECK-LABEL: func.func @broadcast_batch
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x8x16xf32>, %[[B:.*]]: tensor<3x16x4xf32>)
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : {{.*}}) outs(%[[F]] :
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[Y]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: return %[[R]]
func.func @broadcast_batch(%a: tensor<2x3x8x16xf32>, %b: tensor<3x16x4xf32>) -> tensor<2x3x8x4xf32> {
  %0 = jeet.matmul %a, %b : tensor<2x3x8x16xf32>, tensor<3x16x4xf32> -> tensor<2x3x8x4xf32>
  return %0 : tensor<2x3x8x4xf32>
}

// A stretched unit batch dimension is collapsed away.
// CHECK-LABEL: func.func @unit_batch
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x16x4xbf16> into tensor<16x4xbf16>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %[[ACC:.*]]: f32):
// CHECK-DAG: arith.extf %[[X]] : bf16 to f32
// CHECK-DAG: arith.extf %[[Y]] : bf16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @unit_batch(%a: tensor<5x8x16xbf16>, %b: tensor<1x16x4xbf16>) -> tensor<5x8x4xbf16> {
  %0 = jeet.matmul %a, %b : tensor<5x8x16xbf16>, tensor<1x16x4xbf16> -> tensor<5x8x4xbf16>
  return %0 : tensor<5x8x4xbf16>
}
