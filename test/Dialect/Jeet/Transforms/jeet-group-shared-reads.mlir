// RUN: jeet-opt %s --jeet-group-shared-reads=max-reads=2 --split-input-file \
// RUN:   | FileCheck %s

// Five readers of %x, at most two per tensor: groups of three (the square
// root of five, rounded up, is larger than two), each through a cast of its
// own. The destination use keeps %x itself.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @fanout(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK:         %[[C0:.*]] = tensor.cast %[[X]] : tensor<4xf32> to tensor<4xf32>
// CHECK:         %[[C1:.*]] = tensor.cast %[[X]] : tensor<4xf32> to tensor<4xf32>
// CHECK-NOT:     tensor.cast
// CHECK-COUNT-3: ins(%[[C0]] : tensor<4xf32>)
// CHECK-COUNT-2: ins(%[[C1]] : tensor<4xf32>)
// CHECK:         ins(%{{[0-9]+}} : tensor<4xf32>) outs(%[[X]] : tensor<4xf32>)
func.func @fanout(%x: tensor<4xf32>, %e: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>) {
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%4 : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Two readers, within the limit: nothing changes.
#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @few(
// CHECK-NOT:     tensor.cast
func.func @few(%x: tensor<4xf32>, %e: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
