// RUN: jeet-opt %s --split-input-file --jeet-distinct-results | FileCheck %s

// A value returned twice: the repeat is a copy.
// CHECK-LABEL: func.func @twice
// CHECK:         %[[R:.*]] = jeet.relu
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[C:.*]] = linalg.copy ins(%[[R]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK:         return %[[R]], %[[C]]
func.func @twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = jeet.relu %x : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Distinct results are left alone.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT:     linalg.copy
// CHECK:         return
func.func @distinct(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = jeet.relu %x : tensor<4xf32>
  %1 = jeet.neg %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
