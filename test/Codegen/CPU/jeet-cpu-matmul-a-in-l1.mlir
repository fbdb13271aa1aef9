// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=64 col-block=128 k-block=120 l1-cache-bytes=49152 l2-cache-bytes=4096},canonicalize,cse)' | FileCheck %s
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=64 col-block=128 k-block=120 l1-cache-bytes=49152 l2-cache-bytes=1048576},canonicalize,cse)' | FileCheck %s --check-prefix=C-IN-L2
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=64 l1-cache-bytes=49152 l2-cache-bytes=2097152},canonicalize,cse)' | FileCheck %s --check-prefix=AVX512

// The order where each tile's micro-panel of A stays in L1, for a C too wide
// for 4 register tiles of its rows (24 x 300 floats) to fit half of this
// run's 4 KiB L2, in a matmul deeper than the other order's k-block: per
// k-block
// (200 steps in blocks of at most 120: 100 + 100) A's block is packed,
// then per column block of B (256 full columns in blocks of 128) each
// 6-row tile meets the block's panels one after the other. The kernel
// prefetches its panel's row 32 steps ahead, the k-block's last row at
// most; no tile fetches the next column block into L2 ahead of time (that
// block and the current one would fill L2: the 2048^3 matmul ran 5%
// slower).
// CHECK-LABEL: func.func @a_in_l1
// CHECK-SAME: %[[C:[^:]*]]: memref<70x300xf32>)
// CHECK-SAME: attributes {jeet.matmul_blocking = {col_block = 128 : i64, k_block = 120 : i64, panel_k_block = 128 : i64, register_cols = 64 : i64, register_rows = 6 : i64, row_block = 6 : i64}}
// CHECK: %[[PANELS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x200x64xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<12x1x100x6xf32>
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%c0) to (%c12) step (%c1)
// CHECK: %[[I0:.*]] = arith.muli %[[BLOCK]], %c6
// CHECK: scf.for %[[K0:.*]] = %c0 to %c200 step %c100
// CHECK: %[[K1:.*]] = arith.minsi %{{.*}}, %c200 : index
// CHECK: scf.for
// CHECK: memref.store
// CHECK: scf.for %[[J0:.*]] = %c0 to %c256 step %c128
// CHECK: %[[J1:.*]] = arith.minsi %{{.*}}, %c256 : index
// CHECK-NEXT: scf.for %[[I:.*]] = %[[I0]] to %{{.*}} step %c6
// CHECK-NEXT: scf.for %[[J:.*]] = %[[J0]] to %[[J1]] step %c64
// CHECK-NOT: locality<1>
// CHECK-COUNT-24: memref.prefetch %[[C]]
// CHECK: %[[LAST:.*]] = arith.subi %[[K1]], %c1 : index
// CHECK: scf.for %[[KK:.*]] = %[[K0]] to %[[K1]] step %c1
// CHECK-COUNT-4: vector.load %[[PANELS]]
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[KK]], %c32 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.minsi %[[AHEAD]], %[[LAST]] : index
// CHECK-NEXT: memref.prefetch %[[PANELS]][%{{.*}}, %[[ROW]], %c0], read, locality<3>, data
// CHECK-NEXT: memref.prefetch %[[PANELS]][%{{.*}}, %[[ROW]], %c16], read, locality<3>, data
// CHECK-NEXT: memref.prefetch %[[PANELS]][%{{.*}}, %[[ROW]], %c32], read, locality<3>, data
// CHECK-NEXT: memref.prefetch %[[PANELS]][%{{.*}}, %[[ROW]], %c48], read, locality<3>, data
// CHECK-COUNT-24: vector.fma
// The 44 remainder columns after the column blocks, in the usual order
// (vectors of 16, 16 and 16 with 12 lanes: three a row).
// CHECK: scf.for %{{.*}} = %[[I0]] to %{{.*}} step %c6
// CHECK: iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,

// Rows of C that fit half of L2 (436 rows of 300 floats in 512 KiB, at
// least 4 tiles): the order where B's micro-panel stays in L1, in k-blocks
// of its own (128 steps for 64 columns and 6 rows in three quarters of 48
// KiB: 100 + 100), no prefetches of B into L1 (nor into L2: B's panels fit
// it).
// C-IN-L2-LABEL: func.func @a_in_l1
// C-IN-L2: scf.for %[[K0:.*]] = %c0 to %c200 step %c100
// C-IN-L2: scf.for %[[J:.*]] = %c0 to %c256 step %c64
// C-IN-L2-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c6
// C-IN-L2-NOT: read, locality<{{1|3}}>
// C-IN-L2: return

// The host's sizes for a 48 KiB L1, 2 MiB L2 core: 96 steps of a
// 64-column panel fit half of L1, too few; A's micro-panel in a quarter of
// L1 would take 512 steps, at most 384 are taken; 10 panels of 384 steps
// (640 columns) in half of L2; 341 rows of A's block in a quarter of it.
// AVX512-LABEL: func.func @a_in_l1
// AVX512-SAME: attributes {jeet.matmul_blocking = {col_block = 640 : i64, k_block = 384 : i64, panel_k_block = 128 : i64, register_cols = 64 : i64, register_rows = 6 : i64, row_block = 341 : i64}}
func.func @a_in_l1(%a: memref<70x200xf32>, %b: memref<200x300xf32>, %c: memref<70x300xf32>) {
  linalg.matmul ins(%a, %b : memref<70x200xf32>, memref<200x300xf32>) outs(%c : memref<70x300xf32>)
  return
}

// -----

// A matmul no deeper than a k-block of the other order (128 steps) takes
// that order whatever the caches: its C tiles are visited once either way.
// CHECK-LABEL: func.func @shallow
// CHECK: scf.for %[[J:.*]] = %c0 to %c256 step %c64
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c6
// CHECK-NOT: read, locality<3>
// CHECK: return
func.func @shallow(%a: memref<70x120xf32>, %b: memref<120x300xf32>, %c: memref<70x300xf32>) {
  linalg.matmul ins(%a, %b : memref<70x120xf32>, memref<120x300xf32>) outs(%c : memref<70x300xf32>)
  return
}
