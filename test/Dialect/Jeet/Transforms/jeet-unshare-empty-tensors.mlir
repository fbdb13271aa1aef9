// RUN: jeet-opt %s --split-input-file --jeet-unshare-empty-tensors | FileCheck %s

// One empty tensor that CSE made the destination of three kernels: each gets
// its own, just before it, and the shared one is gone. A tensor with N
// destination uses makes one-shot bufferization's analysis quadratic in N.
// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C0:.*]] = linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C1:.*]] = linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C2:.*]] = linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>)
// CHECK-NEXT:    return %[[C0]], %[[C1]], %[[C2]]
func.func @shared(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.copy ins(%y : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.copy ins(%z : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Dynamic sizes: each copy takes the same size operand. A use inside a
// region gets its copy before the region's op, in the original's block.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?xf32>, %[[N:.*]]: index
// CHECK:         %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    linalg.copy ins(%[[X]] : tensor<?xf32>) outs(%[[E0]] : tensor<?xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    scf.execute_region
// CHECK-NEXT:      linalg.copy ins(%[[X]] : tensor<?xf32>) outs(%[[E1]] : tensor<?xf32>)
// CHECK-NOT:     tensor.empty
func.func @dynamic(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.copy ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %1 = scf.execute_region -> tensor<?xf32> {
    %c = linalg.copy ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %c : tensor<?xf32>
  }
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// An empty tensor with one use, or none, is left alone.
// CHECK-LABEL: func.func @single
// CHECK-COUNT-2: tensor.empty
// CHECK-NOT:     tensor.empty
func.func @single(%x: tensor<4xf32>) -> tensor<4xf32> {
  %unused = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
