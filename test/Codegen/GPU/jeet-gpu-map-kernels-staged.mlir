// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-decompose,jeet-fuse{multi-reduction=true max-row-bytes=32768}),jeet-gpu-form-kernels,jeet-bufferize-pipeline,func.func(jeet-gpu-map-kernels),canonicalize,cse)' | FileCheck %s

// The rows a multi-reduction kernel stages in workgroup memory are copied
// there and read back by 16-byte vector accesses, like the global buffers:
// a workgroup attribution (viewed with the tile's own shape, here a dynamic
// number of rows: 19 rows are tiles of 8, 8 and 3) is as aligned as a
// vector, which jeet-gpu-align-workgroup-memory makes true of the outlined
// kernel. The row reductions read the staged rows a lane at a time.
// CHECK-LABEL: func.func @softmax_rows
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[ROWS:.*]] : memref<8000xf32, #gpu.address_space<workgroup>>,
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[ROWS]] to offset: [0], sizes: [%{{.*}}, 1000], strides: [1000, 1]
// CHECK: %[[STAGED:.*]] = memref.memory_space_cast %[[VIEW]]
// CHECK: %[[IN:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<?x1000xf32, strided<[1000, 1], offset: ?>>, vector<4xf32>
// CHECK: vector.store %[[IN]], %[[STAGED]][{{.*}}] {alignment = 16 : i64} : memref<?x1000xf32>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: gpu.shuffle xor
// CHECK: memref.load %[[STAGED]]
// CHECK: gpu.shuffle xor
// CHECK: vector.load %[[STAGED]][{{.*}}] {alignment = 16 : i64} : memref<?x1000xf32>, vector<4xf32>
// CHECK-COUNT-4: arith.divf
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x1000xf32, strided<[1000, 1], offset: ?>>, vector<4xf32>
// CHECK: gpu.terminator
func.func @softmax_rows(%x: tensor<19x1000xf32>) -> tensor<19x1000xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<19x1000xf32>) -> tensor<19x1000xf32>
  return %0 : tensor<19x1000xf32>
}

// -----

// Rows of 999 floats: a row's start in workgroup memory is a multiple of 4
// bytes only, so the rows take scalar accesses (the row results, 8 floats,
// still take vectors).
// CHECK-LABEL: func.func @softmax_odd_rows
// CHECK: gpu.launch
// CHECK-NOT: x999xf32{{.*}}, vector
// CHECK: memref.store %{{.*}} : memref<8x999xf32>
// CHECK-NOT: x999xf32{{.*}}, vector
// CHECK: gpu.terminator
func.func @softmax_odd_rows(%x: tensor<16x999xf32>) -> tensor<16x999xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<16x999xf32>) -> tensor<16x999xf32>
  return %0 : tensor<16x999xf32>
}
