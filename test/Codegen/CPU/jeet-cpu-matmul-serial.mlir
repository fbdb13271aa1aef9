// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{min-parallel-work=16384 register-cols=64},canonicalize,cse)' | FileCheck %s

// min-parallel-work: a matmul of fewer multiply-adds than that runs on one
// thread, its packing of B included (64 x 8 x 64 = 32768 multiply-adds
// with the threshold at 16384 stay parallel; 64 x 4 x 8 = 2048 and
// 64 x 1 x 128 = 8192 do not).

// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.parallel
// CHECK: vector.fma
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @small(%a: memref<64x4xf32>, %b: memref<4x8xf32>, %c: memref<64x8xf32>) {
  linalg.matmul ins(%a, %b : memref<64x4xf32>, memref<4x8xf32>) outs(%c : memref<64x8xf32>)
  return
}

// -----

// Packed B (64 rows, two full panels) and the row blocks: the packing runs
// in sequence too.
// CHECK-LABEL: func.func @small_packed
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x1x64xf32>
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @small_packed(%a: memref<64x1xf32>, %b: memref<1x128xf32>, %c: memref<64x128xf32>) {
  linalg.matmul ins(%a, %b : memref<64x1xf32>, memref<1x128xf32>) outs(%c : memref<64x128xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @large
// CHECK: scf.parallel
// CHECK: vector.fma
func.func @large(%a: memref<64x8xf32>, %b: memref<8x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x8xf32>, memref<8x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
