// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=4 min-parallel-work=0},canonicalize,cse)' | FileCheck %s

// A B that is a constant global is packed by the compiler: its panels of 4
// columns (B's columns 0-3, row by row, then 4-5 and two zeros) are a
// constant global, flat, holding the (panel, k, column) layout, which the
// kernels read through a view of that shape, the 2 columns left over from
// the partial panel. Nothing is allocated or copied at run time, though
// there are fewer rows than a run-time packing would take, and B itself is
// no longer read: its global is gone.
// CHECK-NOT: @b :
// CHECK: memref.global "private" constant @b_panels4 : memref<24xf32> =
// CHECK-SAME: dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 4.000000e+00, 5.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+01, 1.100000e+01, 0.000000e+00, 0.000000e+00, 1.600000e+01, 1.700000e+01, 0.000000e+00, 0.000000e+00]> {alignment = 64 : i64}
// CHECK-NOT: @b :
// CHECK-LABEL: func.func @constant_rhs
// CHECK-NOT: memref.alloc
// CHECK: %[[FLAT:.*]] = memref.get_global @b_panels4 : memref<24xf32>
// CHECK: %[[P:.*]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 4] : memref<24xf32> into memref<2x3x4xf32>
// CHECK: vector.load %[[P]][%c0, %{{.*}}, %c0] : memref<2x3x4xf32>, vector<4xf32>
// CHECK: vector.fma
// CHECK: vector.load %[[P]][%c1, %{{.*}}, %c0] : memref<2x3x4xf32>, vector<2xf32>
// CHECK-NOT: memref.alloc
// CHECK: return
memref.global "private" constant @b : memref<3x6xf32> = dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0]]>
func.func @constant_rhs(%a: memref<2x3xf32>, %c: memref<2x6xf32>) {
  %b = memref.get_global @b : memref<3x6xf32>
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x6xf32>) outs(%c : memref<2x6xf32>)
  return
}

// -----

// A constant B held transposed, as (n, k): panel p's column c is B's row
// p * 4 + c; the partial last panel's columns past n are zeros. The
// kernels read every column from the panels, and B itself not at all: its
// global is gone.
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-NOT: @bt :
// CHECK: memref.global "private" constant @bt_panels4_transposed : memref<24xf32> =
// CHECK-SAME: dense<[0.000000e+00, 3.000000e+00, 6.000000e+00, 9.000000e+00, 1.000000e+00, 4.000000e+00, 7.000000e+00, 1.000000e+01, 2.000000e+00, 5.000000e+00, 8.000000e+00, 1.100000e+01, 1.200000e+01, 1.500000e+01, 0.000000e+00, 0.000000e+00, 1.300000e+01, 1.600000e+01, 0.000000e+00, 0.000000e+00, 1.400000e+01, 1.700000e+01, 0.000000e+00, 0.000000e+00]> {alignment = 64 : i64}
// CHECK-NOT: @bt :
// CHECK-LABEL: func.func @constant_rhs_transposed
// CHECK-NOT: memref.alloc
// CHECK: %[[FLAT:.*]] = memref.get_global @bt_panels4_transposed : memref<24xf32>
// CHECK: %[[P:.*]] = memref.expand_shape %[[FLAT]]
// CHECK: vector.load %[[P]][%c0, %{{.*}}, %c0] : memref<2x3x4xf32>, vector<4xf32>
// CHECK: vector.load %[[P]][%c1, %{{.*}}, %c0] : memref<2x3x4xf32>, vector<2xf32>
// CHECK-NOT: memref.alloc
// CHECK: return
memref.global "private" constant @bt : memref<6x3xf32> = dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0], [12.0, 13.0, 14.0], [15.0, 16.0, 17.0]]>
func.func @constant_rhs_transposed(%a: memref<2x3xf32>, %c: memref<2x6xf32>) {
  %bt = memref.get_global @bt : memref<6x3xf32>
  linalg.matmul indexing_maps = [#a, #bt, #c] ins(%a, %bt : memref<2x3xf32>, memref<6x3xf32>) outs(%c : memref<2x6xf32>)
  return
}

// -----

// Few rows and a batch of 2 by one constant B (a pointwise convolution at
// few positions): the batches and column panels are one parallel loop, and
// each panel of columns [j, j + 4) reads the compiler's panel j / 4. Two
// matmuls by the same B share one packed global.
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#w = affine_map<(b, m, n, k) -> (k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK: memref.global "private" constant @w_panels4 : memref<36xf32> = dense<1.500000e+00>
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @column_panels
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%{{.*}}, %[[J:.*]]) = (%c0, %c0) to (%c2, %c12) step (%c1, %c4)
// CHECK: %[[FLAT:.*]] = memref.get_global @w_panels4 : memref<36xf32>
// CHECK: %[[P:.*]] = memref.expand_shape %[[FLAT]]
// CHECK: %[[FIRST:.*]] = arith.divui %[[J]], %c4
// CHECK: vector.load %[[P]][%[[FIRST]], %{{.*}}, %c0] : memref<3x3x4xf32>, vector<4xf32>
// CHECK: vector.fma
// CHECK: scf.reduce
// CHECK: scf.parallel
// CHECK: memref.get_global @w_panels4
// CHECK-NOT: memref.alloc
// CHECK: return
memref.global "private" constant @w : memref<3x12xf32> = dense<1.5>
func.func @column_panels(%x: memref<2x2x3xf32>, %y: memref<2x2x12xf32>, %z: memref<2x2x12xf32>) {
  %w = memref.get_global @w : memref<3x12xf32>
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x2x3xf32>, memref<3x12xf32>) outs(%y : memref<2x2x12xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x2x3xf32>, memref<3x12xf32>) outs(%z : memref<2x2x12xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// The tiles of a matmul with an epilogue, each reading a panel of its own
// of a constant B: a tile that alone reads its panel would read B in place
// (a run-time copy would not pay); the compiler's panels cost nothing, so
// each tile's kernel reads panel j / 4 of them, and never B, which is no
// argument of the kernel and no global of the module any more.
// CHECK-NOT: @w :
// CHECK: memref.global "private" constant @w_panels4 : memref<24xf32>
// CHECK-NOT: @w :
// CHECK-LABEL: func.func @tiles
// CHECK-NOT: memref.alloc
// CHECK: %[[FLAT:.*]] = memref.get_global @w_panels4 : memref<24xf32>
// CHECK: %[[P:.*]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 4]
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK: %[[FIRST:.*]] = arith.divui %[[J]], %c4
// CHECK: call @jeet_matmul_tile(%{{[^,]*}}, %{{[^,]*}}, %[[P]], %[[FIRST]])
// CHECK-NOT: memref.dealloc
// CHECK: return
// CHECK: func.func private @jeet_matmul_tile(%{{.*}}: memref<2x3xf32>, %{{.*}}: memref<2x4xf32, strided<[8, 1], offset: ?>>, %[[PK:.*]]: memref<2x3x4xf32>, %[[F:.*]]: index)
// CHECK: vector.load %[[PK]][%[[F]], {{.*}}] : memref<2x3x4xf32>, vector<4xf32>
memref.global "private" constant @w : memref<3x8xf32> = dense<2.0>
func.func @tiles(%a: memref<2x3xf32>, %c: memref<2x8xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %w = memref.get_global @w : memref<3x8xf32>
  scf.parallel (%j) = (%c0) to (%c8) step (%c4) {
    %sw = memref.subview %w[0, %j] [3, 4] [1, 1] : memref<3x8xf32> to memref<3x4xf32, strided<[8, 1], offset: ?>>
    %sc = memref.subview %c[0, %j] [2, 4] [1, 1] : memref<2x8xf32> to memref<2x4xf32, strided<[8, 1], offset: ?>>
    linalg.matmul ins(%a, %sw : memref<2x3xf32>, memref<3x4xf32, strided<[8, 1], offset: ?>>) outs(%sc : memref<2x4xf32, strided<[8, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// Tiles of 6 columns, which panels of 4 do not divide, so that no copy of
// B's panels serves them: the compiler lays the constant out in blocks of
// 6 columns (columns 0-5 of each row, then 6-11), and tile j reads block
// j / 6, its rows 6 apart instead of 12.
// CHECK-NOT: @w6 :
// CHECK: memref.global "private" constant @w6_blocks6 : memref<36xf32> =
// CHECK-SAME: dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01, 1.700000e+01, 2.400000e+01, 2.500000e+01, 2.600000e+01, 2.700000e+01, 2.800000e+01, 2.900000e+01, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.800000e+01, 1.900000e+01, 2.000000e+01, 2.100000e+01, 2.200000e+01, 2.300000e+01, 3.000000e+01, 3.100000e+01, 3.200000e+01, 3.300000e+01, 3.400000e+01, 3.500000e+01]>
// CHECK-NOT: @w6 :
// CHECK-LABEL: func.func @tiles_of_six
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK: %[[FLAT:.*]] = memref.get_global @w6_blocks6 : memref<36xf32>
// CHECK: %[[BLOCKS:.*]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 6]
// CHECK: %[[T:.*]] = arith.divui %[[J]], %c6
// CHECK: %[[BLOCK:.*]] = memref.subview %[[BLOCKS]][%[[T]], 0, 0] [1, 3, 6] [1, 1, 1] : memref<2x3x6xf32> to memref<3x6xf32, strided<[6, 1], offset: ?>>
// CHECK: call @jeet_matmul_tile(%{{[^,]*}}, %[[BLOCK]], %{{[^,]*}})
// CHECK: func.func private @jeet_matmul_tile(%{{.*}}: memref<2x3xf32>, %[[B:.*]]: memref<3x6xf32, strided<[6, 1], offset: ?>>, %{{.*}}: memref<2x6xf32, strided<[12, 1], offset: ?>>)
// CHECK: vector.load %[[B]]
memref.global "private" constant @w6 : memref<3x12xf32> = dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0]]>
func.func @tiles_of_six(%a: memref<2x3xf32>, %c: memref<2x12xf32>) {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  %w = memref.get_global @w6 : memref<3x12xf32>
  scf.parallel (%j) = (%c0) to (%c12) step (%c6) {
    %sw = memref.subview %w[0, %j] [3, 6] [1, 1] : memref<3x12xf32> to memref<3x6xf32, strided<[12, 1], offset: ?>>
    %sc = memref.subview %c[0, %j] [2, 6] [1, 1] : memref<2x12xf32> to memref<2x6xf32, strided<[12, 1], offset: ?>>
    linalg.matmul ins(%a, %sw : memref<2x3xf32>, memref<3x6xf32, strided<[12, 1], offset: ?>>) outs(%sc : memref<2x6xf32, strided<[12, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// Tiles of 30 columns: each block's rows padded from 120 bytes to a cache
// line's 128 (two zeros), so that each row starts a line; a tile's rows
// are 32 elements apart. (Rows that padding would grow by more
// than an eighth, as @tiles_of_six's 24 bytes, stay packed.)
// CHECK: memref.global "private" constant @w30_blocks30_stride32 : memref<64xf32> =
// CHECK-SAME: dense<[0.000000e+00, {{.*}}, 2.900000e+01, 0.000000e+00, 0.000000e+00, 3.000000e+01, {{.*}}, 5.900000e+01, 0.000000e+00, 0.000000e+00]>
// CHECK-LABEL: func.func @padded_rows
// CHECK: %[[FLAT:.*]] = memref.get_global @w30_blocks30_stride32 : memref<64xf32>
// CHECK: %[[BLOCKS:.*]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 1, 32]
// CHECK: %[[BLOCK:.*]] = memref.subview %[[BLOCKS]][%{{.*}}, 0, 0] [1, 1, 30] [1, 1, 1] : memref<2x1x32xf32> to memref<1x30xf32, strided<[32, 1], offset: ?>>
// CHECK: call @jeet_matmul_tile(%{{[^,]*}}, %[[BLOCK]], %{{[^,]*}})
memref.global "private" constant @w30 : memref<1x60xf32> = dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0]]>
func.func @padded_rows(%a: memref<2x1xf32>, %c: memref<2x60xf32>) {
  %c0 = arith.constant 0 : index
  %c30 = arith.constant 30 : index
  %c60 = arith.constant 60 : index
  %w = memref.get_global @w30 : memref<1x60xf32>
  scf.parallel (%j) = (%c0) to (%c60) step (%c30) {
    %sw = memref.subview %w[0, %j] [1, 30] [1, 1] : memref<1x60xf32> to memref<1x30xf32, strided<[60, 1], offset: ?>>
    %sc = memref.subview %c[0, %j] [2, 30] [1, 1] : memref<2x60xf32> to memref<2x30xf32, strided<[60, 1], offset: ?>>
    linalg.matmul ins(%a, %sw : memref<2x1xf32>, memref<1x30xf32, strided<[60, 1], offset: ?>>) outs(%sc : memref<2x30xf32, strided<[60, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// Left alone: a global that is not constant (the program may write it), and
// a constant read through a view, are packed at run time as before.
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-NOT: _panels
// CHECK-LABEL: func.func @not_constant
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x3x4xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x3x4xf32>
// CHECK-NOT: _panels
memref.global "private" @mutable : memref<6x3xf32> = dense<1.0>
memref.global "private" constant @big : memref<12x3xf32> = dense<1.0>
func.func @not_constant(%a: memref<2x3xf32>, %c: memref<2x6xf32>) {
  %bt = memref.get_global @mutable : memref<6x3xf32>
  linalg.matmul indexing_maps = [#a, #bt, #c] ins(%a, %bt : memref<2x3xf32>, memref<6x3xf32>) outs(%c : memref<2x6xf32>)
  %big = memref.get_global @big : memref<12x3xf32>
  %half = memref.subview %big[0, 0] [6, 3] [1, 1] : memref<12x3xf32> to memref<6x3xf32, strided<[3, 1]>>
  linalg.matmul indexing_maps = [#a, #bt, #c] ins(%a, %half : memref<2x3xf32>, memref<6x3xf32, strided<[3, 1]>>) outs(%c : memref<2x6xf32>)
  return
}

// -----

// The tiles of a batch of one product by a constant B, (1, 9, 8) x (8, 1024)
// in tiles of 64 columns: B's rows, 4 KiB apart, alias in L1, so the tile is
// taken as a product of matrices (its batch of one sliced off) and reads the
// compiler's panels of B. With 256 columns (rows 1 KiB apart) and 8 rows,
// fewer than a constant B's panels pay for (jeet-cpu-matmul.mlir's
// @batch_of_one_by_constant), the batched tile reads B where it lies: no
// panels.
// CHECK: memref.global "private" constant @w_panels4 : memref<8192xf32>
// CHECK-LABEL: func.func @unit_batch_tiles(
// CHECK: memref.get_global @w_panels4
// CHECK: func.call @jeet_matmul_tile({{.*}}) : (memref<9x8xf32, strided<[8, 1]>>, memref<9x64xf32, strided<[1024, 1], offset: ?>>, memref<256x8x4xf32>, index) -> ()
// CHECK-LABEL: func.func @unit_batch_tiles_streamed(
// CHECK-NOT: panels
// CHECK: memref.get_global @v : memref<8x256xf32>
// CHECK-NOT: panels
// CHECK: return
#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
memref.global "private" constant @w : memref<8x1024xf32> = dense<2.0>
func.func @unit_batch_tiles(%x: memref<1x9x8xf32>, %y: memref<1x9x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<8x1024xf32>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%j) = (%c0) to (%c1024) step (%c64) {
    %b = memref.subview %w[0, %j] [8, 64] [1, 1] : memref<8x1024xf32> to memref<8x64xf32, strided<[1024, 1], offset: ?>>
    %c = memref.subview %y[0, 0, %j] [1, 9, 64] [1, 1, 1] : memref<1x9x1024xf32> to memref<1x9x64xf32, strided<[9216, 1024, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%c : memref<1x9x64xf32, strided<[9216, 1024, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %b : memref<1x9x8xf32>, memref<8x64xf32, strided<[1024, 1], offset: ?>>) outs(%c : memref<1x9x64xf32, strided<[9216, 1024, 1], offset: ?>>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.mulf %in, %in_0 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    scf.reduce
  }
  return
}
memref.global "private" constant @v : memref<8x256xf32> = dense<2.0>
func.func @unit_batch_tiles_streamed(%x: memref<1x9x8xf32>, %y: memref<1x9x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @v : memref<8x256xf32>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%j) = (%c0) to (%c256) step (%c64) {
    %b = memref.subview %w[0, %j] [8, 64] [1, 1] : memref<8x256xf32> to memref<8x64xf32, strided<[256, 1], offset: ?>>
    %c = memref.subview %y[0, 0, %j] [1, 9, 64] [1, 1, 1] : memref<1x9x256xf32> to memref<1x9x64xf32, strided<[2304, 256, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%c : memref<1x9x64xf32, strided<[2304, 256, 1], offset: ?>>)
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %b : memref<1x9x8xf32>, memref<8x64xf32, strided<[256, 1], offset: ?>>) outs(%c : memref<1x9x64xf32, strided<[2304, 256, 1], offset: ?>>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.mulf %in, %in_0 : f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    scf.reduce
  }
  return
}
