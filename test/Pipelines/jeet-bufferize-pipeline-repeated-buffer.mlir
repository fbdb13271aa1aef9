// RUN: jeet-opt %s -split-input-file --jeet-bufferize-pipeline | FileCheck %s

// A copy of a value onto the buffer that holds it writes nothing new, so
// one-shot bufferization does it in place and returns one buffer for two
// results; each result is an out-parameter of its own, so the second gets a
// copy (buffer-results-to-out-params crashed on the shared buffer).
// CHECK-LABEL: func.func @copy_onto_itself
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>, %[[OUT0:.*]]: memref<4xf32>, %[[OUT1:.*]]: memref<4xf32>)
// CHECK-NEXT:    linalg.copy ins(%[[X]] : memref<4xf32>) outs(%[[OUT0]] : memref<4xf32>)
// CHECK-NEXT:    memref.copy %[[OUT0]], %[[OUT1]]
// CHECK-NEXT:    return
func.func @copy_onto_itself(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.copy ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Dynamic sizes: the copy is as large as the buffer; both reach the
// caller's out-parameters.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[X:.*]]: memref<?xf32>, %[[OUT0:.*]]: memref<?xf32>, %[[OUT1:.*]]: memref<?xf32>)
// CHECK:         %[[N:.*]] = memref.dim %[[X]]
// CHECK-NEXT:    %[[B:.*]] = memref.alloc(%[[N]])
// CHECK-NEXT:    linalg.copy ins(%[[X]] : memref<?xf32>) outs(%[[B]] : memref<?xf32>)
// CHECK-NEXT:    %[[COPY:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64}
// CHECK-NEXT:    memref.copy %[[B]], %[[COPY]]
// CHECK-NEXT:    memref.copy %[[B]], %[[OUT0]]
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK-NEXT:    memref.copy %[[COPY]], %[[OUT1]]
// CHECK-NEXT:    memref.dealloc %[[COPY]]
func.func @dynamic(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.copy ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %1 = linalg.copy ins(%0 : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}
