// RUN: jeet-opt %s --split-input-file --jeet-cpu-im2col --canonicalize | FileCheck %s

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#lhs = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A convolution as the pipeline has it: pad, im2col, and the tiles of its
// matmul, each reading the windows of 32 output pixels (2 rows of 16) of one
// image. The windows are copied in each tile, into a buffer of that tile's
// own (1, C, KH, KW, 2, OW) windows, from the pad's input: no buffer of all
// the windows, no loop of copies before the tiles. The tile's rows start at
// p / 16; for kernel offset (0, 0), of output rows 0 to 4 row 0 is padding
// and rows 1 to 3 read input row oh - 1; each loop covers the part of its
// rows that lies in the tile. The pad's input, freed after the pad before,
// is freed after the tiles.
// CHECK-LABEL: func.func @tiles
// CHECK-SAME: (%[[F:[^:]*]]: memref<8x27xf32>, %[[O:[^:]*]]: memref<2x8x64xf32>, %[[V:[^:]*]]: f32)
// CHECK-NOT: memref<2x3x3x3x4x16xf32>
// CHECK: %[[X:.*]] = memref.alloc() : memref<2x3x4x16xf32>
// CHECK-NOT: memref.dealloc %[[X]]
// CHECK: scf.forall (%[[N:.*]], %[[P:.*]]) = (0, 0) to (2, 64) step (1, 32) {
// CHECK: %[[TW:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x3x3x3x2x16xf32>
// CHECK: %[[ROW0:.*]] = arith.divui %[[P]], %c16 : index
// CHECK: scf.for %[[C:.*]] = %c0 to %c3 step %c1 {
// CHECK: %[[PADEND:.*]] = arith.minsi %{{.*}}, %c1 : index
// CHECK: scf.for %[[OH0:.*]] = %{{.*}} to %[[PADEND]] step %c1 {
// CHECK: %[[R0:.*]] = arith.subi %[[OH0]], %[[ROW0]] : index
// CHECK: vector.store %{{.*}}, %[[TW]][%c0, %[[C]], %c0, %c0, %[[R0]], %c0] : memref<1x3x3x3x2x16xf32>, vector<16xf32>
// CHECK: }
// CHECK: %[[LO:.*]] = arith.maxsi %[[ROW0]], %c1 : index
// CHECK: scf.for %[[OH:.*]] = %[[LO]] to %{{.*}} step %c1 {
// CHECK: %[[R:.*]] = arith.subi %[[OH]], %[[ROW0]] : index
// CHECK: memref.store %{{.*}}, %[[TW]][%c0, %[[C]], %c0, %c0, %[[R]], %c0]
// CHECK: %[[IH:.*]] = arith.addi %[[OH]], %c-1 : index
// CHECK: vector.load %[[X]][%[[N]], %[[C]], %[[IH]], %c0] : memref<2x3x4x16xf32>, vector<8xf32>
// CHECK: %[[M:.*]] = memref.collapse_shape %[[TW]] {{\[\[}}0], [1, 2, 3], [4, 5]] : memref<1x3x3x3x2x16xf32> into memref<1x27x32xf32>
// CHECK: linalg.generic {{.*}} ins(%[[F]], %[[M]] : memref<8x27xf32>, memref<1x27x32xf32>)
// CHECK: memref.dealloc %[[TW]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[X]]
func.func @tiles(%f: memref<8x27xf32>, %o: memref<2x8x64xf32>, %value: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<2x3x4x16xf32>
  linalg.fill ins(%value : f32) outs(%x : memref<2x3x4x16xf32>)
  %padded = memref.alloc() : memref<2x3x6x18xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<2x3x6x18xf32>) attrs = {jeet.pad_low = array<i64: 0, 0, 1, 1>} {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %h = arith.subi %i2, %c1 : index
    %v = arith.subi %i3, %c1 : index
    %hc = arith.maxsi %h, %c0 : index
    %vc = arith.maxsi %v, %c0 : index
    %in = arith.cmpi eq, %h, %hc : index
    %e = memref.load %x[%i0, %i1, %hc, %vc] : memref<2x3x4x16xf32>
    %s = arith.select %in, %e, %zero : f32
    linalg.yield %s : f32
  }
  memref.dealloc %x : memref<2x3x4x16xf32>
  %windows = memref.alloc() : memref<2x3x3x3x4x16xf32>
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%padded : memref<2x3x6x18xf32>) outs(%windows : memref<2x3x3x3x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %padded : memref<2x3x6x18xf32>
  %matrices = memref.collapse_shape %windows [[0], [1, 2, 3], [4, 5]] : memref<2x3x3x3x4x16xf32> into memref<2x27x64xf32>
  scf.forall (%n, %p) = (0, 0) to (2, 64) step (1, 32) {
    %tile = memref.subview %matrices[%n, 0, %p] [1, 27, 32] [1, 1, 1] : memref<2x27x64xf32> to memref<1x27x32xf32, strided<[1728, 64, 1], offset: ?>>
    %out = memref.subview %o[%n, 0, %p] [1, 8, 32] [1, 1, 1] : memref<2x8x64xf32> to memref<1x8x32xf32, strided<[512, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%f, %tile : memref<8x27xf32>, memref<1x27x32xf32, strided<[1728, 64, 1], offset: ?>>) outs(%out : memref<1x8x32xf32, strided<[512, 64, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %0 = arith.mulf %a, %b : f32
      %1 = arith.addf %acc, %0 : f32
      linalg.yield %1 : f32
    }
  }
  memref.dealloc %windows : memref<2x3x3x3x4x16xf32>
  return
}

// -----

#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#lhs = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// Left to the loop before the tiles: tiles of 24 pixels (not whole rows of
// 16), and windows that something besides the tiles reads.
// CHECK-LABEL: func.func @not_in_tiles
// CHECK: memref.alloc() : memref<2x1x2x2x4x16xf32>
// CHECK: scf.parallel
// CHECK: scf.forall
// CHECK: memref.alloc() : memref<2x1x2x2x4x16xf32>
// CHECK: scf.parallel
// CHECK: scf.forall
// CHECK: memref.copy
func.func @not_in_tiles(%x: memref<2x1x5x17xf32>, %f: memref<4x4xf32>, %o: memref<2x4x64xf32>, %w: memref<2x1x2x2x4x16xf32>) {
  %windows = memref.alloc() : memref<2x1x2x2x4x16xf32>
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x1x5x17xf32>) outs(%windows : memref<2x1x2x2x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %matrices = memref.collapse_shape %windows [[0], [1, 2, 3], [4, 5]] : memref<2x1x2x2x4x16xf32> into memref<2x4x64xf32>
  scf.forall (%n, %p) = (0, 0) to (2, 48) step (1, 24) {
    %tile = memref.subview %matrices[%n, 0, %p] [1, 4, 24] [1, 1, 1] : memref<2x4x64xf32> to memref<1x4x24xf32, strided<[256, 64, 1], offset: ?>>
    %out = memref.subview %o[%n, 0, %p] [1, 4, 24] [1, 1, 1] : memref<2x4x64xf32> to memref<1x4x24xf32, strided<[256, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%f, %tile : memref<4x4xf32>, memref<1x4x24xf32, strided<[256, 64, 1], offset: ?>>) outs(%out : memref<1x4x24xf32, strided<[256, 64, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %0 = arith.mulf %a, %b : f32
      %1 = arith.addf %acc, %0 : f32
      linalg.yield %1 : f32
    }
  }
  memref.dealloc %windows : memref<2x1x2x2x4x16xf32>
  %again = memref.alloc() : memref<2x1x2x2x4x16xf32>
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x1x5x17xf32>) outs(%again : memref<2x1x2x2x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %matrices2 = memref.collapse_shape %again [[0], [1, 2, 3], [4, 5]] : memref<2x1x2x2x4x16xf32> into memref<2x4x64xf32>
  scf.forall (%n, %p) = (0, 0) to (2, 64) step (1, 32) {
    %tile = memref.subview %matrices2[%n, 0, %p] [1, 4, 32] [1, 1, 1] : memref<2x4x64xf32> to memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>
    %out = memref.subview %o[%n, 0, %p] [1, 4, 32] [1, 1, 1] : memref<2x4x64xf32> to memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%f, %tile : memref<4x4xf32>, memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>) outs(%out : memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %0 = arith.mulf %a, %b : f32
      %1 = arith.addf %acc, %0 : f32
      linalg.yield %1 : f32
    }
  }
  memref.copy %again, %w : memref<2x1x2x2x4x16xf32> to memref<2x1x2x2x4x16xf32>
  memref.dealloc %again : memref<2x1x2x2x4x16xf32>
  return
}

// -----

#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#lhs = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// A tile's windows over 64 KiB (64 channels x 9 offsets x 32 pixels x 4
// bytes: 72 KiB) would not go on the stack: they are copied before the
// tiles.
// CHECK-LABEL: func.func @tile_windows_too_large
// CHECK: memref.alloc() : memref<2x64x3x3x2x16xf32>
// CHECK: scf.parallel
// CHECK: scf.forall
// CHECK-NOT: memref.alloc
func.func @tile_windows_too_large(%x: memref<2x64x4x18xf32>, %f: memref<4x576xf32>, %o: memref<2x4x32xf32>) {
  %windows = memref.alloc() : memref<2x64x3x3x2x16xf32>
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x64x4x18xf32>) outs(%windows : memref<2x64x3x3x2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %matrices = memref.collapse_shape %windows [[0], [1, 2, 3], [4, 5]] : memref<2x64x3x3x2x16xf32> into memref<2x576x32xf32>
  scf.forall (%n, %p) = (0, 0) to (2, 32) step (1, 32) {
    %tile = memref.subview %matrices[%n, 0, %p] [1, 576, 32] [1, 1, 1] : memref<2x576x32xf32> to memref<1x576x32xf32, strided<[18432, 32, 1], offset: ?>>
    %out = memref.subview %o[%n, 0, %p] [1, 4, 32] [1, 1, 1] : memref<2x4x32xf32> to memref<1x4x32xf32, strided<[128, 32, 1], offset: ?>>
    linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%f, %tile : memref<4x576xf32>, memref<1x576x32xf32, strided<[18432, 32, 1], offset: ?>>) outs(%out : memref<1x4x32xf32, strided<[128, 32, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %0 = arith.mulf %a, %b : f32
      %1 = arith.addf %acc, %0 : f32
      linalg.yield %1 : f32
    }
  }
  memref.dealloc %windows : memref<2x64x3x3x2x16xf32>
  return
}

// -----

#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#lhs = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// The im2col's input written between the im2col and the tiles (another
// result computed in place in the convolution's input): the tiles would
// copy what was written; the windows are copied before it, by the loop
// before the tiles (fuzz_numerics seed 1222351).
// CHECK-LABEL: func.func @input_written_before_the_tiles
// CHECK: memref.alloc() : memref<2x1x2x2x4x16xf32>
// CHECK: scf.parallel
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<2x1x5x17xf32>)
// CHECK: scf.forall
// CHECK-NOT: vector.load
func.func @input_written_before_the_tiles(%x: memref<2x1x5x17xf32>, %f: memref<4x4xf32>, %o: memref<2x4x64xf32>) {
  %windows = memref.alloc() : memref<2x1x2x2x4x16xf32>
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x1x5x17xf32>) outs(%windows : memref<2x1x2x2x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%x : memref<2x1x5x17xf32>) {
  ^bb0(%out: f32):
    %n = arith.negf %out : f32
    linalg.yield %n : f32
  }
  %matrices = memref.collapse_shape %windows [[0], [1, 2, 3], [4, 5]] : memref<2x1x2x2x4x16xf32> into memref<2x4x64xf32>
  scf.forall (%n, %p) = (0, 0) to (2, 64) step (1, 32) {
    %tile = memref.subview %matrices[%n, 0, %p] [1, 4, 32] [1, 1, 1] : memref<2x4x64xf32> to memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>
    %out = memref.subview %o[%n, 0, %p] [1, 4, 32] [1, 1, 1] : memref<2x4x64xf32> to memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%f, %tile : memref<4x4xf32>, memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>) outs(%out : memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %0 = arith.mulf %a, %b : f32
      %1 = arith.addf %acc, %0 : f32
      linalg.yield %1 : f32
    }
  }
  memref.dealloc %windows : memref<2x1x2x2x4x16xf32>
  return
}

// -----

#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#lhs = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// An input without a pad, freed after the im2col (its last reader): the
// tiles copy from it, so it is freed after them (it was read after its
// free).
// CHECK-LABEL: func.func @unpadded_input_freed_after_the_tiles
// CHECK: %[[X:.*]] = memref.alloc() : memref<2x1x5x17xf32>
// CHECK-NOT: memref.dealloc %[[X]]
// CHECK: scf.forall
// CHECK: vector.load %[[X]]
// CHECK: memref.dealloc %{{.*}} : memref<1x1x2x2x2x16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[X]]
func.func @unpadded_input_freed_after_the_tiles(%v: f32, %f: memref<4x4xf32>, %o: memref<2x4x64xf32>) {
  %x = memref.alloc() : memref<2x1x5x17xf32>
  linalg.fill ins(%v : f32) outs(%x : memref<2x1x5x17xf32>)
  %windows = memref.alloc() : memref<2x1x2x2x4x16xf32>
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x1x5x17xf32>) outs(%windows : memref<2x1x2x2x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %x : memref<2x1x5x17xf32>
  %matrices = memref.collapse_shape %windows [[0], [1, 2, 3], [4, 5]] : memref<2x1x2x2x4x16xf32> into memref<2x4x64xf32>
  scf.forall (%n, %p) = (0, 0) to (2, 64) step (1, 32) {
    %tile = memref.subview %matrices[%n, 0, %p] [1, 4, 32] [1, 1, 1] : memref<2x4x64xf32> to memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>
    %out = memref.subview %o[%n, 0, %p] [1, 4, 32] [1, 1, 1] : memref<2x4x64xf32> to memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%f, %tile : memref<4x4xf32>, memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>) outs(%out : memref<1x4x32xf32, strided<[256, 64, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %0 = arith.mulf %a, %b : f32
      %1 = arith.addf %acc, %0 : f32
      linalg.yield %1 : f32
    }
  }
  memref.dealloc %windows : memref<2x1x2x2x4x16xf32>
  return
}
