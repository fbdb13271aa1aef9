// RUN: jeet-opt %s --split-input-file --jeet-unshare-fills | FileCheck %s

// Two matmuls whose accumulators CSE merged into one fill: each gets a
// fill (and an empty tensor) of its own right before it, and the shared one
// is gone. Bufferized, the first would otherwise accumulate into a copy.
// CHECK-LABEL: func.func @two_writers
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x4xf32>, %[[C:.*]]: tensor<8x4xf32>)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.0
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT:    %[[F0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E0]] : tensor<4x4xf32>)
// CHECK-NEXT:    %[[M0:.*]] = linalg.matmul ins(%[[A]], %[[B]] {{.*}} outs(%[[F0]] : tensor<4x4xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT:    %[[F1:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]] : tensor<4x4xf32>)
// CHECK-NEXT:    %[[M1:.*]] = linalg.matmul ins(%[[A]], %[[C]] {{.*}} outs(%[[F1]] : tensor<4x4xf32>)
// CHECK-NEXT:    return %[[M0]], %[[M1]]
func.func @two_writers(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.matmul ins(%a, %c : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// One writer alone keeps the fill: it is written in place.
// CHECK-LABEL: func.func @one_writer
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     tensor.empty
// CHECK:         return
func.func @one_writer(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A fill that is read as well as written over: the reader keeps the
// original (nothing forces a copy of a tensor that is only read), the
// writer gets its own, so the original survives for the reader.
// CHECK-LABEL: func.func @reader_and_writer
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x4xf32>, %[[X:.*]]: tensor<4x4xf32>)
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT:    %[[F0:.*]] = linalg.fill {{.*}} outs(%[[E0]] : tensor<4x4xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT:    %[[F1:.*]] = linalg.fill {{.*}} outs(%[[E1]] : tensor<4x4xf32>)
// CHECK-NEXT:    %[[M:.*]] = linalg.matmul {{.*}} outs(%[[F1]] : tensor<4x4xf32>)
// CHECK-NEXT:    %[[S:.*]] = linalg.add ins(%[[F0]], %[[X]] : {{.*}}) outs(%[[X]] : tensor<4x4xf32>)
func.func @reader_and_writer(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %x: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.add ins(%acc, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A writer inside a region (a loop over tiles) gets its fill before the
// region's op, in the block of the original; a fill of something other
// than an empty tensor is not the lowering's accumulator and stays shared.
// CHECK-LABEL: func.func @nested_and_not_empty
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x4xf32>, %[[X:.*]]: tensor<4x4xf32>)
// CHECK:         %[[FX:.*]] = linalg.fill {{.*}} outs(%[[X]] : tensor<4x4xf32>)
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT:    %[[F0:.*]] = linalg.fill {{.*}} outs(%[[E0]] : tensor<4x4xf32>)
// CHECK-NEXT:    linalg.matmul {{.*}} outs(%[[F0]] : tensor<4x4xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT:    %[[F1:.*]] = linalg.fill {{.*}} outs(%[[E1]] : tensor<4x4xf32>)
// CHECK-NEXT:    scf.execute_region
// CHECK-NEXT:      linalg.matmul {{.*}} outs(%[[F1]] : tensor<4x4xf32>)
// CHECK:         linalg.matmul {{.*}} outs(%[[FX]] : tensor<4x4xf32>)
// CHECK-NEXT:    linalg.matmul {{.*}} outs(%[[FX]] : tensor<4x4xf32>)
func.func @nested_and_not_empty(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %x: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %ax = linalg.fill ins(%zero : f32) outs(%x : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = scf.execute_region -> tensor<4x4xf32> {
    %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %m : tensor<4x4xf32>
  }
  %2 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%ax : tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%ax : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
