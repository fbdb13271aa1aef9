// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=16 k-block=48 row-block=30},canonicalize,cse)' | FileCheck %s --check-prefix=AVX2
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul,canonicalize,cse)' | FileCheck %s --check-prefix=HOST

// The sizes the pass used are recorded on the function. A register tile of
// 16 columns (AVX2's 6 x 2 registers): B is packed in panels of 16 columns
// (130 = 8 * 16 + 2), each 6-row tile keeps 6 vectors of 16, and K = 100
// runs in blocks of 48 (48 + 48 + 4). 100 rows in blocks of at most 30
// rows (a multiple of 6 rows): 96 rows in 8 blocks of 12 (so that the
// threads balance), then the 4 remainder rows.
// AVX2-LABEL: func.func @blocks
// AVX2-SAME: attributes {jeet.matmul_blocking = {k_block = 48 : i64, register_cols = 16 : i64, register_rows = 6 : i64, row_block = 30 : i64}}
// AVX2: memref.alloc() {alignment = 64 : i64} : memref<8x100x16xf32>
// AVX2: memref.alloc() {alignment = 64 : i64} : memref<9x2x48x6xf32>
// AVX2: scf.parallel ({{.*}}) = ({{.*}}) to (%c96) step (%c12)
// AVX2: scf.for %{{.*}} = %c0 to %c100 step %c48
// AVX2: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// AVX2: vector.load {{.*}} : memref<8x100x16xf32>, vector<16xf32>
// AVX2: vector.fma {{.*}} : vector<16xf32>
// The 2 remainder columns, read from B itself.
// AVX2: scf.for {{.*}} iter_args({{.*}}) -> (vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>)
// AVX2: scf.reduce
// The 4 remainder rows.
// AVX2: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// A function without a matmul records nothing.
// AVX2-LABEL: func.func @no_matmul
// AVX2-NOT: jeet.matmul_blocking
// AVX2: return

// With the options at 0 the host's sizes: 16 or 64 columns, a k-block and a
// row block from its caches.
// HOST-LABEL: func.func @blocks
// HOST-SAME: attributes {jeet.matmul_blocking = {k_block = {{[1-9][0-9]*}} : i64, register_cols = {{16|64}} : i64, register_rows = 6 : i64, row_block = {{[1-9][0-9]*}} : i64}}
// HOST-LABEL: func.func @no_matmul
// HOST-NOT: jeet.matmul_blocking
func.func @blocks(%a: memref<100x100xf32>, %b: memref<100x130xf32>, %c: memref<100x130xf32>) {
  linalg.matmul ins(%a, %b : memref<100x100xf32>, memref<100x130xf32>) outs(%c : memref<100x130xf32>)
  return
}

func.func @no_matmul(%c: memref<4xf32>) {
  return
}
