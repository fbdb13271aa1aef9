// RUN: jeet-opt %s --split-input-file --jeet-lower-to-linalg --canonicalize --cse | FileCheck %s

// An attention group (as jeet-fuse=attention-block-bytes forms it) is tiled
// over its batch, one at a time, and blocks of rows: 64 rows, so that the
// block of the scores and of the softmax (128 KiB each) stay in the cache.
// The first matmul, both reductions and the softmax's exponentials are
// fused into each block, once each (the copies that tiling fuses for each
// reader of the scores are one after CSE); K and V are read whole per
// batch. The softmax's division by the row sums moves after the second
// matmul, (E / s) @ V = (E @ V) / s: it divides 64 columns of the result
// instead of 512 of the scores, and the exponentials E, written once for
// the second matmul, are what the sum reads (not computed again).

// CHECK-LABEL: func.func @attention
// CHECK-NOT: linalg.
// CHECK: scf.forall (%[[B:.*]], %[[ROW:.*]]) = (0, 0) to (8, 512) step (1, 64)
// CHECK: %[[Q:.*]] = tensor.extract_slice %{{.*}}[%[[B]], %[[ROW]], 0] [1, 64, 64] [1, 1, 1]
// CHECK: %[[K:.*]] = tensor.extract_slice %{{.*}}[%[[B]], 0, 0] [1, 512, 64] [1, 1, 1]
// CHECK: %[[S:.*]] = linalg.batch_matmul {{.*}}ins(%[[Q]], %[[K]] : {{.*}}) outs({{.*}} : tensor<1x64x512xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}["parallel", "parallel", "reduction"]{{.*}} ins(%[[S]] :
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {{.*}}["parallel", "parallel", "parallel"]{{.*}} ins(%[[S]], %[[MAX]] :
// CHECK-NOT: arith.divf
// CHECK: math.exp
// CHECK-NOT: arith.divf
// CHECK: %[[V:.*]] = tensor.extract_slice %{{.*}}[%[[B]], 0, 0] [1, 512, 64] [1, 1, 1]
// CHECK: %[[O:.*]] = linalg.batch_matmul ins(%[[E]], %[[V]] : tensor<1x64x512xf32>, tensor<1x512x64xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}}["parallel", "parallel", "reduction"]{{.*}} ins(%[[E]] :
// CHECK-NOT: math.exp
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[O]], %[[SUM]] : tensor<1x64x64xf32>, tensor<1x64xf32>)
// CHECK: arith.divf
// CHECK-NOT: linalg.batch_matmul
// CHECK: tensor.parallel_insert_slice %[[R]] into %{{.*}}[%[[B]], %[[ROW]], 0] [1, 64, 64] [1, 1, 1]
// CHECK-NOT: linalg.
// CHECK: return
func.func @attention(%arg0: tensor<8x512x64xf32>, %arg1: tensor<8x512x64xf32>, %arg2: tensor<8x512x64xf32>) -> tensor<8x512x64xf32> {
  %0 = jeet.fusion(%arg1, %arg0, %arg2) : (tensor<8x512x64xf32>, tensor<8x512x64xf32>, tensor<8x512x64xf32>) -> tensor<8x512x64xf32> {
  ^bb0(%k: tensor<8x512x64xf32>, %q: tensor<8x512x64xf32>, %v: tensor<8x512x64xf32>):
    %c = jeet.constant dense<1.250000e-01> : tensor<f32>
    %kt = jeet.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<8x512x64xf32> -> tensor<8x64x512xf32>
    %s = jeet.matmul %q, %kt : tensor<8x512x64xf32>, tensor<8x64x512xf32> -> tensor<8x512x512xf32>
    %ss = jeet.mul %s, %c : tensor<8x512x512xf32>, tensor<f32> -> tensor<8x512x512xf32>
    %m = jeet.reduce_max %ss {axes = array<i64: 2>, keepdims = true} : tensor<8x512x512xf32> -> tensor<8x512x1xf32>
    %d = jeet.sub %ss, %m : tensor<8x512x512xf32>, tensor<8x512x1xf32> -> tensor<8x512x512xf32>
    %e = jeet.exp %d : tensor<8x512x512xf32>
    %z = jeet.reduce_sum %e {axes = array<i64: 2>, keepdims = true} : tensor<8x512x512xf32> -> tensor<8x512x1xf32>
    %p = jeet.div %e, %z : tensor<8x512x512xf32>, tensor<8x512x1xf32> -> tensor<8x512x512xf32>
    %o = jeet.matmul %p, %v : tensor<8x512x512xf32>, tensor<8x512x64xf32> -> tensor<8x512x64xf32>
    jeet.yield %o : tensor<8x512x64xf32>
  }
  return %0 : tensor<8x512x64xf32>
}

// -----

// Matrices, 1000 rows (not a multiple of 64), with an epilogue: blocks of
// 25 rows (the divisor of 1000 nearest the budget's 32 rows of 4000 bytes),
// the division and the epilogue applied per block after the second matmul.
// CHECK-LABEL: func.func @matrices_epilogue
// CHECK-NOT: linalg.
// CHECK: scf.forall (%[[ROW:.*]]) = (0) to (1000) step (25)
// CHECK: %[[S:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<25x24xf32>, tensor<24x1000xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[S]] :
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[MAX]] :
// CHECK: %[[O:.*]] = linalg.matmul ins(%[[E]], %{{.*}} : tensor<25x1000xf32>, tensor<1000x24xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[E]] :
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[O]], %[[SUM]] : tensor<25x24xf32>, tensor<25xf32>)
// CHECK: arith.divf
// CHECK: arith.maximumf
// CHECK: tensor.parallel_insert_slice %[[R]] into %{{.*}}[%[[ROW]], 0] [25, 24] [1, 1]
// CHECK-NOT: linalg.
// CHECK: return
func.func @matrices_epilogue(%arg0: tensor<1000x24xf32>, %arg1: tensor<24x1000xf32>, %arg2: tensor<1000x24xf32>) -> tensor<1000x24xf32> {
  %0 = jeet.fusion(%arg0, %arg1, %arg2) : (tensor<1000x24xf32>, tensor<24x1000xf32>, tensor<1000x24xf32>) -> tensor<1000x24xf32> {
  ^bb0(%q: tensor<1000x24xf32>, %kt: tensor<24x1000xf32>, %v: tensor<1000x24xf32>):
    %s = jeet.matmul %q, %kt : tensor<1000x24xf32>, tensor<24x1000xf32> -> tensor<1000x1000xf32>
    %m = jeet.reduce_max %s {axes = array<i64: 1>, keepdims = true} : tensor<1000x1000xf32> -> tensor<1000x1xf32>
    %d = jeet.sub %s, %m : tensor<1000x1000xf32>, tensor<1000x1xf32> -> tensor<1000x1000xf32>
    %e = jeet.exp %d : tensor<1000x1000xf32>
    %z = jeet.reduce_sum %e {axes = array<i64: 1>, keepdims = true} : tensor<1000x1000xf32> -> tensor<1000x1xf32>
    %p = jeet.div %e, %z : tensor<1000x1000xf32>, tensor<1000x1xf32> -> tensor<1000x1000xf32>
    %o = jeet.matmul %p, %v : tensor<1000x1000xf32>, tensor<1000x24xf32> -> tensor<1000x24xf32>
    %r = jeet.relu %o : tensor<1000x24xf32>
    jeet.yield %r : tensor<1000x24xf32>
  }
  return %0 : tensor<1000x24xf32>
}
