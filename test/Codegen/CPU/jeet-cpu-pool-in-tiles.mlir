// RUN: jeet-opt %s --split-input-file --jeet-cpu-pool-in-tiles --canonicalize | FileCheck %s

#lhs = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#chan = affine_map<(d0, d1, d2) -> (d1)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#pool = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>

// A convolution's tiles (2 images, 4 channels, 8x8 outputs, 16 pixels = 2
// rows a tile) and a 2x2 max pooling of their result: each tile writes its
// epilogue's result into a buffer of its own and pools it into its row of
// the pooled output (tile p = 16 k: pooled row k). The result's buffer goes.
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[W:[^:]*]]: memref<4x9xf32>, %[[X:[^:]*]]: memref<2x9x64xf32>, %[[B:[^:]*]]: memref<4xf32>, %[[O:[^:]*]]: memref<2x4x4x4xf32>)
// CHECK-NOT: memref<2x4x64xf32>
// CHECK: scf.forall (%[[N:.*]], %[[P:.*]]) = (0, 0) to (2, 64) step (1, 16) {
// CHECK: arith.mulf
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x4x16xf32>
// CHECK: linalg.generic {{.*}} outs(%[[T]] : memref<1x4x16xf32>)
// CHECK: arith.maximumf %{{.*}}, %cst : f32
// CHECK: %[[TW:.*]] = memref.expand_shape %[[T]] {{\[\[}}0], [1], [2, 3, 4, 5]] output_shape [1, 4, 1, 2, 4, 2] : memref<1x4x16xf32> into memref<1x4x1x2x4x2xf32>
// CHECK: %[[ROW:.*]] = arith.divui %[[P]], %c16 : index
// CHECK: %[[ROWS:.*]] = memref.subview %[[O]][%[[N]], 0, %[[ROW]], 0] [1, 4, 1, 4] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%cst_0 : f32) outs(%[[ROWS]]
// CHECK: linalg.generic {{.*}} ins(%[[TW]] : memref<1x4x1x2x4x2xf32>) outs(%[[ROWS]]
// CHECK: arith.maximumf
// CHECK: memref.dealloc %[[T]]
// CHECK: }
// CHECK-NOT: linalg
// CHECK: return
func.func @max_pool(%w: memref<4x9xf32>, %x: memref<2x9x64xf32>, %b: memref<4xf32>, %o: memref<2x4x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %conv = memref.alloc() : memref<2x4x64xf32>
  scf.forall (%n, %p) = (0, 0) to (2, 64) step (1, 16) {
    %tile = memref.subview %x[%n, 0, %p] [1, 9, 16] [1, 1, 1] : memref<2x9x64xf32> to memref<1x9x16xf32, strided<[576, 64, 1], offset: ?>>
    %a = memref.alloc() {alignment = 64 : i64} : memref<1x4x16xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<1x4x16xf32>)
    linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %tile : memref<4x9xf32>, memref<1x9x16xf32, strided<[576, 64, 1], offset: ?>>) outs(%a : memref<1x4x16xf32>) {
    ^bb0(%l: f32, %r: f32, %s: f32):
      %0 = arith.mulf %l, %r : f32
      %1 = arith.addf %s, %0 : f32
      linalg.yield %1 : f32
    }
    %out = memref.subview %conv[%n, 0, %p] [1, 4, 16] [1, 1, 1] : memref<2x4x64xf32> to memref<1x4x16xf32, strided<[256, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id3, #chan, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a, %b : memref<1x4x16xf32>, memref<4xf32>) outs(%out : memref<1x4x16xf32, strided<[256, 64, 1], offset: ?>>) {
    ^bb0(%in: f32, %bias: f32, %unused: f32):
      %0 = arith.addf %in, %bias : f32
      %1 = arith.maximumf %0, %zero : f32
      linalg.yield %1 : f32
    }
    memref.dealloc %a : memref<1x4x16xf32>
  }
  %windows = memref.expand_shape %conv [[0], [1], [2, 3, 4, 5]] output_shape [2, 4, 4, 2, 4, 2] : memref<2x4x64xf32> into memref<2x4x4x2x4x2xf32>
  linalg.fill ins(%ninf : f32) outs(%o : memref<2x4x4x4xf32>)
  linalg.generic {indexing_maps = [#id6, #pool], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"]} ins(%windows : memref<2x4x4x2x4x2xf32>) outs(%o : memref<2x4x4x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %conv : memref<2x4x64xf32>
  return
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#pool = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>

// An average pooling: its output allocated after the tiles (now before
// them), its fill and its in-place division (after the free of the tiles'
// result) come along into the tiles,
// each on the tile's rows (tiles of 32 pixels = 4 rows of 8: 2 pooled rows;
// the loop's single image folded away).
// CHECK-LABEL: func.func @avg_pool
// CHECK: %[[Y:.*]] = memref.alloc() : memref<1x2x4x4xf32>
// CHECK-NEXT: scf.forall (%[[P:.*]]) = (0) to (64) step (32) {
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x32xf32>
// CHECK: linalg.generic {{.*}} outs(%[[T]] : memref<1x2x32xf32>)
// CHECK: %[[TW:.*]] = memref.expand_shape %[[T]] {{.*}} into memref<1x2x2x2x4x2xf32>
// CHECK: %[[ROW:.*]] = arith.divui %[[P]], %c16 : index
// CHECK: %[[ROWS:.*]] = memref.subview %[[Y]][0, 0, %[[ROW]], 0] [1, 2, 2, 4] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ROWS]]
// CHECK: linalg.generic {{.*}} ins(%[[TW]] : memref<1x2x2x2x4x2xf32>) outs(%[[ROWS]]
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[ROWS]] : {{.*}}) outs(%[[ROWS]] :
// CHECK: arith.divf
// CHECK: memref.dealloc %[[T]]
// CHECK: }
// CHECK-NEXT: memref.copy %[[Y]], %{{.*}}
func.func @avg_pool(%x: memref<1x2x64xf32>, %r: memref<1x2x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %conv = memref.alloc() : memref<1x2x64xf32>
  scf.forall (%n, %p) = (0, 0) to (1, 64) step (1, 32) {
    %in = memref.subview %x[%n, 0, %p] [1, 2, 32] [1, 1, 1] : memref<1x2x64xf32> to memref<1x2x32xf32, strided<[128, 64, 1], offset: ?>>
    %out = memref.subview %conv[%n, 0, %p] [1, 2, 32] [1, 1, 1] : memref<1x2x64xf32> to memref<1x2x32xf32, strided<[128, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%in : memref<1x2x32xf32, strided<[128, 64, 1], offset: ?>>) outs(%out : memref<1x2x32xf32, strided<[128, 64, 1], offset: ?>>) {
    ^bb0(%v: f32, %unused: f32):
      %0 = arith.maximumf %v, %zero : f32
      linalg.yield %0 : f32
    }
  }
  %windows = memref.expand_shape %conv [[0], [1], [2, 3, 4, 5]] output_shape [1, 2, 4, 2, 4, 2] : memref<1x2x64xf32> into memref<1x2x4x2x4x2xf32>
  %y = memref.alloc() : memref<1x2x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x2x4x4xf32>)
  linalg.generic {indexing_maps = [#id6, #pool], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"]} ins(%windows : memref<1x2x4x2x4x2xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %conv : memref<1x2x64xf32>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y : memref<1x2x4x4xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %0 = arith.divf %in, %four : f32
    linalg.yield %0 : f32
  }
  memref.copy %y, %r : memref<1x2x4x4xf32> to memref<1x2x4x4xf32>
  memref.dealloc %y : memref<1x2x4x4xf32>
  return
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#pool = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>

// Left alone: tiles of 8 pixels, one row of 8 where a row of windows is 2
// rows; a result that something besides the pooling reads; an op between
// the tiles and the pooling that writes memory.
// CHECK-LABEL: func.func @not_in_tiles
// CHECK-COUNT-3: memref.alloc() : memref<1x2x64xf32>
// CHECK-NOT: memref.alloc() {alignment = 64 : i64}
// CHECK: return
func.func @not_in_tiles(%x: memref<1x2x64xf32>, %y: memref<1x2x4x4xf32>, %z: memref<1x2x64xf32>) {
  %conv = memref.alloc() : memref<1x2x64xf32>
  scf.forall (%n, %p) = (0, 0) to (1, 64) step (1, 8) {
    %in = memref.subview %x[%n, 0, %p] [1, 2, 8] [1, 1, 1] : memref<1x2x64xf32> to memref<1x2x8xf32, strided<[128, 64, 1], offset: ?>>
    %out = memref.subview %conv[%n, 0, %p] [1, 2, 8] [1, 1, 1] : memref<1x2x64xf32> to memref<1x2x8xf32, strided<[128, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%in : memref<1x2x8xf32, strided<[128, 64, 1], offset: ?>>) outs(%out : memref<1x2x8xf32, strided<[128, 64, 1], offset: ?>>) {
    ^bb0(%v: f32, %unused: f32):
      linalg.yield %v : f32
    }
  }
  %windows = memref.expand_shape %conv [[0], [1], [2, 3, 4, 5]] output_shape [1, 2, 4, 2, 4, 2] : memref<1x2x64xf32> into memref<1x2x4x2x4x2xf32>
  linalg.generic {indexing_maps = [#id6, #pool], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"]} ins(%windows : memref<1x2x4x2x4x2xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %conv : memref<1x2x64xf32>

  %read = memref.alloc() : memref<1x2x64xf32>
  scf.forall (%n, %p) = (0, 0) to (1, 64) step (1, 16) {
    %in = memref.subview %x[%n, 0, %p] [1, 2, 16] [1, 1, 1] : memref<1x2x64xf32> to memref<1x2x16xf32, strided<[128, 64, 1], offset: ?>>
    %out = memref.subview %read[%n, 0, %p] [1, 2, 16] [1, 1, 1] : memref<1x2x64xf32> to memref<1x2x16xf32, strided<[128, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%in : memref<1x2x16xf32, strided<[128, 64, 1], offset: ?>>) outs(%out : memref<1x2x16xf32, strided<[128, 64, 1], offset: ?>>) {
    ^bb0(%v: f32, %unused: f32):
      linalg.yield %v : f32
    }
  }
  %windows2 = memref.expand_shape %read [[0], [1], [2, 3, 4, 5]] output_shape [1, 2, 4, 2, 4, 2] : memref<1x2x64xf32> into memref<1x2x4x2x4x2xf32>
  linalg.generic {indexing_maps = [#id6, #pool], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"]} ins(%windows2 : memref<1x2x4x2x4x2xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  memref.copy %read, %z : memref<1x2x64xf32> to memref<1x2x64xf32>
  memref.dealloc %read : memref<1x2x64xf32>

  %between = memref.alloc() : memref<1x2x64xf32>
  scf.forall (%n, %p) = (0, 0) to (1, 64) step (1, 16) {
    %in = memref.subview %x[%n, 0, %p] [1, 2, 16] [1, 1, 1] : memref<1x2x64xf32> to memref<1x2x16xf32, strided<[128, 64, 1], offset: ?>>
    %out = memref.subview %between[%n, 0, %p] [1, 2, 16] [1, 1, 1] : memref<1x2x64xf32> to memref<1x2x16xf32, strided<[128, 64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%in : memref<1x2x16xf32, strided<[128, 64, 1], offset: ?>>) outs(%out : memref<1x2x16xf32, strided<[128, 64, 1], offset: ?>>) {
    ^bb0(%v: f32, %unused: f32):
      linalg.yield %v : f32
    }
  }
  memref.copy %x, %z : memref<1x2x64xf32> to memref<1x2x64xf32>
  %windows3 = memref.expand_shape %between [[0], [1], [2, 3, 4, 5]] output_shape [1, 2, 4, 2, 4, 2] : memref<1x2x64xf32> into memref<1x2x4x2x4x2xf32>
  linalg.generic {indexing_maps = [#id6, #pool], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"]} ins(%windows3 : memref<1x2x4x2x4x2xf32>) outs(%y : memref<1x2x4x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %between : memref<1x2x64xf32>
  return
}
