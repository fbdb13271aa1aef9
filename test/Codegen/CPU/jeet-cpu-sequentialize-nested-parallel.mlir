// RUN: jeet-opt %s --jeet-cpu-sequentialize-nested-parallel | FileCheck %s

// The outermost parallel loop stays; the nested one becomes scf.for loops,
// outermost dimension first.
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
func.func @nested(%m: memref<4x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%j, %k) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
      memref.store %cst, %m[%i, %j, %k] : memref<4x8x8xf32>
    }
  }
  return
}

// A loop that is not nested is left alone.
// CHECK-LABEL: func.func @outermost
// CHECK: scf.parallel
func.func @outermost(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %cst, %m[%i] : memref<8xf32>
  }
  return
}
