// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=16 k-block=48 row-block=30 l2-cache-bytes=65536},canonicalize,cse)' | FileCheck %s --check-prefix=AVX2
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul,canonicalize,cse)' | FileCheck %s --check-prefix=HOST
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=16 l1-cache-bytes=32768 l2-cache-bytes=524288},canonicalize,cse)' | FileCheck %s --check-prefix=ZEN3
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=64 l1-cache-bytes=49152 l2-cache-bytes=2097152},canonicalize,cse)' | FileCheck %s --check-prefix=AVX512

// The sizes the pass used are recorded on the function. A register tile of
// 16 columns (AVX2's 6 x 2 registers): B is packed in panels of 16 columns
// (130 = 8 * 16 + 2), each 6-row tile keeps 6 vectors of 16, and K = 100
// runs in blocks of at most 48, of equal depth: 34 + 34 + 32 (not
// 48 + 48 + 4). 100 rows in blocks of at most 30 rows (a multiple of 6
// rows): 96 rows in 8 blocks of 12 (so that the threads balance), the 4
// remainder rows one more tile of the last block. Each tile
// prefetches its rows of C, accumulates the k-block from zeros, then adds
// C's rows to it. B's panels (50 KiB) outgrow half of this run's 64 KiB L2:
// each tile also fetches its share of the next panel's rows into L2, a line
// per step of k (a block's 2 tiles share the k-block's 34 rows: 17 each;
// the last panel fetches the first panel's rows of the next k-block).
// AVX2-LABEL: func.func @blocks
// AVX2-SAME: (%[[A:[^:]*]]: memref<100x100xf32>, %{{[^:]*}}: memref<100x130xf32>, %[[C:[^:]*]]: memref<100x130xf32>)
// AVX2-SAME: attributes {jeet.matmul_blocking = {col_block = 0 : i64, k_block = 48 : i64, panel_k_block = 48 : i64, register_cols = 16 : i64, register_rows = 6 : i64, row_block = 30 : i64}}
// AVX2-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// AVX2: %[[PANELS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x100x16xf32>
// B's panels are packed in parallel chunks of 32 of its rows (4 chunks),
// each row read whole, its 8 panels' columns in turn.
// AVX2: scf.parallel (%[[CHUNK:.*]]) = (%c0) to (%c4) step (%c1)
// AVX2-NEXT: %[[FROM:.*]] = arith.muli %[[CHUNK]], %c32
// AVX2-NEXT: %[[END:.*]] = arith.addi %[[FROM]], %c32
// AVX2-NEXT: %[[TO:.*]] = arith.minsi %[[END]], %c100
// AVX2-NEXT: scf.for %[[ROW:.*]] = %[[FROM]] to %[[TO]] step %c1
// AVX2-NEXT: scf.for %[[P:.*]] = %c0 to %c8 step %c1
// AVX2: %[[VALUES:.*]] = vector.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<100x130xf32>, vector<16xf32>
// AVX2-NEXT: vector.store %[[VALUES]], %[[PANELS]][%[[P]], %[[ROW]], %c0]
// A is read in place by the kernels (nothing is allocated for it).
// AVX2-NOT: memref.alloc
// AVX2: scf.parallel (%[[BLOCK:.*]]) = (%c0) to (%c8) step (%c1)
// AVX2: %[[I0:.*]] = arith.muli %[[BLOCK]], %c12
// AVX2: %[[I1:.*]] = arith.addi %[[I0]], %c12
// AVX2: %[[LAST_BLOCK:.*]] = arith.cmpi eq, %[[BLOCK]], %c7
// AVX2: scf.for %[[K0:.*]] = %c0 to %c100 step %c34
// AVX2: %[[K1:.*]] = arith.minsi {{.*}}, %c100
// AVX2: scf.for %{{.*}} = %c0 to %c128 step %c16
// AVX2-NEXT: scf.for %{{.*}} = %[[I0]] to %[[I1]] step %c6
// AVX2: %[[TILE:.*]] = arith.divui %{{.*}}, %c6
// AVX2-NEXT: %[[SHARE:.*]] = arith.muli %[[TILE]], %c17
// AVX2-NEXT: %[[FIRST:.*]] = arith.addi %[[K0]], %[[SHARE]]
// AVX2-NEXT: %[[END:.*]] = arith.addi %[[FIRST]], %c17
// AVX2-NEXT: %[[LAST:.*]] = arith.minsi %[[END]], %[[K1]]
// AVX2-NEXT: %[[PANEL:.*]] = arith.divui %{{.*}}, %c16
// AVX2-NEXT: %[[NEXT:.*]] = arith.addi %[[PANEL]], %c1
// AVX2-NEXT: %[[WRAPS:.*]] = arith.cmpi uge, %[[NEXT]], %c8
// AVX2-NEXT: %[[FIRSTPANEL:.*]] = arith.addi %[[PANEL]], %c-7
// AVX2-NEXT: %[[FETCHED:.*]] = arith.select %[[WRAPS]], %[[FIRSTPANEL]], %[[NEXT]]
// AVX2-NEXT: %[[SHIFT:.*]] = arith.select %[[WRAPS]], %c34, %c0
// AVX2-NEXT: %[[FROM:.*]] = arith.addi %[[FIRST]], %[[SHIFT]]
// AVX2-NEXT: %[[SHIFTED:.*]] = arith.addi %[[LAST]], %[[SHIFT]]
// AVX2-NEXT: %[[TO:.*]] = arith.minsi %[[SHIFTED]], %c100
// AVX2-NEXT: %[[LINES:.*]] = arith.subi %[[TO]], %[[FROM]]
// AVX2-NEXT: %[[BELOW:.*]] = arith.subi %[[LINES]], %c1
// AVX2-NEXT: %[[LASTLINE:.*]] = arith.maxsi %[[BELOW]], %c0
// AVX2-NEXT: %[[ROWS:.*]] = arith.muli %[[FETCHED]], %c100
// AVX2-NEXT: %[[ROW:.*]] = arith.addi %[[ROWS]], %[[FROM]]
// AVX2-NEXT: %[[ELEMENT:.*]] = arith.muli %[[ROW]], %c16
// AVX2-NEXT: %[[START:.*]] = arith.minsi %[[ELEMENT]], %c12784
// AVX2-NEXT: %[[FLAT:.*]] = memref.collapse_shape %[[PANELS]] {{\[\[}}0, 1, 2]] : memref<8x100x16xf32> into memref<12800xf32>
// AVX2-COUNT-6: memref.prefetch %[[C]][{{.*}}], write, locality<3>, data
// AVX2-NOT: vector.load %[[C]]
// AVX2: scf.for %[[KK:.*]] = %[[K0]] to %[[K1]] step %c1 iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AVX2: vector.load {{.*}} : memref<8x100x16xf32>, vector<16xf32>
// AVX2-NEXT: %[[STEP:.*]] = arith.subi %[[KK]], %[[K0]]
// AVX2-NEXT: %[[LINE:.*]] = arith.minsi %[[STEP]], %[[LASTLINE]]
// AVX2-NEXT: %[[OFFSET:.*]] = arith.muli %[[LINE]], %c16
// AVX2-NEXT: %[[AT:.*]] = arith.addi %[[START]], %[[OFFSET]]
// AVX2-NEXT: memref.prefetch %[[FLAT]][%[[AT]]], read, locality<1>, data
// AVX2: memref.load %[[A]][%{{.*}}, %[[KK]]] : memref<100x100xf32>
// AVX2: vector.fma {{.*}} : vector<16xf32>
// AVX2: scf.yield
// AVX2-NEXT: }
// AVX2-NEXT: %[[OLD:.*]] = vector.load %[[C]]
// AVX2-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<16xf32>
// AVX2-NEXT: vector.store %[[NEW]], %[[C]]
// After the block's tiles of each panel, in the last block, the remainder
// rows' tile of it.
// AVX2: scf.if %[[LAST_BLOCK]] {
// AVX2: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// The 2 remainder columns, read from B itself, then the remainder rows'.
// AVX2: scf.for {{.*}} iter_args({{.*}}) -> (vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>)
// AVX2: scf.if %[[LAST_BLOCK]] {
// AVX2: scf.for {{.*}} iter_args({{.*}}) -> (vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>)
// AVX2: scf.reduce
// A function without a matmul records nothing.
// AVX2-LABEL: func.func @no_matmul
// AVX2-NOT: jeet.matmul_blocking
// AVX2: return

// With the options at 0 the host's sizes: 16 or 64 columns, a k-block and a
// row block from its caches.
// HOST-LABEL: func.func @blocks
// HOST-SAME: attributes {jeet.matmul_blocking = {col_block = {{0|[1-9][0-9]*}} : i64, k_block = {{[1-9][0-9]*}} : i64, panel_k_block = {{[1-9][0-9]*}} : i64, register_cols = {{16|64}} : i64, register_rows = 6 : i64, row_block = {{[1-9][0-9]*}} : i64}}
// HOST-LABEL: func.func @no_matmul
// HOST-NOT: jeet.matmul_blocking
// HOST-LABEL: func.func @uneven

// The sizes from given caches. A Zen 3 core (32 KiB L1, 512 KiB L2) and
// 16 columns: a k-block whose 16-column micro-panel of B takes half of L1
// (256 steps, 16 KiB), a row block whose block of A (rows x k-block)
// takes a quarter of L2 (128 rows of 256 steps, used as 126: a multiple of
// 6). K = 100 is one block.
// ZEN3-LABEL: func.func @blocks
// ZEN3-SAME: attributes {jeet.matmul_blocking = {col_block = 0 : i64, k_block = 256 : i64, panel_k_block = 256 : i64, register_cols = 16 : i64, register_rows = 6 : i64, row_block = 128 : i64}}
// B's panels (50 KiB) fit half of L2: they stay there from one row block to
// the next, and no tile fetches the next panel.
// ZEN3-NOT: locality<1>
// ZEN3-LABEL: func.func @no_matmul
// A core with 48 KiB of L1 and 2 MiB of L2, and 64 columns: 96 steps of a
// panel fit half of L1, too few for the order where B's micro-panel stays
// in L1 to be the only one: the sizes recorded are those of the order where
// A's micro-panel stays in L1 (384 steps, 640 columns of B per block, 341
// rows of A's block; jeet-cpu-matmul-a-in-l1.mlir), which a C too wide for
// L2 takes. This matmul's rows of C fit L2: the other order, whose k-block
// is 128 steps (B's 32 KiB and A's 3 KiB in three quarters of L1), so the
// depth of 100 is one block.
// AVX512-LABEL: func.func @blocks
// AVX512-SAME: attributes {jeet.matmul_blocking = {col_block = 640 : i64, k_block = 384 : i64, panel_k_block = 128 : i64, register_cols = 64 : i64, register_rows = 6 : i64, row_block = 341 : i64}}
// AVX512: scf.for %{{.*}} = %c0 to %c128 step %c64
// AVX512-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c6
// AVX512: scf.for %{{.*}} = %c0 to %c100 step %c1 iter_args
func.func @blocks(%a: memref<100x100xf32>, %b: memref<100x130xf32>, %c: memref<100x130xf32>) {
  linalg.matmul ins(%a, %b : memref<100x100xf32>, memref<100x130xf32>) outs(%c : memref<100x130xf32>)
  return
}

func.func @no_matmul(%c: memref<4xf32>) {
  return
}

// 54 rows are 9 tiles: in blocks of at most 2 tiles (9 / 8 blocks, rounded
// up), 5 blocks as equal as whole tiles allow: the first 4 of 2 tiles, the
// last of 1 (block i starts at tile i + min(i, 4)).
// AVX2-LABEL: func.func @uneven
// AVX2: scf.parallel (%[[BLOCK:.*]]) = (%c0) to (%c5) step (%c1)
// AVX2-NEXT: %[[LONGER:.*]] = arith.minui %[[BLOCK]], %c4
// AVX2-NEXT: %[[TILE:.*]] = arith.addi %[[BLOCK]], %[[LONGER]]
// AVX2-NEXT: %[[IS_LONGER:.*]] = arith.cmpi ult, %[[BLOCK]], %c4
// AVX2-NEXT: %[[TILES:.*]] = arith.select %[[IS_LONGER]], %c2, %c1
// AVX2-NEXT: %[[I0:.*]] = arith.muli %[[TILE]], %c6
// AVX2-NEXT: %[[ROWS:.*]] = arith.muli %[[TILES]], %c6
// AVX2-NEXT: %[[I1:.*]] = arith.addi %[[I0]], %[[ROWS]]
// AVX2: scf.for %{{.*}} = %[[I0]] to %[[I1]] step %c6
func.func @uneven(%a: memref<54x100xf32>, %b: memref<100x130xf32>, %c: memref<54x130xf32>) {
  linalg.matmul ins(%a, %b : memref<54x100xf32>, memref<100x130xf32>) outs(%c : memref<54x130xf32>)
  return
}

// 600 rows are 100 tiles; a row block's rows of C must fit half of this
// run's 64 KiB L2 (16 rows of 512 floats: 2 tiles), which makes 50 blocks,
// rounded up to a multiple of 8 so that 2, 4 or 8 threads get equal shares:
// 56 blocks, 44 of 2 tiles and 12 of 1, in 8 runs of 7 blocks; run g holds
// floor((g + 1) * 44 / 8) - floor(g * 44 / 8) of the longer blocks (5 or
// 6), first. (17 blocks of at most 21 tiles left one of two threads idle 5%
// of the 2048^3 matmul; 72 blocks with every longer one first, statically
// scheduled, ~10%.)
// AVX2-LABEL: func.func @balanced
// AVX2: scf.parallel (%[[BLOCK:.*]]) = (%c0) to (%c56) step (%c1)
// AVX2-NEXT: %[[GROUP:.*]] = arith.divui %[[BLOCK]], %c7
// AVX2-NEXT: %[[R:.*]] = arith.remui %[[BLOCK]], %c7
// AVX2-NEXT: %[[B0:.*]] = arith.muli %[[GROUP]], %c44
// AVX2-NEXT: %[[BEFORE:.*]] = arith.divui %[[B0]], %c8
// AVX2-NEXT: %[[NEXT:.*]] = arith.addi %[[GROUP]], %c1
// AVX2-NEXT: %[[T0:.*]] = arith.muli %[[NEXT]], %c44
// AVX2-NEXT: %[[THROUGH:.*]] = arith.divui %[[T0]], %c8
// AVX2-NEXT: %[[IN_GROUP:.*]] = arith.subi %[[THROUGH]], %[[BEFORE]]
// AVX2-NEXT: %[[LONGER:.*]] = arith.minui %[[R]], %[[IN_GROUP]]
// AVX2-NEXT: %[[EXTRA:.*]] = arith.addi %[[BEFORE]], %[[LONGER]]
// AVX2-NEXT: %[[TILE:.*]] = arith.addi %[[BLOCK]], %[[EXTRA]]
// AVX2-NEXT: %[[IS_LONGER:.*]] = arith.cmpi ult, %[[R]], %[[IN_GROUP]]
// AVX2-NEXT: %[[TILES:.*]] = arith.select %[[IS_LONGER]], %c2, %c1
// AVX2-NEXT: %[[I0:.*]] = arith.muli %[[TILE]], %c6
// AVX2-NEXT: %[[ROWS:.*]] = arith.muli %[[TILES]], %c6
// AVX2-NEXT: %[[I1:.*]] = arith.addi %[[I0]], %[[ROWS]]
// AVX2: scf.for %{{.*}} = %[[I0]] to %[[I1]] step %c6
func.func @balanced(%a: memref<600x40xf32>, %b: memref<40x512xf32>, %c: memref<600x512xf32>) {
  linalg.matmul ins(%a, %b : memref<600x40xf32>, memref<40x512xf32>) outs(%c : memref<600x512xf32>)
  return
}
