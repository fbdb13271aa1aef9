// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-matmul),canonicalize,cse)' | FileCheck %s

// 13x70 = two full 6-row register tiles and one remainder row; 64 full
// columns (4 vectors of 16) and a remainder of 6 = 4 + 2. The row blocks are
// parallel; every tile keeps its accumulators in scf.for iter_args.
// CHECK-LABEL: func.func @odd_shape
// CHECK-NOT: linalg.matmul
// CHECK: scf.parallel
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
// CHECK: vector.load %{{.*}} : memref<7x70xf32>, vector<16xf32>
// CHECK: memref.load %{{.*}} : memref<13x7xf32>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: vector.fma {{.*}} : vector<16xf32>
// CHECK: vector.fma {{.*}} : vector<4xf32>
// CHECK: vector.fma {{.*}} : vector<2xf32>
// CHECK: scf.reduce
// The remainder row, after the parallel loop.
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<2xf32>)
func.func @odd_shape(%a: memref<13x7xf32>, %b: memref<7x70xf32>, %c: memref<13x70xf32>) {
  linalg.matmul ins(%a, %b : memref<13x7xf32>, memref<7x70xf32>) outs(%c : memref<13x70xf32>)
  return
}

// -----

// The smallest matmul is one 1x1 kernel.
// CHECK-LABEL: func.func @one_by_one
// CHECK-NOT: scf.parallel
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<1xf32>)
// CHECK: vector.fma {{.*}} : vector<1xf32>
func.func @one_by_one(%a: memref<1x7xf32>, %b: memref<7x1xf32>, %c: memref<1x1xf32>) {
  linalg.matmul ins(%a, %b : memref<1x7xf32>, memref<7x1xf32>) outs(%c : memref<1x1xf32>)
  return
}

// -----

// Inside a parallel loop (an epilogue tile) the kernel's loops are
// sequential.
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: vector.fma
func.func @nested(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  }
  return
}

// -----

// Batches run in parallel, each a 2-D kernel on a rank-reduced view; 3
// columns are vectors of 2 and 1.
// CHECK-LABEL: func.func @batch
// CHECK: scf.parallel
// CHECK: memref.subview {{.*}} to memref<5x3xf32, strided<[3, 1], offset: ?>>
// CHECK: vector.fma {{.*}} : vector<2xf32>
// CHECK: vector.fma {{.*}} : vector<1xf32>
func.func @batch(%a: memref<4x2x5xf32>, %b: memref<4x5x3xf32>, %c: memref<4x2x3xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<4x2x5xf32>, memref<4x5x3xf32>) outs(%c : memref<4x2x3xf32>)
  return
}

// -----

// Integer matmuls and tensors are left to the generic lowering.
// CHECK-LABEL: func.func @unsupported
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xi32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>
func.func @unsupported(%a: memref<4x4xi32>, %c: memref<4x4xi32>, %t: tensor<4x4xf32>) -> tensor<4x4xf32> {
  linalg.matmul ins(%a, %a : memref<4x4xi32>, memref<4x4xi32>) outs(%c : memref<4x4xi32>)
  %0 = linalg.matmul ins(%t, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
