// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-fuse),jeet-gpu-form-kernels,jeet-bufferize-pipeline,func.func(jeet-gpu-map-kernels),canonicalize,cse)' | FileCheck %s

// Elementwise: one launch, a block per tile; the block's threads share the
// tile's elements (thread t takes t, t + blockDim, ...; the loop bound is the
// check for the partial last tile).
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[C38:.*]] = arith.constant 38 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C38]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// CHECK-DAG: %[[TID:.*]] = gpu.thread_id x
// CHECK-DAG: %[[ROWS:.*]] = affine.min
// CHECK-DAG: %[[N:.*]] = arith.muli %[[ROWS]], %c37
// CHECK-DAG: %[[NT:.*]] = gpu.block_dim x
// CHECK: scf.for %[[I:.*]] = %[[TID]] to %[[N]] step %[[NT]]
// CHECK: affine.delinearize_index %[[I]] into (%[[ROWS]], 37)
// CHECK: math.exp
// CHECK: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @elementwise(%a: tensor<1000x37xf32>, %b: tensor<37xf32>) -> tensor<1000x37xf32> {
  %0 = "jeet.add"(%a, %b) : (tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32>
  %1 = "jeet.exp"(%0) : (tensor<1000x37xf32>) -> tensor<1000x37xf32>
  return %1 : tensor<1000x37xf32>
}

// -----

// Matmul + epilogue: the accumulator tile lives in workgroup memory; fill,
// matmul and epilogue are separated by barriers; each thread accumulates its
// outputs in registers over k and stores them once.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[ACC:.*]] : memref<64x64xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[TILE:.*]] = memref.memory_space_cast %[[ACC]]
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[TILE]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: %[[INIT:.*]] = memref.load %[[TILE]]
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// CHECK: arith.mulf
// CHECK: arith.addf %[[ACC]]
// CHECK: memref.store %[[SUM]], %[[TILE]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @matmul_bias_relu(%x: tensor<128x64xf32>, %w: tensor<64x256xf32>, %b: tensor<256xf32>) -> tensor<128x256xf32> {
  %0 = "jeet.matmul"(%x, %w) : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  %1 = "jeet.add"(%0, %b) : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %2 = "jeet.relu"(%1) : (tensor<128x256xf32>) -> tensor<128x256xf32>
  return %2 : tensor<128x256xf32>
}

// -----

// A column reduction: the parallel dimension moves outside the reduction, so
// consecutive threads own consecutive columns.
// CHECK-LABEL: func.func @column_max
// CHECK: gpu.launch
// CHECK: gpu.barrier
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load
// CHECK-NEXT: scf.for %[[ROW:.*]] = %c0 to %c128 step %c1 iter_args
// CHECK-NEXT: memref.load %{{.*}}[%[[ROW]], %[[COL]]]
func.func @column_max(%a: tensor<128x300xf32>) -> tensor<300xf32> {
  %1 = "jeet.reduce_max"(%a) {axes = array<i64: 0>, keepdims = false} : (tensor<128x300xf32>) -> tensor<300xf32>
  return %1 : tensor<300xf32>
}

// -----

// Intermediates between kernels are device buffers of the runtime's
// allocator, freed right after their last use.
// CHECK-LABEL: func.func @two_kernels
// CHECK: %[[T:.*]] = gpu.alloc () : memref<64x64xf32>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: memref.load %[[T]]
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: gpu.dealloc %[[T]] : memref<64x64xf32>
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @two_kernels(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64xf32> {
  %0 = "jeet.matmul"(%x, %w) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = "jeet.reduce_sum"(%0) {axes = array<i64: 1>, keepdims = false} : (tensor<64x64xf32>) -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
