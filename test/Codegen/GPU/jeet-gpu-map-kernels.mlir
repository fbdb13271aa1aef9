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
// CHECK-NOT: vector.load
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

// Matmul + epilogue: a register-tiled matmul. The block's 256 threads stage
// each K-tile of A (64x16) and B (16x64) in workgroup memory (clamped loads,
// zero outside the operands), a barrier, each thread accumulates its 4x4
// register tile (rows ty + 16 i, columns 4 tx + j: a vector load of B a
// step) from them, a barrier;
// then the epilogue runs on the register tile, in bounds, and stores it. No
// accumulator tile in memory.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[A:.*]] : memref<64x16xf32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK-DAG: %[[TY:.*]] = arith.divui %[[TID]], %c16
// CHECK-DAG: %[[TX:.*]] = arith.remui %[[TID]], %c16
// CHECK-DAG: %[[BY:.*]] = arith.divui %[[TID]], %c64
// CHECK-DAG: %[[BX:.*]] = arith.remui %[[TID]], %c64
// CHECK-DAG: %[[COL:.*]] = arith.muli %[[TX]], %c4
// CHECK: %[[ACC:.*]]:16 = scf.for %[[K0:.*]] = %c0 to %c64 step %c16 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: %[[KA:.*]] = arith.addi %[[K0]], %[[TX]]
// CHECK: memref.load %{{.*}} : memref<64x64xf32, strided<[64, 1], offset: ?>>
// CHECK: arith.select
// CHECK: memref.store %{{.*}}, %[[A]][%[[TY]], %[[TX]]]
// CHECK-COUNT-3: memref.store %{{.*}}, %[[A]]
// CHECK: memref.store %{{.*}}, %[[B]][%[[BY]], %[[BX]]]
// CHECK-COUNT-3: memref.store %{{.*}}, %[[B]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: memref.load %[[A]]
// CHECK: vector.load %[[B]][%c0, %[[COL]]] {alignment = 16 : i64} : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-COUNT-16: math.fma
// CHECK-NOT: memref.store
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK: %[[BIAS:.*]] = memref.load
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]]#0, %[[BIAS]]
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]]
// CHECK: memref.store %[[RELU]], %{{.*}}[%[[TY]], %[[COL]]]
// CHECK-COUNT-15: arith.maximumf
// CHECK-NOT: gpu.barrier
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
// CHECK: memref.subview %[[T]]
// CHECK: memref.load
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

// -----

// f16 matmul with sizes that are not multiples of the tile: the K-tiles are
// staged as f32, the register tile accumulates in f32 and is truncated in
// the epilogue; the host accumulator buffer is gone. Loads are clamped into
// the operands and masked; stores are guarded by the tile's bounds.
// CHECK-LABEL: func.func @half_odd
// CHECK-NOT: gpu.alloc
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[A:.*]] : memref<64x16xf32, #gpu.address_space<workgroup>>, %[[B:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %{{.*}} = %c0 to %c40 step %c16 iter_args
// CHECK: arith.minui
// CHECK: %[[X:.*]] = memref.load {{.*}} : memref<?x40xf16
// CHECK: %[[XF:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK: arith.select %{{.*}}, %[[XF]]
// CHECK: gpu.barrier
// CHECK: math.fma {{.*}} : f32
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: memref.store {{.*}} : memref<?x?xf16
// CHECK: gpu.terminator
func.func @half_odd(%a: tensor<100x40xf16>, %b: tensor<40x70xf16>) -> tensor<100x70xf16> {
  %0 = "jeet.matmul"(%a, %b) : (tensor<100x40xf16>, tensor<40x70xf16>) -> tensor<100x70xf16>
  return %0 : tensor<100x70xf16>
}

// -----

// A row reduction with its prologue: a warp per row (tiles of 8 rows, one
// per warp). Rows of 300 floats allow 16-byte accesses: lane l reads the
// vectors of 4 floats l, l + 32, ... of the row (coalesced) and folds their
// elements in order, a butterfly of shuffles combines the lanes, and lane 0
// folds the result into the output, which the fill wrote (in vectors of 4)
// before a barrier.
// CHECK-LABEL: func.func @row_sum
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c16,
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: vector.store %cst, %{{.*}} {alignment = 16 : i64} : memref<8xf32, {{.*}}>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK-DAG: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK-DAG: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK-DAG: %[[WARPS:.*]] = arith.divui %{{.*}}, %c32
// CHECK: scf.for %[[ROW:.*]] = %[[WARP]] to %c8 step %[[WARPS]] {
// CHECK: %[[START:.*]] = arith.muli %[[LANE]], %c4
// CHECK: %[[PART:.*]] = scf.for %[[COL:.*]] = %[[START]] to %c300 step %c128 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK: %[[V:.*]] = vector.load %{{.*}}[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<8x300xf32, {{.*}}>, vector<4xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[V]][0]
// CHECK: %[[SQ0:.*]] = arith.mulf %[[X0]], %[[X0]]
// CHECK: %[[A0:.*]] = arith.addf %[[ACC]], %[[SQ0]]
// CHECK: %[[X1:.*]] = vector.extract %[[V]][1]
// CHECK: %[[SQ1:.*]] = arith.mulf %[[X1]], %[[X1]]
// CHECK: %[[A1:.*]] = arith.addf %[[A0]], %[[SQ1]]
// CHECK: vector.extract %[[V]][2]
// CHECK: vector.extract %[[V]][3]
// CHECK: %[[NEXT:.*]] = arith.addf
// CHECK: scf.yield %[[NEXT]]
// CHECK: %[[S16:.*]], %{{.*}} = gpu.shuffle xor %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK: %[[R16:.*]] = arith.addf %[[PART]], %[[S16]]
// CHECK: gpu.shuffle xor %[[R16]], %c8_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32
// CHECK: %[[TOTAL:.*]] = arith.addf
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[OUT:.*]] = memref.load %{{.*}}[%[[ROW]]]
// CHECK: %[[SUM:.*]] = arith.addf %[[OUT]], %[[TOTAL]]
// CHECK: memref.store %[[SUM]], %{{.*}}[%[[ROW]]]
// CHECK: gpu.terminator
func.func @row_sum(%a: tensor<128x300xf32>) -> tensor<128xf32> {
  %0 = "jeet.mul"(%a, %a) : (tensor<128x300xf32>, tensor<128x300xf32>) -> tensor<128x300xf32>
  %1 = "jeet.reduce_sum"(%0) {axes = array<i64: 1>, keepdims = false} : (tensor<128x300xf32>) -> tensor<128xf32>
  return %1 : tensor<128xf32>
}

// -----

// Rows of 301 floats: a row's start is 4-byte aligned only, so lanes read a
// float at a time (elements l, l + 32, ...).
// CHECK-LABEL: func.func @row_sum_scalar
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: scf.for %[[ROW:.*]] =
// CHECK: scf.for %[[COL:.*]] = %[[LANE]] to %c301 step %c32 iter_args
// CHECK-NOT: vector.load
// CHECK: memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<8x301xf32
// CHECK: gpu.shuffle xor
func.func @row_sum_scalar(%a: tensor<128x301xf32>) -> tensor<128xf32> {
  %0 = "jeet.mul"(%a, %a) : (tensor<128x301xf32>, tensor<128x301xf32>) -> tensor<128x301xf32>
  %1 = "jeet.reduce_sum"(%0) {axes = array<i64: 1>, keepdims = false} : (tensor<128x301xf32>) -> tensor<128xf32>
  return %1 : tensor<128xf32>
}

// -----

// Fewer rows than warps (2 rows, 8 warps): 4 warps a row, so none idles.
// Thread t of a row's 128 folds the vectors of 4 floats t, t + 128, ...;
// each warp's
// butterfly; lane 0 leaves the warp's value in its slot of workgroup memory;
// after a barrier the row's first thread folds its 4 warps' slots into the
// output.
// CHECK-LABEL: func.func @row_sum_few_rows
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[SLOTS:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: gpu.barrier
// CHECK-DAG: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK-DAG: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK-DAG: %[[ROW:.*]] = arith.divui %[[TID]], %c128
// CHECK-DAG: %[[FIRST:.*]] = arith.remui %[[TID]], %c128
// CHECK: %[[ACTIVE:.*]] = arith.cmpi ult, %[[ROW]], %c2
// CHECK: %[[PART:.*]] = scf.if %[[ACTIVE]] -> (f32) {
// CHECK: %[[START:.*]] = arith.muli %[[FIRST]], %c4
// CHECK: scf.for %[[COL:.*]] = %[[START]] to %c1000 step %c512 iter_args
// CHECK: vector.load %{{.*}}[%[[ROW]], %[[COL]]] {alignment = 16 : i64}
// CHECK: } else {
// CHECK: gpu.shuffle xor %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle xor
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[SLOTS]][%[[WARP]]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: %[[BASE:.*]] = arith.muli %[[ROW]], %c4
// CHECK: scf.for %[[W:.*]] = %c0 to %c4 step %c1 iter_args
// CHECK: %[[SLOT:.*]] = arith.addi %[[BASE]], %[[W]]
// CHECK: memref.load %[[SLOTS]][%[[SLOT]]]
// CHECK: memref.store %{{.*}}[%[[ROW]]]
// CHECK: gpu.terminator
func.func @row_sum_few_rows(%a: tensor<2x1000xf32>) -> tensor<2xf32> {
  %0 = "jeet.mul"(%a, %a) : (tensor<2x1000xf32>, tensor<2x1000xf32>) -> tensor<2x1000xf32>
  %1 = "jeet.reduce_sum"(%0) {axes = array<i64: 1>, keepdims = false} : (tensor<2x1000xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// Elementwise with an innermost size that is a multiple of 4: thread t takes
// the vectors of 4 floats t, t + blockDim, ... (16-byte aligned loads and
// stores); the scalar input is read once per vector. The last tile is
// partial (952 elements): the loop bound counts its whole vectors.
// CHECK-LABEL: func.func @elementwise_vector
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c3,
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[OFF:.*]] = arith.muli %[[BX]], %c1024
// CHECK: %[[SIZE:.*]] = affine.min #{{.*}}()[%[[OFF]]]
// CHECK: %[[IN:.*]] = memref.subview %{{.*}}[%[[OFF]]] [%[[SIZE]]] [1]
// CHECK: %[[OUT:.*]] = memref.subview %{{.*}}[%[[OFF]]] [%[[SIZE]]] [1]
// CHECK: %[[N:.*]] = arith.divui %[[SIZE]], %[[C4]]
// CHECK: scf.for %[[I:.*]] = %[[TID]] to %[[N]] step %{{.*}} {
// CHECK: %[[J:.*]] = arith.muli %[[I]], %[[C4]]
// CHECK: %[[V:.*]] = vector.load %[[IN]][%[[J]]] {alignment = 16 : i64} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
// CHECK: %[[S:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK-COUNT-4: math.exp
// CHECK: %[[R:.*]] = vector.from_elements
// CHECK: vector.store %[[R]], %[[OUT]][%[[J]]] {alignment = 16 : i64} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
// CHECK: gpu.terminator
func.func @elementwise_vector(%a: tensor<3000xf32>, %s: tensor<f32>) -> tensor<3000xf32> {
  %0 = "jeet.mul"(%a, %s) : (tensor<3000xf32>, tensor<f32>) -> tensor<3000xf32>
  %1 = "jeet.exp"(%0) : (tensor<3000xf32>) -> tensor<3000xf32>
  return %1 : tensor<3000xf32>
}

// -----

// Vectors of 8 halves; a row broadcast is a vector, a column broadcast one
// value per vector. Tiles of 42 rows of 24 halves: each row's offset is a
// multiple of 8 elements.
// CHECK-LABEL: func.func @elementwise_vector_half
// CHECK: scf.for
// CHECK: affine.delinearize_index %{{.*}} into (%{{.*}}, 3)
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x24xf16, {{.*}}>, vector<8xf16>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<24xf16>, vector<8xf16>
// CHECK: memref.load %{{.*}} : memref<?xf16, {{.*}}>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?x24xf16, {{.*}}>, vector<8xf16>
func.func @elementwise_vector_half(%a: tensor<100x24xf16>, %b: tensor<24xf16>, %c: tensor<100x1xf16>) -> tensor<100x24xf16> {
  %0 = "jeet.add"(%a, %b) : (tensor<100x24xf16>, tensor<24xf16>) -> tensor<100x24xf16>
  %1 = "jeet.mul"(%0, %c) : (tensor<100x24xf16>, tensor<100x1xf16>) -> tensor<100x24xf16>
  return %1 : tensor<100x24xf16>
}

// -----

// 12 halves per row: not a multiple of 8, scalar accesses.
// CHECK-LABEL: func.func @elementwise_half_scalar
// CHECK-NOT: vector.
// CHECK: memref.store
// CHECK-NOT: vector.
// CHECK: return
func.func @elementwise_half_scalar(%a: tensor<100x12xf16>, %b: tensor<100x12xf16>) -> tensor<100x12xf16> {
  %0 = "jeet.mul"(%a, %b) : (tensor<100x12xf16>, tensor<100x12xf16>) -> tensor<100x12xf16>
  return %0 : tensor<100x12xf16>
}

// -----

// One kernel of two foralls (the group's two results, each recomputing the
// f16 sum in an f32 accumulator that both fill): a barrier between the
// tiles, so that no thread fills the accumulator again while another still
// reads it for the first result. The f32 sums are rounded to f16 by vectors
// of 4 (16 bytes read, 8 written).
// CHECK-LABEL: func.func @results_share_an_accumulator
// CHECK: %[[ACC:.*]] = gpu.alloc () : memref<3x13x16xf32>
// CHECK: gpu.launch
// CHECK: vector.store %{{.*}}, %[[ACC]]
// CHECK: arith.truncf
// CHECK-NOT: arith.negf
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<3x13x16xf16>, vector<4xf16>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[ACC]]
// CHECK: arith.negf
// CHECK: gpu.terminator
func.func @results_share_an_accumulator(%x: tensor<3x13x1x16xf16>) -> (tensor<3x13x16xf16>, tensor<3x13x16xf16>) {
  %0 = "jeet.reduce_sum"(%x) {axes = array<i64: 2>} : (tensor<3x13x1x16xf16>) -> tensor<3x13x16xf16>
  %1 = "jeet.neg"(%0) : (tensor<3x13x16xf16>) -> tensor<3x13x16xf16>
  return %1, %0 : tensor<3x13x16xf16>, tensor<3x13x16xf16>
}
