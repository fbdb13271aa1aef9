// RUN: jeet-opt %s --split-input-file --jeet-unshare-empty-tensors=max-uses=2 | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-unshare-empty-tensors | FileCheck %s --check-prefix=DEFAULT

// One empty tensor that CSE made the destination of a chain of five
// kernels, each reading the one before: each run of two users in the
// block's order shares one, created before the first of them. One tensor with N destination uses makes one-shot
// bufferization's analysis quadratic in N.
// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C0:.*]] = linalg.copy {{.*}} outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT:    %[[C1:.*]] = linalg.copy {{.*}} outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C2:.*]] = linalg.copy {{.*}} outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT:    %[[C3:.*]] = linalg.copy {{.*}} outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C4:.*]] = linalg.copy {{.*}} outs(%[[E2]] : tensor<4xf32>)
// CHECK-NEXT:    return %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[C4]]
// Five users are within the default's group: nothing changes.
// DEFAULT-LABEL: func.func @shared
// DEFAULT-COUNT-1: tensor.empty
// DEFAULT-NOT:     tensor.empty
// DEFAULT:         return
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>,
    tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.copy ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.copy ins(%1 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %3 = linalg.copy ins(%2 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %4 = linalg.copy ins(%3 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Dynamic sizes: each copy takes the same size operand. A use inside a
// region gets its copy before the region's op, in the original's block.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?xf32>, %[[N:.*]]: index
// CHECK:         %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    %[[C0:.*]] = linalg.copy ins(%[[X]] : tensor<?xf32>) outs(%[[E0]] : tensor<?xf32>)
// CHECK-NEXT:    linalg.copy ins(%[[C0]] : tensor<?xf32>) outs(%[[E0]] : tensor<?xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:    scf.execute_region
// CHECK-NEXT:      linalg.copy ins(%[[X]] : tensor<?xf32>) outs(%[[E1]] : tensor<?xf32>)
// CHECK-NOT:     tensor.empty
func.func @dynamic(%x: tensor<?xf32>, %n: index)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.copy ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %1 = linalg.copy ins(%0 : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %2 = scf.execute_region -> tensor<?xf32> {
    %c = linalg.copy ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %c : tensor<?xf32>
  }
  return %0, %1, %2 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// A chain within a group, or no user, leaves the empty tensor alone.
// CHECK-LABEL: func.func @few
// CHECK-COUNT-2: tensor.empty
// CHECK-NOT:     tensor.empty
func.func @few(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %unused = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.copy ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Users that do not read each other's results (kernels that can be far
// apart, as a network's equal convolutions are) get one each, within the
// default's group too: sharing it would make one-shot bufferization give
// them one buffer, live from the first to the last of them.
// CHECK-LABEL: func.func @unrelated
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C0:.*]] = linalg.copy ins(%[[X]] : tensor<4xf32>) outs(%[[E0]] : tensor<4xf32>)
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[C1:.*]] = linalg.copy ins(%[[Y]] : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT:    %[[C2:.*]] = linalg.copy ins(%[[C1]] : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK-NEXT:    return %[[C0]], %[[C2]]
// DEFAULT-LABEL: func.func @unrelated
// DEFAULT-COUNT-2: tensor.empty
// DEFAULT-NOT:     tensor.empty
// DEFAULT:         return
func.func @unrelated(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.copy ins(%y : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.copy ins(%1 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0, %2 : tensor<4xf32>, tensor<4xf32>
}
