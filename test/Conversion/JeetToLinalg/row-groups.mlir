// RUN: jeet-opt %s --split-input-file --jeet-lower-to-linalg --canonicalize --cse | FileCheck %s

// A multi-reduction group (softmax, as jeet-fuse=multi-reduction=true forms
// it) is tiled over blocks of rows of 256 KiB (64 rows of 1024 f32): both
// reductions and their fills are fused into each block, so a block is read
// from memory once and then from the cache.

// CHECK-LABEL: func.func @softmax_rows
// CHECK-NOT: linalg.generic
// CHECK: scf.forall (%[[ROW:.*]]) = (0) to (4096) step (64)
// CHECK: %[[X:.*]] = tensor.extract_slice %{{.*}}[%[[ROW]], 0] [64, 1024] [1, 1]
// CHECK: %[[MAXINIT:.*]] = linalg.fill {{.*}} -> tensor<64xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[X]] : tensor<64x1024xf32>) outs(%[[MAXINIT]]
// CHECK: arith.maximumf
// CHECK: %[[SUMINIT:.*]] = linalg.fill {{.*}} -> tensor<64xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[X]], %[[MAX]] : tensor<64x1024xf32>, tensor<64xf32>) outs(%[[SUMINIT]]
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%[[X]], %[[MAX]], %[[SUM]] :
// CHECK: arith.divf
// CHECK: tensor.parallel_insert_slice {{.*}}[%[[ROW]], 0] [64, 1024] [1, 1]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @softmax_rows(%arg0: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %0 = jeet.fusion(%arg0) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  ^bb0(%arg1: tensor<4096x1024xf32>):
    %1 = jeet.reduce_max %arg1 {axes = array<i64: 1>, keepdims = true} : tensor<4096x1024xf32> -> tensor<4096x1xf32>
    %2 = jeet.sub %arg1, %1 : tensor<4096x1024xf32>, tensor<4096x1xf32> -> tensor<4096x1024xf32>
    %3 = jeet.exp %2 : tensor<4096x1024xf32>
    %4 = jeet.reduce_sum %3 {axes = array<i64: 1>, keepdims = true} : tensor<4096x1024xf32> -> tensor<4096x1xf32>
    %5 = jeet.div %3, %4 : tensor<4096x1024xf32>, tensor<4096x1xf32> -> tensor<4096x1024xf32>
    jeet.yield %5 : tensor<4096x1024xf32>
  }
  return %0 : tensor<4096x1024xf32>
}

// -----

// Rows whose count has no divisor near the block size (37) are one block:
// the group stays three loop nests over all rows, untiled.
// CHECK-LABEL: func.func @prime_rows
// CHECK-NOT: scf.forall
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: scf.forall
// CHECK: return
func.func @prime_rows(%arg0: tensor<37x1024xf32>) -> tensor<37x1024xf32> {
  %0 = jeet.fusion(%arg0) : (tensor<37x1024xf32>) -> tensor<37x1024xf32> {
  ^bb0(%arg1: tensor<37x1024xf32>):
    %1 = jeet.reduce_max %arg1 {axes = array<i64: 1>, keepdims = true} : tensor<37x1024xf32> -> tensor<37x1xf32>
    %2 = jeet.sub %arg1, %1 : tensor<37x1024xf32>, tensor<37x1xf32> -> tensor<37x1024xf32>
    %3 = jeet.exp %2 : tensor<37x1024xf32>
    %4 = jeet.reduce_sum %3 {axes = array<i64: 1>, keepdims = true} : tensor<37x1024xf32> -> tensor<37x1xf32>
    %5 = jeet.div %3, %4 : tensor<37x1024xf32>, tensor<37x1xf32> -> tensor<37x1024xf32>
    jeet.yield %5 : tensor<37x1024xf32>
  }
  return %0 : tensor<37x1024xf32>
}

// -----

// Reductions over the leading dimension leave no rows to tile.
// CHECK-LABEL: func.func @column_group
// CHECK-NOT: scf.forall
// CHECK: return
func.func @column_group(%arg0: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %0 = jeet.fusion(%arg0) : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  ^bb0(%arg1: tensor<4096x1024xf32>):
    %1 = jeet.reduce_max %arg1 {axes = array<i64: 0>, keepdims = true} : tensor<4096x1024xf32> -> tensor<1x1024xf32>
    %2 = jeet.sub %arg1, %1 : tensor<4096x1024xf32>, tensor<1x1024xf32> -> tensor<4096x1024xf32>
    jeet.yield %2 : tensor<4096x1024xf32>
  }
  return %0 : tensor<4096x1024xf32>
}
