// RUN: jeet-opt %s --jeet-kernel-cse --split-input-file | FileCheck %s

// Kernels that differ only in the constant their bodies capture stay apart;
// an equal kernel is merged as MLIR's CSE merges it, and no tag is left.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @bodies
// CHECK-NOT:     jeet.body_hash
// CHECK:         %[[E:.*]] = tensor.empty()
// CHECK-NOT:     tensor.empty
// CHECK:         %[[A:.*]] = linalg.generic
// CHECK:           arith.addf %{{.*}}, %[[ONE:.*]] : f32
// CHECK:         %[[B:.*]] = linalg.generic
// CHECK:           arith.addf %{{.*}}, %[[TWO:.*]] : f32
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     jeet.body_hash
// CHECK:         return %[[A]], %[[B]], %[[A]]
func.func @bodies(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %one : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %two : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %one : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Bodies that capture different non-constant values hash alike (by type)
// and are still compared: equal ones merge.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @captured
// CHECK:         %[[A:.*]] = linalg.generic
// CHECK:         %[[B:.*]] = linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[A]], %[[B]], %[[A]]
func.func @captured(%x: tensor<4xf32>, %a: f32, %b: f32)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
