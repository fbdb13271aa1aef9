// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=256}),canonicalize,cse)' | FileCheck %s

// Attention's heads merged back into the rows: (batch, head, seq, dim) to
// (batch, seq, head, dim). The innermost dimension stays in place, so each
// row of 32 is copied as two vectors of 16, read where the permuted input
// holds it; the outer dimensions are the parallel loop.
// CHECK-LABEL: func.func @merge_heads
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.generic
// CHECK: scf.parallel (%[[B:.*]], %[[S:.*]], %[[H:.*]]) =
// CHECK: scf.for %[[D:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: %[[V:.*]] = vector.load %{{.*}}[%[[B]], %[[H]], %[[S]], %[[D]]] : memref<2x4x8x32xf32>, vector<16xf32>
// CHECK: vector.store %[[V]], %{{.*}}[%[[B]], %[[S]], %[[H]], %[[D]]] : memref<2x8x4x32xf32>, vector<16xf32>
func.func @merge_heads(%x: memref<2x4x8x32xf32>, %y: memref<2x8x4x32xf32>) {
  linalg.transpose ins(%x : memref<2x4x8x32xf32>) outs(%y : memref<2x8x4x32xf32>) permutation = [0, 2, 1, 3]
  return
}

// -----

// The QKV projection's heads split from its rows, with a remainder: 20
// columns are a vector of 16 and one of 4.
// CHECK-LABEL: func.func @split_heads
// CHECK-NOT: linalg.transpose
// CHECK: vector.load %{{.*}} : memref<2x5x3x2x20xf32>, vector<16xf32>
// CHECK: vector.store %{{.*}} : memref<3x2x2x5x20xf32>, vector<16xf32>
// CHECK: vector.load %{{.*}} : memref<2x5x3x2x20xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}} : memref<3x2x2x5x20xf32>, vector<4xf32>
func.func @split_heads(%x: memref<2x5x3x2x20xf32>, %y: memref<3x2x2x5x20xf32>) {
  linalg.transpose ins(%x : memref<2x5x3x2x20xf32>) outs(%y : memref<3x2x2x5x20xf32>) permutation = [2, 0, 3, 1, 4]
  return
}

// -----

// A transpose that moves the innermost dimension reads along a stride: each
// vector of the output's row is gathered element by element (lane l of the
// row i's vector j is x[j + l, i]) and stored whole.
// CHECK-LABEL: func.func @matrix_transpose
// CHECK-NOT: linalg.transpose
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[E0:.*]] = memref.load %{{.*}}[%c0, %[[I]]] : memref<8x16xf32>
// CHECK: %[[E7:.*]] = memref.load %{{.*}}[%c7, %[[I]]] : memref<8x16xf32>
// CHECK: %[[V:.*]] = vector.from_elements %[[E0]], {{.*}}, %[[E7]] : vector<8xf32>
// CHECK: vector.store %[[V]], %{{.*}}[%[[I]], %c0] : memref<16x8xf32>, vector<8xf32>
func.func @matrix_transpose(%x: memref<8x16xf32>, %y: memref<16x8xf32>) {
  linalg.transpose ins(%x : memref<8x16xf32>) outs(%y : memref<16x8xf32>) permutation = [1, 0]
  return
}
