// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(jeet-cpu-matmul{k-block=32 register-cols=16},canonicalize,cse)' | FileCheck %s

// A fill of C with a constant just before the matmul is folded into it: the
// register tiles start as splats of the constant instead of loads of C, and
// the fill goes.
// CHECK-LABEL: func.func @zero_fill
// CHECK-SAME: (%[[A:[^:]*]]: memref<6x8xf32>, %[[B:[^:]*]]: memref<8x16xf32>, %[[C:[^:]*]]: memref<6x16xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.load %[[C]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]]) -> (vector<16xf32>
// CHECK: vector.fma
// CHECK-COUNT-6: vector.store %{{.*}}, %[[C]]
// CHECK-NOT: vector.load %[[C]]
// CHECK: return
func.func @zero_fill(%a: memref<6x8xf32>, %b: memref<8x16xf32>, %c: memref<6x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<6x16xf32>)
  linalg.matmul ins(%a, %b : memref<6x8xf32>, memref<8x16xf32>) outs(%c : memref<6x16xf32>)
  return
}

// -----

// K = 80 in k-blocks of at most 32, of equal depth (27 + 27 + 26), in one
// loop over the blocks (one copy of the kernel): the first block (k0 == 0)
// starts its tile from the fill's value (any constant) and stores it over C;
// the others start from zeros and add C to their sums after their loop.
// CHECK-LABEL: func.func @k_blocks
// CHECK-SAME: (%[[A:[^:]*]]: memref<6x80xf32>, %[[B:[^:]*]]: memref<80x16xf32>, %[[C:[^:]*]]: memref<6x16xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C27:.*]] = arith.constant 27 : index
// CHECK-DAG: %[[C80:.*]] = arith.constant 80 : index
// CHECK-NOT: linalg.fill
// CHECK-NOT: vector.load %[[C]]
// CHECK: scf.for %[[K0:.*]] = %[[C0]] to %[[C80]] step %[[C27]] {
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K0]], %[[C0]]
// CHECK: %[[START:.*]] = arith.select %[[FIRST]], %[[ONE]], %[[ZERO]] : f32
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[START]] : f32 to vector<16xf32>
// CHECK-NOT: vector.load %[[C]]
// CHECK: %[[SUMS:.*]]:6 = scf.for {{.*}} iter_args(%{{.*}} = %[[SPLAT]], %{{.*}} = %[[SPLAT]], %{{.*}} = %[[SPLAT]], %{{.*}} = %[[SPLAT]], %{{.*}} = %[[SPLAT]], %{{.*}} = %[[SPLAT]])
// CHECK-NOT: vector.load %[[C]]
// CHECK: scf.if %[[FIRST]] {
// CHECK-NOT: vector.load %[[C]]
// CHECK-COUNT-6: vector.store %{{.*}}, %[[C]]
// CHECK-NEXT: } else {
// CHECK-NEXT: vector.load %[[C]]
// CHECK-NEXT: arith.addf %{{.*}}, %[[SUMS]]#0
// CHECK: vector.store
// CHECK: }
// CHECK-NOT: scf.for
// CHECK: return
func.func @k_blocks(%a: memref<6x80xf32>, %b: memref<80x16xf32>, %c: memref<6x16xf32>) {
  %one = arith.constant 1.000000e+00 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<6x16xf32>)
  linalg.matmul ins(%a, %b : memref<6x80xf32>, memref<80x16xf32>) outs(%c : memref<6x16xf32>)
  return
}

// -----

#lhs = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// The tile of a convolution (its accumulator filled, then the filter times
// the tile's windows): the kernels of both row tiles start from zeros.
// CHECK-LABEL: func.func @conv_tile
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: scf.forall
// CHECK-NOT: linalg.fill
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<1x16x64xf32>
// CHECK-NOT: vector.load %[[ACC]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]],
// CHECK-NOT: vector.load %[[ACC]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]],
// CHECK-NOT: vector.load %[[ACC]]
// CHECK: memref.dealloc %[[ACC]]
func.func @conv_tile(%a: memref<16x27xf32>, %b: memref<4x27x256xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  scf.forall (%n, %p) = (0, 0) to (4, 256) step (1, 64) {
    %windows = memref.subview %b[%n, 0, %p] [1, 27, 64] [1, 1, 1] : memref<4x27x256xf32> to memref<1x27x64xf32, strided<[6912, 256, 1], offset: ?>>
    %acc = memref.alloc() {alignment = 64 : i64} : memref<1x16x64xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<1x16x64xf32>)
    linalg.generic {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %windows : memref<16x27xf32>, memref<1x27x64xf32, strided<[6912, 256, 1], offset: ?>>) outs(%acc : memref<1x16x64xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %0 = arith.mulf %x, %y : f32
      %1 = arith.addf %o, %0 : f32
      linalg.yield %1 : f32
    }
    memref.dealloc %acc : memref<1x16x64xf32>
  }
  return
}

// -----

// Left alone: a fill of a value that is not a constant, a fill of another
// buffer, and a fill with an op between it and the matmul; each matmul then
// reads C.
// CHECK-LABEL: func.func @fills_kept
// CHECK-SAME: (%[[A:[^:]*]]: memref<6x8xf32>, %[[B:[^:]*]]: memref<8x16xf32>, %[[C:[^:]*]]: memref<6x16xf32>, %[[D:[^:]*]]: memref<6x16xf32>, %[[V:[^:]*]]: f32)
// CHECK: linalg.fill ins(%[[V]] : f32) outs(%[[C]] : memref<6x16xf32>)
// CHECK: vector.load %[[C]]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[D]] : memref<6x16xf32>)
// CHECK: vector.load %[[C]]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : memref<6x16xf32>)
// CHECK: memref.store
// CHECK: vector.load %[[C]]
func.func @fills_kept(%a: memref<6x8xf32>, %b: memref<8x16xf32>, %c: memref<6x16xf32>, %d: memref<6x16xf32>, %v: f32) {
  %zero = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%v : f32) outs(%c : memref<6x16xf32>)
  linalg.matmul ins(%a, %b : memref<6x8xf32>, memref<8x16xf32>) outs(%c : memref<6x16xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<6x16xf32>)
  linalg.matmul ins(%a, %b : memref<6x8xf32>, memref<8x16xf32>) outs(%c : memref<6x16xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<6x16xf32>)
  memref.store %v, %c[%c0, %c0] : memref<6x16xf32>
  linalg.matmul ins(%a, %b : memref<6x8xf32>, memref<8x16xf32>) outs(%c : memref<6x16xf32>)
  return
}
