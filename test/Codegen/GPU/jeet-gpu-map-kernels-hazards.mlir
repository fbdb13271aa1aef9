// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-gpu-map-kernels))' | FileCheck %s

// The foralls of one kernel share a launch, block b running tile b of each
// with a barrier between, only where a later forall accesses what an
// earlier one writes (or writes what it reads) through the same tile: the
// same subview, as the same function of the induction variables, over the
// same iteration space. Otherwise the later forall starts a launch of its
// own (LaunchHazards.cpp), which the stream orders after the first.

#tile = affine_map<(d0) -> (d0 * 4)>

// The second forall reads the tile the first wrote on the same block: one
// launch, a barrier between the tiles.
// CHECK-LABEL: func.func @same_tile
// CHECK: gpu.launch
// CHECK: gpu.barrier
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @same_tile(%out: memref<16xf32>) {
  %buf = memref.alloc() : memref<16xf32>
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (4) {
    %off = affine.apply #tile(%i)
    %t = memref.subview %buf[%off] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%t : memref<4xf32, strided<[1], offset: ?>>)
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  scf.forall (%i) in (4) {
    %off = affine.apply #tile(%i)
    %t = memref.subview %buf[%off] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %o = memref.subview %out[%off] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.copy ins(%t : memref<4xf32, strided<[1], offset: ?>>) outs(%o : memref<4xf32, strided<[1], offset: ?>>)
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  memref.dealloc %buf : memref<16xf32>
  return
}

// -----

#tile = affine_map<(d0) -> (d0 * 4)>
#next = affine_map<(d0) -> (d0 * 4 + 4)>

// The second forall reads the next block's tile: two launches.
// CHECK-LABEL: func.func @next_tile
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c4
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c3
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK: return
func.func @next_tile(%out: memref<12xf32>) {
  %buf = memref.alloc() : memref<16xf32>
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (4) {
    %off = affine.apply #tile(%i)
    %t = memref.subview %buf[%off] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%t : memref<4xf32, strided<[1], offset: ?>>)
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  scf.forall (%i) in (3) {
    %off = affine.apply #tile(%i)
    %src = affine.apply #next(%i)
    %t = memref.subview %buf[%src] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %o = memref.subview %out[%off] [4] [1] : memref<12xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.copy ins(%t : memref<4xf32, strided<[1], offset: ?>>) outs(%o : memref<4xf32, strided<[1], offset: ?>>)
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  memref.dealloc %buf : memref<16xf32>
  return
}

// -----

#tile = affine_map<(d0) -> (d0 * 4)>

// The second forall reads the whole buffer on every block, while the other
// blocks may still be writing it: two launches. The third reads what the
// second writes through the same tile: it joins the second's launch.
// CHECK-LABEL: func.func @whole_buffer
// CHECK: gpu.launch
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: gpu.shuffle
// CHECK: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @whole_buffer(%out: memref<16xf32>) {
  %buf = memref.alloc() : memref<16xf32>
  %sums = memref.alloc() : memref<16xf32>
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (4) {
    %off = affine.apply #tile(%i)
    %t = memref.subview %buf[%off] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%t : memref<4xf32, strided<[1], offset: ?>>)
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  scf.forall (%i) in (4) {
    %off = affine.apply #tile(%i)
    %s = memref.subview %sums[%off] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %e = memref.subview %s[0] [1] [1] : memref<4xf32, strided<[1], offset: ?>> to memref<f32, strided<[], offset: ?>>
    linalg.reduce ins(%buf : memref<16xf32>) outs(%e : memref<f32, strided<[], offset: ?>>) dimensions = [0]
      (%x: f32, %acc: f32) {
        %y = arith.addf %x, %acc : f32
        linalg.yield %y : f32
      }
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  scf.forall (%i) in (4) {
    %off = affine.apply #tile(%i)
    %s = memref.subview %sums[%off] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    %o = memref.subview %out[%off] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.copy ins(%s : memref<4xf32, strided<[1], offset: ?>>) outs(%o : memref<4xf32, strided<[1], offset: ?>>)
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  memref.dealloc %buf : memref<16xf32>
  memref.dealloc %sums : memref<16xf32>
  return
}

// -----

// Two foralls that only read the same buffer, each writing its own
// output: one launch.
// CHECK-LABEL: func.func @shared_reads
// CHECK: gpu.launch
// CHECK: gpu.barrier
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @shared_reads(%a: memref<16xf32>, %x: memref<4x16xf32>, %y: memref<2x16xf32>) {
  scf.forall (%i) in (4) {
    %o = memref.subview %x[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    linalg.copy ins(%a : memref<16xf32>) outs(%o : memref<16xf32, strided<[1], offset: ?>>)
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  scf.forall (%i) in (2) {
    %o = memref.subview %y[%i, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    linalg.copy ins(%a : memref<16xf32>) outs(%o : memref<16xf32, strided<[1], offset: ?>>)
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// Kernels of one block each: the barrier orders all of it, one launch.
// CHECK-LABEL: func.func @one_block_each
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1
// CHECK: gpu.barrier
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @one_block_each(%out: memref<f32>) {
  %buf = memref.alloc() : memref<16xf32>
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (1) {
    linalg.fill ins(%zero : f32) outs(%buf : memref<16xf32>)
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  scf.forall (%i) in (1) {
    linalg.reduce ins(%buf : memref<16xf32>) outs(%out : memref<f32>) dimensions = [0]
      (%x: f32, %acc: f32) {
        %y = arith.addf %x, %acc : f32
        linalg.yield %y : f32
      }
  } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
  memref.dealloc %buf : memref<16xf32>
  return
}
