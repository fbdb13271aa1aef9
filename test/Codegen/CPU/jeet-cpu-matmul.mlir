// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=64 l1-cache-bytes=32768 l2-cache-bytes=524288},canonicalize,cse)' | FileCheck %s
// The cache sizes are given (a 32 KiB L1 and a 512 KiB L2, a Zen 1-3 core)
// so that the blocks checked below do not follow the host that runs the test.

// 13x70 = two full 6-row register tiles and one remainder row; 64 full
// columns (4 vectors of 16) and a remainder of 6: one vector of 8 whose
// last 2 lanes are masked off (B's and C's loads and C's stores masked,
// one FMA a step where vectors of 4 and 2 took two). The row blocks
// (one tile each) are the iterations of one parallel loop; the remainder
// row is one more tile of the last block, after the block's tiles of each
// panel (and of the remainder columns). Every tile keeps its accumulators
// in scf.for iter_args.
// CHECK-LABEL: func.func @odd_shape
// CHECK-NOT: linalg.matmul
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%c0) to (%c2) step (%c1)
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[BLOCK]], %c1
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
// CHECK: vector.load %{{.*}} : memref<7x70xf32>, vector<16xf32>
// CHECK: memref.load %{{.*}} : memref<13x7xf32>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: vector.fma {{.*}} : vector<16xf32>
// The remainder row's tile of the full columns, in the last block.
// CHECK: scf.if %[[LAST]] {
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: memref.load %{{.*}}[%c12, %{{.*}}] : memref<13x7xf32>
// CHECK: %[[MASK:.*]] = vector.constant_mask [6] : vector<8xi1>
// CHECK: vector.maskedload %{{.*}}[%{{.*}}, %c64], %[[MASK]], %{{.*}} : memref<7x70xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK: vector.maskedload %{{.*}}[%{{.*}}, %c64], %[[MASK]], %{{.*}} : memref<13x70xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: vector.maskedstore %{{.*}}[%{{.*}}, %c64], %[[MASK]], %{{.*}} : memref<13x70xf32>, vector<8xi1>, vector<8xf32>
// CHECK: scf.if %[[LAST]] {
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>) {
// CHECK: scf.reduce
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
// columns are a vector of 4 with the last lane masked off.
// CHECK-LABEL: func.func @batch
// CHECK: scf.parallel
// CHECK: memref.subview {{.*}} to memref<5x3xf32, strided<[3, 1], offset: ?>>
// CHECK: vector.maskedload {{.*}} : memref<5x3xf32, strided<[3, 1], offset: ?>>, vector<4xi1>, vector<4xf32> into vector<4xf32>
// CHECK: vector.fma {{.*}} : vector<4xf32>
// CHECK-NOT: vector.fma {{.*}} : vector<1xf32>
func.func @batch(%a: memref<4x2x5xf32>, %b: memref<4x5x3xf32>, %c: memref<4x2x3xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<4x2x5xf32>, memref<4x5x3xf32>) outs(%c : memref<4x2x3xf32>)
  return
}

// -----

// A contraction whose batch dimensions broadcast (x[2, 3, 8, 5] @ w[5, 16],
// as jeet-lower-to-linalg writes it: a generic over (b0, b1, m, n, k)) is a
// 2-D kernel per batch: A and C sliced at both batch indices, B whole. Six
// batches run in parallel.
#a = affine_map<(b0, b1, m, n, k) -> (b0, b1, m, k)>
#b = affine_map<(b0, b1, m, n, k) -> (k, n)>
#c = affine_map<(b0, b1, m, n, k) -> (b0, b1, m, n)>
// CHECK-LABEL: func.func @broadcast_batch
// CHECK-SAME: (%[[A:.*]]: memref<2x3x8x5xf32>, %[[B:.*]]: memref<5x16xf32>, %[[C:.*]]: memref<2x3x8x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%c2, %c3)
// CHECK-DAG: memref.subview %[[A]][%[[I]], %[[J]], 0, 0] [1, 1, 8, 5] [1, 1, 1, 1] : memref<2x3x8x5xf32> to memref<8x5xf32, strided<[5, 1], offset: ?>>
// CHECK-DAG: memref.subview %[[C]][%[[I]], %[[J]], 0, 0] [1, 1, 8, 16] [1, 1, 1, 1] : memref<2x3x8x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
// CHECK: vector.load %[[B]]
// CHECK: vector.fma {{.*}} : vector<16xf32>
func.func @broadcast_batch(%x: memref<2x3x8x5xf32>, %w: memref<5x16xf32>, %o: memref<2x3x8x16xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x3x8x5xf32>, memref<5x16xf32>) outs(%o : memref<2x3x8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A generic that only looks like a contraction stays: a maximum instead of
// a sum.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @not_contractions
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK-NOT: vector.fma
func.func @not_contractions(%x: memref<4x5xf32>, %w: memref<5x6xf32>, %o: memref<4x6xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x5xf32>, memref<5x6xf32>) outs(%o : memref<4x6xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.maximumf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// B transposed (read as (n, k)): always packed, though there are few rows,
// the partial last panel too (70 columns: 2 panels of 64); the packing
// reads each column of B, a row of %bt, in k order and scatters it into its
// panel. The remainder columns (6) are read from the packed copy as well.
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @rhs_transposed
// CHECK-SAME: (%[[A:.*]]: memref<13x7xf32>, %[[BT:.*]]: memref<70x7xf32>, %[[C:.*]]: memref<13x70xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x7x64xf32>
// CHECK: scf.parallel (%[[PANEL:[a-z0-9_]+]]) =
// CHECK: scf.for %[[COL:[a-z0-9_]+]] =
// CHECK: %[[OFF:.*]] = arith.subi %[[COL]]
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: %[[V:.*]] = memref.load %[[BT]][%[[COL]], %[[K]]] : memref<70x7xf32>
// CHECK: memref.store %[[V]], %[[P]][%[[PANEL]], %[[K]], %[[OFF]]] : memref<2x7x64xf32>
// CHECK: vector.load %[[P]][{{.*}}] : memref<2x7x64xf32>, vector<16xf32>
// CHECK: vector.fma
// CHECK: vector.maskedload %[[P]][%c1, {{.*}}], {{.*}} : memref<2x7x64xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK-NOT: vector.load %[[BT]]
// CHECK: memref.dealloc %[[P]]
func.func @rhs_transposed(%a: memref<13x7xf32>, %bt: memref<70x7xf32>, %c: memref<13x70xf32>) {
  linalg.matmul indexing_maps = [#a, #bt, #c] ins(%a, %bt : memref<13x7xf32>, memref<70x7xf32>) outs(%c : memref<13x70xf32>)
  return
}

// -----

// B transposed, a full panel of f32 and a depth past 16: blocks of 16
// columns by 16 steps of k are loaded as 16 rows of %bt (contiguous, 16
// wide), transposed in four rounds of 16 two-source shuffles (rows 8 apart
// exchange halves, then rows 4 apart quarters of each half, ...: 64 per
// block, never a vector.transpose, which became one move per element) and
// stored as 16 rows of the panel; the panel's four blocks are a loop (one
// block's shuffles in a basic block), the 8 steps of k past the two blocks
// are copied one element at a time. (130 columns, few rows: column panels
// of 64, each packing its own; the partial panel of 2 columns is one
// element at a time, tested above.)
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @rhs_transposed_blocks
// CHECK: scf.parallel (%[[J:.*]]) = (%c0) to (%c128) step (%c64)
// CHECK: %[[SB:.*]] = memref.subview %{{.*}}[%[[J]], 0] [64, 40] [1, 1]
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x40x64xf32>
// CHECK: scf.for %[[K0:.*]] = %c0 to %c32 step %c16
// CHECK-NEXT: scf.for %[[C0:.*]] = %c0 to %c64 step %c16
// CHECK-NEXT: %[[R0:.*]] = vector.load %[[SB]][%[[C0]], %[[K0]]] : {{.*}}, vector<16xf32>
// CHECK: %[[I8:.*]] = arith.addi %[[C0]], %c8
// CHECK-NEXT: %[[R8:.*]] = vector.load %[[SB]][%[[I8]], %[[K0]]] : {{.*}}, vector<16xf32>
// CHECK: %[[I15:.*]] = arith.addi %[[C0]], %c15
// CHECK-NEXT: vector.load %[[SB]][%[[I15]], %[[K0]]] : {{.*}}, vector<16xf32>
// CHECK-NOT: vector.transpose
// CHECK: %[[H0:.*]] = vector.shuffle %[[R0]], %[[R8]] [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]
// CHECK-NEXT: %[[H8:.*]] = vector.shuffle %[[R0]], %[[R8]] [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31]
// CHECK-COUNT-14: vector.shuffle
// CHECK-NEXT: vector.shuffle %[[H0]], %{{.*}} [0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27]
// CHECK-COUNT-31: vector.shuffle
// CHECK-NEXT: %[[T0:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30]
// CHECK-NEXT: vector.shuffle %{{.*}}, %{{.*}} [1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31]
// CHECK-COUNT-14: vector.shuffle
// CHECK-NOT: vector.shuffle
// CHECK: vector.store %[[T0]], %[[P]][%c0, %[[K0]], %[[C0]]] : memref<1x40x64xf32>, vector<16xf32>
// CHECK-NOT: vector.shuffle
// CHECK: scf.for %[[COL:.*]] = %c0 to %c64 step %c1
// CHECK-NEXT: scf.for %[[K:.*]] = %c32 to %c40 step %c1
// CHECK-NEXT: %[[V:.*]] = memref.load %[[SB]][%[[COL]], %[[K]]]
// CHECK-NEXT: memref.store %[[V]], %[[P]][%c0, %[[K]], %[[COL]]]
// CHECK: vector.fma
func.func @rhs_transposed_blocks(%a: memref<8x40xf32>, %bt: memref<130x40xf32>, %c: memref<8x130xf32>) {
  linalg.matmul indexing_maps = [#a, #bt, #c] ins(%a, %bt : memref<8x40xf32>, memref<130x40xf32>) outs(%c : memref<8x130xf32>)
  return
}

// -----

// A transposed (read as (k, m)) in a batch_matmul, and in a contraction
// generic: the kernels load A[i, k] from %at[k, i].
#at = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @lhs_transposed
// CHECK-SAME: (%[[AT:.*]]: memref<4x7x2xf32>, %[[B:.*]]: memref<4x7x3xf32>, %[[C:.*]]: memref<4x2x3xf32>, %[[XT:.*]]: memref<5x4xf32>
// CHECK-NOT: linalg.batch_matmul
// CHECK: memref.subview %[[AT]]
// CHECK: vector.fma
// CHECK: scf.for %[[K:[a-z0-9_]+]] =
// CHECK: memref.load %[[XT]][%[[K]], %{{.*}}] : memref<5x4xf32>
// CHECK: vector.fma
// CHECK-NOT: linalg.generic
func.func @lhs_transposed(%at: memref<4x7x2xf32>, %b: memref<4x7x3xf32>, %c: memref<4x2x3xf32>,
                          %xt: memref<5x4xf32>, %w: memref<5x6xf32>, %o: memref<4x6xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
      ins(%at, %b : memref<4x7x2xf32>, memref<4x7x3xf32>) outs(%c : memref<4x2x3xf32>)
  linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xt, %w : memref<5x4xf32>, memref<5x6xf32>) outs(%o : memref<4x6xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A transposed, with 64 rows or more and B of two panels or more: each row
// block copies its block of A into (tile, k, row) order, in a slot of its
// own (5 blocks of 2 tiles and the remainder rows), and the kernels
// broadcast A from there; read in place, each step of a tile's 6 rows
// would be a line of %at of its own. The copies are freed after the last
// kernel.
#at = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @lhs_transposed_packed
// CHECK-SAME: (%[[AT:.*]]: memref<8x64xf32>, %[[B:.*]]: memref<8x130xf32>, %[[C:.*]]: memref<64x130xf32>)
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x64xf32>
// CHECK: %[[PA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<6x2x8x6xf32>
// CHECK: scf.parallel
// CHECK: %[[AV:.*]] = memref.load %[[AT]]
// CHECK: memref.store %[[AV]], %[[PA]]
// CHECK: vector.load %[[P]][{{.*}}] : memref<2x8x64xf32>, vector<16xf32>
// CHECK: memref.load %[[PA]]
// CHECK: vector.fma
// CHECK-DAG: memref.dealloc %[[P]] : memref<2x8x64xf32>
// CHECK-DAG: memref.dealloc %[[PA]] : memref<6x2x8x6xf32>
// CHECK: return
func.func @lhs_transposed_packed(%at: memref<8x64xf32>, %b: memref<8x130xf32>, %c: memref<64x130xf32>) {
  linalg.matmul indexing_maps = [#at, #b, #c] ins(%at, %b : memref<8x64xf32>, memref<8x130xf32>) outs(%c : memref<64x130xf32>)
  return
}

// -----

// f16 and bf16 operands with an f32 accumulator (what jeet-lower-to-linalg
// emits for f16/bf16 matmuls): B rows and A elements are widened to f32 as
// they are loaded; the tile accumulates in f32.
// CHECK-LABEL: func.func @low_precision
// CHECK: %[[BROW:.*]] = vector.load %{{.*}} : memref<8x16xf16>, vector<16xf16>
// CHECK: %[[BW:.*]] = arith.extf %[[BROW]] : vector<16xf16> to vector<16xf32>
// CHECK: %[[A:.*]] = memref.load %{{.*}} : memref<6x8xf16>
// CHECK: %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[AW]] : f32 to vector<16xf32>
// CHECK: vector.fma %[[SPLAT]], %[[BW]], %{{.*}} : vector<16xf32>
// CHECK: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: arith.extf %{{.*}} : bf16 to f32
func.func @low_precision(%a: memref<6x8xf16>, %b: memref<8x16xf16>, %c: memref<6x16xf32>,
                         %x: memref<6x8xbf16>, %y: memref<8x16xbf16>) {
  linalg.matmul ins(%a, %b : memref<6x8xf16>, memref<8x16xf16>) outs(%c : memref<6x16xf32>)
  linalg.matmul ins(%x, %y : memref<6x8xbf16>, memref<8x16xbf16>) outs(%c : memref<6x16xf32>)
  return
}

// -----

// Two rows are too few to share among threads: column panels of 64 run in
// parallel, each a sequential kernel over all rows; the 300 - 4 * 64 = 44
// columns left form one smaller panel after them.
// CHECK-LABEL: func.func @few_rows
// CHECK-SAME: (%[[A:.*]]: memref<2x8xf32>, %[[B:.*]]: memref<8x300xf32>, %[[C:.*]]: memref<2x300xf32>)
// CHECK: scf.parallel (%[[J:.*]]) = (%{{.*}}) to (%c256) step (%c64)
// CHECK-DAG: memref.subview %[[B]][0, %[[J]]] [8, 64] [1, 1]
// CHECK-DAG: memref.subview %[[C]][0, %[[J]]] [2, 64] [1, 1]
// CHECK: vector.fma
// CHECK: scf.reduce
// CHECK-DAG: memref.subview %[[B]][0, 256] [8, 44] [1, 1]
// CHECK-DAG: memref.subview %[[C]][0, 256] [2, 44] [1, 1]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @few_rows(%a: memref<2x8xf32>, %b: memref<8x300xf32>, %c: memref<2x300xf32>) {
  linalg.matmul ins(%a, %b : memref<2x8xf32>, memref<8x300xf32>) outs(%c : memref<2x300xf32>)
  return
}

// -----

// Two batches of two rows: too few batches to run in parallel alone, too few
// rows for row blocks. The batches and their column panels of 64 are one
// parallel loop (one OpenMP region, 8 iterations, not a region of 4 per
// batch); each batch's 44 columns left run after it, batch by batch.
// CHECK-LABEL: func.func @few_batches_few_rows
// CHECK-SAME: (%[[A:.*]]: memref<2x2x8xf32>, %[[B:.*]]: memref<2x8x300xf32>, %[[C:.*]]: memref<2x2x300xf32>)
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%c2, %c256) step (%c1, %c64)
// CHECK-DAG: memref.subview %[[B]][%[[I]], 0, 0] [1, 8, 300]
// CHECK-DAG: memref.subview %[[C]][%[[I]], 0, 0] [1, 2, 300]
// CHECK: memref.subview %{{.*}}[0, %[[J]]] [8, 64] [1, 1]
// CHECK: vector.fma
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %c2 step %c1
// CHECK-DAG: memref.subview %[[B]][%[[R]], 0, 0] [1, 8, 300]
// CHECK: memref.subview %{{.*}}[0, 256] [8, 44] [1, 1]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @few_batches_few_rows(%a: memref<2x2x8xf32>, %b: memref<2x8x300xf32>, %c: memref<2x2x300xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x2x8xf32>, memref<2x8x300xf32>) outs(%c : memref<2x2x300xf32>)
  return
}

// -----

// With 64 rows or more, B's full 64-column panels are first copied, in
// parallel (chunks of 32 rows of B, each row read whole: one chunk here),
// into a contiguous (panel, k, column) buffer; the kernels read
// their panel of B from it, the 2 columns left over from B itself. A
// row-major A is read in place: each tile's kernel broadcasts its rows'
// elements from %a itself (nothing is allocated for A). The copy is freed
// after the last kernel.
// CHECK-LABEL: func.func @packed
// CHECK-SAME: (%[[A:.*]]: memref<64x8xf32>, %[[B:.*]]: memref<8x130xf32>, %[[C:.*]]: memref<64x130xf32>)
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x64xf32>
// CHECK: scf.for %[[K:[a-z0-9_]+]] = %c0 to %c8 step %c1
// CHECK-NEXT: scf.for %[[PANEL:[a-z0-9_]+]] = %c0 to %c2 step %c1
// CHECK: %[[ROW:.*]] = vector.load %[[B]][%[[K]], %{{.*}}] : memref<8x130xf32>, vector<16xf32>
// CHECK: vector.store %[[ROW]], %[[P]][%[[PANEL]], %[[K]], %{{.*}}] : memref<2x8x64xf32>, vector<16xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel
// CHECK-NOT: memref.store
// CHECK: vector.load %[[P]][{{.*}}] : memref<2x8x64xf32>, vector<16xf32>
// CHECK: memref.load %[[A]]
// CHECK: vector.fma
// CHECK: vector.load %[[B]][{{.*}}] : memref<8x130xf32>, vector<2xf32>
// CHECK: memref.dealloc %[[P]] : memref<2x8x64xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @packed(%a: memref<64x8xf32>, %b: memref<8x130xf32>, %c: memref<64x130xf32>) {
  linalg.matmul ins(%a, %b : memref<64x8xf32>, memref<8x130xf32>) outs(%c : memref<64x130xf32>)
  return
}

// -----

// The tiles of a matmul with an epilogue: each tile's B is a 64-column slice
// of %b at a multiple of 64, so B's panels are copied once, before the tile
// loop, and each tile reads its panel (column / 64) from that copy; the copy
// is freed after the loop. The tiles call one kernel, shared by every tile
// loop whose operands have the same types (the two layers here), which
// reads the panels from the copy it is given, and not B itself (every
// column of a tile is in a full panel): B is no argument of the kernel.
// CHECK-LABEL: func.func @tiles
// CHECK-SAME: (%[[A:[^:]*]]: memref<128x32xf32>, %[[B:[^:]*]]: memref<32x128xf32>, %[[B2:[^:]*]]: memref<32x128xf32>,
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x64xf32>
// CHECK: vector.load %[[B]]
// CHECK: vector.store {{.*}}, %[[P]]
// CHECK: scf.parallel (%{{.*}}, %[[J:.*]]) =
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<1x32x64xf32>
// CHECK: %[[FIRST:.*]] = arith.divui %[[J]], %c64
// CHECK: call @jeet_matmul_tile(%{{[^,]*}}, %{{[^,]*}}, %[[P]], %[[FIRST]])
// CHECK: scf.reduce
// CHECK: memref.dealloc %[[P]]
// CHECK: %[[P2:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x64xf32>
// CHECK: vector.load %[[B2]]
// CHECK: scf.parallel (%{{.*}}, %[[J2:.*]]) =
// CHECK: %[[FIRST2:.*]] = arith.divui %[[J2]], %c64
// CHECK: call @jeet_matmul_tile(%{{[^,]*}}, %{{[^,]*}}, %[[P2]], %[[FIRST2]])
// CHECK: memref.dealloc %[[P2]]
// CHECK-NEXT: return
// CHECK: func.func private @jeet_matmul_tile(%{{.*}}: memref<64x32xf32, strided<[32, 1], offset: ?>>, %{{.*}}: memref<64x64xf32, strided<[128, 1], offset: ?>>, %[[PK:.*]]: memref<2x32x64xf32>, %[[F:.*]]: index)
// CHECK-SAME: attributes {passthrough = ["noinline"]}
// CHECK: vector.load %[[PK]][%[[F]], {{.*}}] : memref<2x32x64xf32>, vector<16xf32>
// CHECK: vector.fma
// CHECK-NOT: func.func
func.func @tiles(%a: memref<128x32xf32>, %b: memref<32x128xf32>, %b2: memref<32x128xf32>, %c: memref<128x128xf32>, %d: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c128) step (%c64, %c64) {
    %sa = memref.subview %a[%i, 0] [64, 32] [1, 1] : memref<128x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [32, 64] [1, 1] : memref<32x128xf32> to memref<32x64xf32, strided<[128, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    linalg.matmul ins(%sa, %sb : memref<64x32xf32, strided<[32, 1], offset: ?>>, memref<32x64xf32, strided<[128, 1], offset: ?>>) outs(%sc : memref<64x64xf32, strided<[128, 1], offset: ?>>)
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c128) step (%c64, %c64) {
    %sa = memref.subview %a[%i, 0] [64, 32] [1, 1] : memref<128x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b2[0, %j] [32, 64] [1, 1] : memref<32x128xf32> to memref<32x64xf32, strided<[128, 1], offset: ?>>
    %sd = memref.subview %d[%i, %j] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    linalg.matmul ins(%sa, %sb : memref<64x32xf32, strided<[32, 1], offset: ?>>, memref<32x64xf32, strided<[128, 1], offset: ?>>) outs(%sd : memref<64x64xf32, strided<[128, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// The tiles of a matmul with an epilogue whose B is transposed: each tile's
// B is a 64-row slice of %bt, so %bt is packed once before the tile loop
// (the kernel reads the copy's panels, the partial one too, and never %bt).
// CHECK-LABEL: func.func @tiles_rhs_transposed
// CHECK-SAME: (%[[A:.*]]: memref<128x32xf32>, %[[BT:.*]]: memref<128x32xf32>,
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x64xf32>
// CHECK: memref.load %[[BT]]
// CHECK: memref.store {{.*}}, %[[P]]
// CHECK: scf.parallel (%{{.*}}, %[[J:.*]]) =
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<1x32x64xf32>
// CHECK: %[[FIRST:.*]] = arith.divui %[[J]], %c64
// CHECK: call @jeet_matmul_tile(%{{[^,]*}}, %{{[^,]*}}, %[[P]], %[[FIRST]])
// CHECK: scf.reduce
// CHECK: memref.dealloc %[[P]]
// CHECK-NEXT: return
// CHECK: func.func private @jeet_matmul_tile({{.*}}, %[[PK:.*]]: memref<2x32x64xf32>, %[[F:.*]]: index)
// CHECK: vector.load %[[PK]][%[[F]], {{.*}}] : memref<2x32x64xf32>, vector<16xf32>
func.func @tiles_rhs_transposed(%a: memref<128x32xf32>, %bt: memref<128x32xf32>, %c: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c128) step (%c64, %c64) {
    %sa = memref.subview %a[%i, 0] [64, 32] [1, 1] : memref<128x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    %sb = memref.subview %bt[%j, 0] [64, 32] [1, 1] : memref<128x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [64, 64] [1, 1] : memref<128x128xf32> to memref<64x64xf32, strided<[128, 1], offset: ?>>
    linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
        ins(%sa, %sb : memref<64x32xf32, strided<[32, 1], offset: ?>>, memref<64x32xf32, strided<[32, 1], offset: ?>>) outs(%sc : memref<64x64xf32, strided<[128, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// The tiles of a batch_matmul with an epilogue (attention's Q @ K^T * scale):
// each tile's B is one matrix of %bt, sliced by rows, so the panels of every
// batch are packed once before the tile loop, batch b's from panel 2 * b on
// (2 batches of 2 panels); each tile reads from panel 2 * b + j / 64.
// CHECK-LABEL: func.func @batched_tiles
// CHECK-SAME: (%[[A:.*]]: memref<2x128x32xf32>, %[[BT:.*]]: memref<2x128x32xf32>,
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x32x64xf32>
// CHECK: scf.for %[[B:[a-z0-9_]+]] =
// CHECK: memref.load
// CHECK: memref.store {{.*}}, %[[P]]
// CHECK: scf.parallel (%[[TB:[a-z0-9_]+]], %{{.*}}, %[[J:[a-z0-9_]+]]) =
// CHECK-NOT: memref.alloc() {alignment = 64 : i64} : memref<1x32x64xf32>
// CHECK-DAG: arith.divui %[[J]], %c64
// CHECK-DAG: arith.muli %[[TB]], %c2
// CHECK: vector.load %[[P]][{{.*}}] : memref<4x32x64xf32>, vector<16xf32>
// CHECK: scf.reduce
// CHECK: memref.dealloc %[[P]]
// CHECK-NEXT: return
func.func @batched_tiles(%a: memref<2x128x32xf32>, %bt: memref<2x128x32xf32>, %c: memref<2x128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%b, %i, %j) = (%c0, %c0, %c0) to (%c2, %c128, %c128) step (%c1, %c64, %c64) {
    %sa = memref.subview %a[%b, %i, 0] [1, 64, 32] [1, 1, 1] : memref<2x128x32xf32> to memref<1x64x32xf32, strided<[4096, 32, 1], offset: ?>>
    %sb = memref.subview %bt[%b, %j, 0] [1, 64, 32] [1, 1, 1] : memref<2x128x32xf32> to memref<1x64x32xf32, strided<[4096, 32, 1], offset: ?>>
    %sc = memref.subview %c[%b, %i, %j] [1, 64, 64] [1, 1, 1] : memref<2x128x128xf32> to memref<1x64x64xf32, strided<[16384, 128, 1], offset: ?>>
    linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
        ins(%sa, %sb : memref<1x64x32xf32, strided<[4096, 32, 1], offset: ?>>, memref<1x64x32xf32, strided<[4096, 32, 1], offset: ?>>) outs(%sc : memref<1x64x64xf32, strided<[16384, 128, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// The same with a B that already has the panels' layout (attention's P @ V
// with a head size of 64: one matrix of %v, whole, 64 columns, rows
// contiguous): no copy, the kernels read %v at the tile's batch.
// CHECK-LABEL: func.func @batched_tiles_panel_shaped
// CHECK-SAME: (%[[P:.*]]: memref<2x128x128xf32>, %[[V:.*]]: memref<2x128x64xf32>,
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%[[B:[a-z0-9_]+]], %{{.*}}) =
// CHECK-NOT: memref.alloc
// CHECK: vector.load %[[V]][%[[B]], %{{.*}}, %c0] : memref<2x128x64xf32>, vector<16xf32>
// CHECK: vector.fma
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @batched_tiles_panel_shaped(%p: memref<2x128x128xf32>, %v: memref<2x128x64xf32>, %o: memref<2x128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%b, %i) = (%c0, %c0) to (%c2, %c128) step (%c1, %c64) {
    %sp = memref.subview %p[%b, %i, 0] [1, 64, 128] [1, 1, 1] : memref<2x128x128xf32> to memref<1x64x128xf32, strided<[16384, 128, 1], offset: ?>>
    %sv = memref.subview %v[%b, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf32> to memref<1x128x64xf32, strided<[8192, 64, 1], offset: ?>>
    %so = memref.subview %o[%b, %i, 0] [1, 64, 64] [1, 1, 1] : memref<2x128x64xf32> to memref<1x64x64xf32, strided<[8192, 64, 1], offset: ?>>
    linalg.batch_matmul ins(%sp, %sv : memref<1x64x128xf32, strided<[16384, 128, 1], offset: ?>>, memref<1x128x64xf32, strided<[8192, 64, 1], offset: ?>>) outs(%so : memref<1x64x64xf32, strided<[8192, 64, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// Tiles along the columns alone (the rows fit in one tile, as in an MLP
// layer at batch 64): every panel of B is read by one tile. No copy of the
// whole B before the loop (that copy would be a parallel loop of its own);
// the tiles call one shared kernel, which, with fewer than 128 rows and
// B's rows 1 KiB apart (no L1 aliasing), reads B as it is.
// CHECK-LABEL: func.func @column_tiles
// CHECK-SAME: (%[[A:[^:]*]]: memref<64x32xf32>, %[[B:[^:]*]]: memref<32x256xf32>,
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK: %[[SB:.*]] = memref.subview %[[B]][0, %[[J]]] [32, 64]
// CHECK: %[[SC:.*]] = memref.subview
// CHECK: call @jeet_matmul_tile(%[[A]], %[[SB]], %[[SC]])
// CHECK: scf.reduce
// CHECK: func.func private @jeet_matmul_tile(%{{[^:]*}}: memref<64x32xf32>, %[[TB:[^:]*]]: memref<32x64xf32, strided<[256, 1], offset: ?>>,
// CHECK-NOT: memref.alloc
// CHECK-NOT: scf.parallel
// CHECK: vector.load %[[TB]]
// CHECK: vector.fma
func.func @column_tiles(%a: memref<64x32xf32>, %b: memref<32x256xf32>, %c: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%j) = (%c0) to (%c256) step (%c64) {
    %sb = memref.subview %b[0, %j] [32, 64] [1, 1] : memref<32x256xf32> to memref<32x64xf32, strided<[256, 1], offset: ?>>
    %sc = memref.subview %c[0, %j] [64, 64] [1, 1] : memref<64x256xf32> to memref<64x64xf32, strided<[256, 1], offset: ?>>
    linalg.matmul ins(%a, %sb : memref<64x32xf32>, memref<32x64xf32, strided<[256, 1], offset: ?>>) outs(%sc : memref<64x64xf32, strided<[256, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// The same with B's rows 4 KiB apart (1024 columns), which alias in L1:
// each tile packs its own panel, inside the shared kernel.
// CHECK-LABEL: func.func @column_tiles_aliasing
// CHECK-SAME: (%[[A:[^:]*]]: memref<64x32xf32>, %[[B:[^:]*]]: memref<32x1024xf32>,
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK: %[[SB:.*]] = memref.subview %[[B]][0, %[[J]]] [32, 64]
// CHECK: call @jeet_matmul_tile(%[[A]], %[[SB]], %{{.*}})
// CHECK: scf.reduce
// CHECK: func.func private @jeet_matmul_tile(%{{[^:]*}}: memref<64x32xf32>, %[[TB:[^:]*]]: memref<32x64xf32, strided<[1024, 1], offset: ?>>,
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x32x64xf32>
// CHECK-NOT: scf.parallel
// CHECK: vector.load %[[TB]]
// CHECK: vector.store {{.*}}, %[[P]]
// CHECK: vector.load %[[P]]
// CHECK: vector.fma
// CHECK: memref.dealloc %[[P]]
func.func @column_tiles_aliasing(%a: memref<64x32xf32>, %b: memref<32x1024xf32>, %c: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%j) = (%c0) to (%c1024) step (%c64) {
    %sb = memref.subview %b[0, %j] [32, 64] [1, 1] : memref<32x1024xf32> to memref<32x64xf32, strided<[1024, 1], offset: ?>>
    %sc = memref.subview %c[0, %j] [64, 64] [1, 1] : memref<64x1024xf32> to memref<64x64xf32, strided<[1024, 1], offset: ?>>
    linalg.matmul ins(%a, %sb : memref<64x32xf32>, memref<32x64xf32, strided<[1024, 1], offset: ?>>) outs(%sc : memref<64x64xf32, strided<[1024, 1], offset: ?>>)
    scf.reduce
  }
  return
}

// -----

// A tile loop whose step is not a multiple of the panels (96 columns) keeps
// a copy of its one full panel per tile.
// CHECK-LABEL: func.func @unaligned_tiles
// CHECK: scf.parallel (%{{.*}}) =
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<1x32x64xf32>
func.func @unaligned_tiles(%a: memref<96x32xf32>, %b: memref<32x192xf32>, %c: memref<96x192xf32>) {
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %c192 = arith.constant 192 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c96, %c192) step (%c96, %c96) {
    %sa = memref.subview %a[%i, 0] [96, 32] [1, 1] : memref<96x32xf32> to memref<96x32xf32, strided<[32, 1], offset: ?>>
    %sb = memref.subview %b[0, %j] [32, 96] [1, 1] : memref<32x192xf32> to memref<32x96xf32, strided<[192, 1], offset: ?>>
    %sc = memref.subview %c[%i, %j] [96, 96] [1, 1] : memref<96x192xf32> to memref<96x96xf32, strided<[192, 1], offset: ?>>
    linalg.matmul ins(%sa, %sb : memref<96x32xf32, strided<[32, 1], offset: ?>>, memref<32x96xf32, strided<[192, 1], offset: ?>>) outs(%sc : memref<96x96xf32, strided<[192, 1], offset: ?>>)
    scf.reduce
  }
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

// -----

// The tiles of a convolution's batch_matmul with its epilogue: A (the
// filter) is whole and defined outside the tile loop, so each tile computes
// every row of its image's matrix and alone reads its columns of B (the
// windows). With 16 rows and B's rows 1 KiB apart, no panels are packed
// before the loop: each tile reads its slice of B where it lies.
// CHECK-LABEL: func.func @conv_tiles
// CHECK-SAME: (%[[A:[^:]*]]: memref<16x27xf32>, %[[B:[^:]*]]: memref<4x27x256xf32>,
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%[[N:.*]], %[[J:.*]]) =
// CHECK: %[[SB:.*]] = memref.subview %[[B]][%[[N]], 0, %[[J]]] [1, 27, 64]
// CHECK-NOT: memref.alloc
// CHECK: %[[M:.*]] = memref.subview %[[SB]][0, 0, 0] [1, 27, 64]
// CHECK-NOT: memref.alloc
// CHECK: vector.load %[[M]]
// CHECK: vector.fma
// CHECK: scf.reduce
// CHECK-NOT: call @jeet_matmul_tile
func.func @conv_tiles(%a: memref<16x27xf32>, %b: memref<4x27x256xf32>, %c: memref<4x16x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%n, %j) = (%c0, %c0) to (%c4, %c256) step (%c1, %c64) {
    %sb = memref.subview %b[%n, 0, %j] [1, 27, 64] [1, 1, 1] : memref<4x27x256xf32> to memref<1x27x64xf32, strided<[6912, 256, 1], offset: ?>>
    %sc = memref.subview %c[%n, 0, %j] [1, 16, 64] [1, 1, 1] : memref<4x16x256xf32> to memref<1x16x64xf32, strided<[4096, 256, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%a, %sb : memref<16x27xf32>, memref<1x27x64xf32, strided<[6912, 256, 1], offset: ?>>) outs(%sc : memref<1x16x64xf32, strided<[4096, 256, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    scf.reduce
  }
  return
}

// -----

// The same with B's rows 4 KiB apart (1024 columns) and 40 of them, more
// than a tile streams when they alias in L1: the panels of all four images
// are packed before the tile loop, in one parallel loop over the images.
// CHECK-LABEL: func.func @conv_tiles_aliasing
// CHECK-SAME: (%[[A:[^:]*]]: memref<16x40xf32>, %[[B:[^:]*]]: memref<4x40x1024xf32>,
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x40x64xf32>
// CHECK-NEXT: scf.parallel (%[[IMG:.*]]) = (%c0) to (%c4) step (%c1) {
// CHECK-NOT: scf.parallel
// CHECK: vector.store {{.*}}, %[[P]]
// CHECK: scf.reduce
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK: vector.load %[[P]]
// CHECK: memref.dealloc %[[P]]
func.func @conv_tiles_aliasing(%a: memref<16x40xf32>, %b: memref<4x40x1024xf32>, %c: memref<4x16x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%n, %j) = (%c0, %c0) to (%c4, %c1024) step (%c1, %c64) {
    %sb = memref.subview %b[%n, 0, %j] [1, 40, 64] [1, 1, 1] : memref<4x40x1024xf32> to memref<1x40x64xf32, strided<[40960, 1024, 1], offset: ?>>
    %sc = memref.subview %c[%n, 0, %j] [1, 16, 64] [1, 1, 1] : memref<4x16x1024xf32> to memref<1x16x64xf32, strided<[16384, 1024, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%a, %sb : memref<16x40xf32>, memref<1x40x64xf32, strided<[40960, 1024, 1], offset: ?>>) outs(%sc : memref<1x16x64xf32, strided<[16384, 1024, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    scf.reduce
  }
  return
}

// -----

// A matrix-vector product (one row: a squeeze-and-excitation block's or a
// classifier's layer at batch 1) sums six interleaved steps of k into six
// tiles of accumulators, about a full tile's registers, so that each FMA
// does not wait for the one before (one 1 x 64 tile's four accumulators
// left the FMA units' latency exposed); the six are added pairwise after
// the loop, then added to C. 150 steps in k-blocks of 50: 8 iterations of
// 6 and 2 steps, which the first chain takes in a loop of its own.
// CHECK-LABEL: func.func @matrix_vector
// CHECK: scf.for %{{.*}} = %c0 to %c150 step %c50 {
// CHECK: %[[SUMS:.*]]:24 = scf.for %{{.*}} step %c6 iter_args(
// CHECK-COUNT-24: vector.fma
// CHECK: %[[REST:.*]]:4 = scf.for %{{.*}} step %c1 iter_args(%{{.*}} = %[[SUMS]]#0, %{{.*}} = %[[SUMS]]#1, %{{.*}} = %[[SUMS]]#2, %{{.*}} = %[[SUMS]]#3)
// CHECK-COUNT-4: vector.fma
// CHECK: %[[P01:.*]] = arith.addf %[[REST]]#0, %[[SUMS]]#4 : vector<16xf32>
// CHECK: %[[P23:.*]] = arith.addf %[[SUMS]]#8, %[[SUMS]]#12 : vector<16xf32>
// CHECK: %[[P45:.*]] = arith.addf %[[SUMS]]#16, %[[SUMS]]#20 : vector<16xf32>
// CHECK: %[[P0123:.*]] = arith.addf %[[P01]], %[[P23]] : vector<16xf32>
// CHECK: %[[ALL:.*]] = arith.addf %[[P0123]], %[[P45]] : vector<16xf32>
// CHECK: %[[C:.*]] = vector.load %{{.*}}[%c0, %c0] : memref<1x64xf32>, vector<16xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[C]], %[[ALL]]
// CHECK: vector.store %[[NEW]]
func.func @matrix_vector(%a: memref<1x150xf32>, %b: memref<150x64xf32>, %c: memref<1x64xf32>) {
  linalg.matmul ins(%a, %b : memref<1x150xf32>, memref<150x64xf32>) outs(%c : memref<1x64xf32>)
  return
}

// -----

// Two rows (the remainder rows of a matmul, here the whole of it) take
// three chains; 26 steps are 8 iterations of 3 and 2 steps left. A
// shallower matmul keeps fewer chains, at least 8 steps each.
// CHECK-LABEL: func.func @two_rows
// CHECK: %[[SUMS:.*]]:24 = scf.for %{{.*}} = %c0 to %c24 step %c3
// CHECK: %[[REST:.*]]:8 = scf.for %{{.*}} = %c24 to %c26 step %c1 iter_args(%{{.*}} = %[[SUMS]]#0, %{{.*}} = %[[SUMS]]#1, %{{.*}} = %[[SUMS]]#2, %{{.*}} = %[[SUMS]]#3, %{{.*}} = %[[SUMS]]#4, %{{.*}} = %[[SUMS]]#5, %{{.*}} = %[[SUMS]]#6, %{{.*}} = %[[SUMS]]#7)
// CHECK: arith.addf %[[REST]]#0, %[[SUMS]]#8
// CHECK-LABEL: func.func @shallow_two_rows
// CHECK: scf.for %{{.*}} = %c0 to %c20 step %c2 iter_args
func.func @two_rows(%a: memref<2x26xf32>, %b: memref<26x64xf32>, %c: memref<2x64xf32>) {
  linalg.matmul ins(%a, %b : memref<2x26xf32>, memref<26x64xf32>) outs(%c : memref<2x64xf32>)
  return
}

// -----

func.func @shallow_two_rows(%a: memref<2x20xf32>, %b: memref<20x64xf32>, %c: memref<2x64xf32>) {
  linalg.matmul ins(%a, %b : memref<2x20xf32>, memref<20x64xf32>) outs(%c : memref<2x64xf32>)
  return
}

// -----

// Six rows of 16 columns (the columns past a 64-column tile's last full
// panel, here the whole of it) are 6 accumulators where a full 6 x 64 tile
// has 24: four chains, 48 steps in 12 iterations of 4.
// CHECK-LABEL: func.func @narrow_columns
// CHECK: %[[SUMS:.*]]:24 = scf.for %{{.*}} = %c0 to %c48 step %c4
// CHECK-COUNT-24: vector.fma
// CHECK: arith.addf %[[SUMS]]#0, %[[SUMS]]#6 : vector<16xf32>
func.func @narrow_columns(%a: memref<6x48xf32>, %b: memref<48x16xf32>, %c: memref<6x16xf32>) {
  linalg.matmul ins(%a, %b : memref<6x48xf32>, memref<48x16xf32>) outs(%c : memref<6x16xf32>)
  return
}

// -----

// A convolution's matmul outside tiles (too small to tile: one thread's
// work): the filter, 64 rows, by one image's windows (1, 144, 529), rows
// 2,116 bytes apart. Fewer than 128 rows read each panel, so B is read where
// it lies, as a tile streams it: no panels are copied first.
// CHECK-LABEL: func.func @conv_whole
// CHECK-SAME: (%[[A:[^:]*]]: memref<64x144xf32>, %[[B:[^:]*]]: memref<1x144x529xf32>,
// CHECK-NOT: memref.alloc
// CHECK: %[[M:.*]] = memref.subview %[[B]][0, 0, 0] [1, 144, 529]
// CHECK-NOT: memref.alloc
// CHECK: vector.load %[[M]]
// CHECK: vector.fma
func.func @conv_whole(%a: memref<64x144xf32>, %b: memref<1x144x529xf32>, %c: memref<1x64x529xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x144xf32>, memref<1x144x529xf32>) outs(%c : memref<1x64x529xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The same with 128 rows of filters: enough row tiles share each panel to
// repay its copy, made once before the kernels.
// CHECK-LABEL: func.func @conv_whole_many_rows
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x144x64xf32>
// CHECK: vector.store {{.*}}, %[[P]]
// CHECK: vector.load %[[P]]
// CHECK: memref.dealloc %[[P]]
func.func @conv_whole_many_rows(%a: memref<128x144xf32>, %b: memref<1x144x529xf32>, %c: memref<1x128x529xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<128x144xf32>, memref<1x144x529xf32>) outs(%c : memref<1x128x529xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 64 rows again, but B's 144 rows 4 KiB apart (1,024 columns): read in place
// they would evict each other in L1, so B's panels are copied first.
// CHECK-LABEL: func.func @conv_whole_aliasing
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x144x64xf32>
// CHECK: vector.store {{.*}}, %[[P]]
// CHECK: vector.load %[[P]]
func.func @conv_whole_aliasing(%a: memref<64x144xf32>, %b: memref<1x144x1024xf32>, %c: memref<1x64x1024xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x144xf32>, memref<1x144x1024xf32>) outs(%c : memref<1x64x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The tile of a batch of one image by a column slice of a constant B
// (a 1x1 convolution at 6x6 positions computed transposed: (1, 36, 1024) x
// (1024, 256)) whose rows do not alias in L1 but are 1 KiB apart: taken as
// the product of matrices, whose tile kernel reads the compiler's panels
// (B's own global gone), not B's rows.
// CHECK: memref.global "private" constant @w_panels64 : memref<262144xf32>
// CHECK-NOT: memref.global "private" constant @w :
// CHECK-LABEL: func.func @batch_of_one_by_constant
// CHECK: %[[FLAT:.*]] = memref.get_global @w_panels64 : memref<262144xf32>
// CHECK: %[[P:.*]] = memref.expand_shape %[[FLAT]]
// CHECK: scf.parallel
// CHECK: func.call @jeet_matmul_tile(%{{.*}}, %{{.*}}, %[[P]], %{{.*}}) : (memref<36x1024xf32
// CHECK: return
memref.global "private" constant @w : memref<1024x256xf32> = dense<0.5>
func.func @batch_of_one_by_constant(%a: memref<1x36x1024xf32>, %c: memref<1x36x256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %w = memref.get_global @w : memref<1024x256xf32>
  scf.parallel (%j) = (%c0) to (%c256) step (%c64) {
    %sb = memref.subview %w[0, %j] [1024, 64] [1, 1] : memref<1024x256xf32> to memref<1024x64xf32, strided<[256, 1], offset: ?>>
    %sc = memref.subview %c[0, 0, %j] [1, 36, 64] [1, 1, 1] : memref<1x36x256xf32> to memref<1x36x64xf32, strided<[9216, 256, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%a, %sb : memref<1x36x1024xf32>, memref<1024x64xf32, strided<[256, 1], offset: ?>>) outs(%sc : memref<1x36x64xf32, strided<[9216, 256, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    scf.reduce
  }
  return
}

// -----

// The same with 1,032 rows of B, deeper than the panels pay for (a 3x3
// convolution's 2304 x 256 filter ran 0.18 -> 0.20 ms from them): B's rows
// read where they lie.
// CHECK-LABEL: func.func @batch_of_one_by_deep_constant
// CHECK: %[[W:.*]] = memref.get_global @deep : memref<1032x256xf32>
// CHECK: %[[S:.*]] = memref.subview %[[W]]
// CHECK: vector.load %[[S]]
// CHECK-NOT: _panels
memref.global "private" constant @deep : memref<1032x256xf32> = dense<0.25>
func.func @batch_of_one_by_deep_constant(%a: memref<1x36x1032xf32>, %c: memref<1x36x256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %w = memref.get_global @deep : memref<1032x256xf32>
  scf.parallel (%j) = (%c0) to (%c256) step (%c64) {
    %sb = memref.subview %w[0, %j] [1032, 64] [1, 1] : memref<1032x256xf32> to memref<1032x64xf32, strided<[256, 1], offset: ?>>
    %sc = memref.subview %c[0, 0, %j] [1, 36, 64] [1, 1, 1] : memref<1x36x256xf32> to memref<1x36x64xf32, strided<[9216, 256, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
        ins(%a, %sb : memref<1x36x1032xf32>, memref<1032x64xf32, strided<[256, 1], offset: ?>>) outs(%sc : memref<1x36x64xf32, strided<[9216, 256, 1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %m = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    scf.reduce
  }
  return
}
