// RUN: jeet-opt %s --jeet-lower-to-linalg --jeet-bufferize-pipeline | FileCheck %s

// Four intermediates: each is freed right after the op that reads it last,
// the result is written straight into the caller's out-parameter and is
// never freed, and nothing is freed twice.

// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[A:.*]]: memref<8x8xf32>, %[[B:.*]]: memref<8x8xf32>, %[[OUT:.*]]: memref<8x8xf32>)
// CHECK-NOT:     memref.dealloc
// CHECK:         %[[T0:.*]] = memref.alloc()
// CHECK:         linalg.matmul ins(%[[A]], %[[B]] {{.*}} outs(%[[T0]]
// CHECK:         %[[T1:.*]] = memref.alloc()
// CHECK:         linalg.matmul ins(%[[T0]], %[[B]] {{.*}} outs(%[[T1]]
// CHECK-NOT:     memref.dealloc
// CHECK:         %[[T2:.*]] = memref.alloc()
// CHECK:         linalg.fill
// CHECK-NEXT:    linalg.matmul ins(%[[T1]], %[[T0]] {{.*}} outs(%[[T2]]
// CHECK-DAG:     memref.dealloc %[[T1]]
// CHECK-DAG:     memref.dealloc %[[T0]]
// CHECK-NEXT:    %[[T3:.*]] = memref.alloc()
// CHECK:         linalg.matmul ins(%[[T2]], %[[A]] {{.*}} outs(%[[T3]]
// CHECK-NOT:     memref.dealloc
// CHECK:         linalg.matmul ins(%[[T3]], %[[T2]] {{.*}} outs(%[[OUT]]
// CHECK-DAG:     memref.dealloc %[[T3]]
// CHECK-DAG:     memref.dealloc %[[T2]]
// CHECK-NEXT:    return
// CHECK-NOT:     memref.dealloc %[[OUT]]
func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = jeet.matmul %a, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %1 = jeet.matmul %0, %b : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %2 = jeet.matmul %1, %0 : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %3 = jeet.matmul %2, %a : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %4 = jeet.matmul %3, %2 : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %4 : tensor<8x8xf32>
}
