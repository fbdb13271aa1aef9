// RUN: jeet-opt %s --jeet-cpu-sequentialize-nested-parallel="min-parallel-iterations=0" | FileCheck %s
// RUN: jeet-opt %s --jeet-cpu-sequentialize-nested-parallel | FileCheck %s --check-prefix=SMALL

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

// With the default threshold (1024 iterations, inner loops counted, each
// iteration weighed by its loads and stores outside them) small
// kernels run sequentially: an OpenMP region costs more than they take, and
// each region adds compile time for the whole function.
// SMALL-LABEL: func.func @nested
// SMALL-NOT: scf.parallel
// SMALL-LABEL: func.func @outermost
// SMALL-NOT: scf.parallel
// SMALL-LABEL: func.func @one_chunk
// SMALL-NOT: scf.parallel
// SMALL-LABEL: func.func @large
// SMALL: scf.parallel
// SMALL-LABEL: func.func @large_in_branches
// SMALL: scf.parallel
// SMALL-LABEL: func.func @small_in_branches
// SMALL-NOT: scf.parallel
// SMALL-LABEL: func.func @straight_line
// SMALL: scf.parallel
// SMALL-LABEL: func.func @straight_line_light
// SMALL-NOT: scf.parallel
// SMALL-LABEL: func.func @accesses_in_branches
// SMALL: scf.parallel

// One iteration (a kernel whose elements fit one chunk): no parallelism,
// whatever the inner loops hold.
func.func @one_chunk(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    scf.for %j = %c0 to %n step %c1 {
      memref.store %cst, %m[%j] : memref<?xf32>
    }
  }
  return
}

func.func @large(%m: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %cst, %m[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// The loops inside an scf.if count too (a matmul's row blocks and its
// remainder rows as the branches of one parallel loop): 9 x (64 + 64 + 1)
// iterations stay parallel, 9 x (8 + 8 + 1) do not.
func.func @large_in_branches(%m: memref<9x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c9) step (%c1) {
    %full = arith.cmpi ult, %i, %c8 : index
    scf.if %full {
      scf.for %j = %c0 to %c64 step %c1 {
        memref.store %cst, %m[%i, %j] : memref<9x64xf32>
      }
    } else {
      scf.for %j = %c0 to %c64 step %c1 {
        memref.store %cst, %m[%c8, %j] : memref<9x64xf32>
      }
    }
  }
  return
}

func.func @small_in_branches(%m: memref<9x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c9) step (%c1) {
    %full = arith.cmpi ult, %i, %c8 : index
    scf.if %full {
      scf.for %j = %c0 to %c8 step %c1 {
        memref.store %cst, %m[%i, %j] : memref<9x8xf32>
      }
    } else {
      scf.for %j = %c0 to %c8 step %c1 {
        memref.store %cst, %m[%c8, %j] : memref<9x8xf32>
      }
    }
  }
  return
}

// A body of straight-line vector code counts its loads and stores (at least
// 1 an iteration): a depthwise convolution on 6 x 6 images is one iteration
// per image and channel, each tap a vector load. 2 x 96 iterations of 8
// loads and a store (1,728) stay parallel; of a load and a store (384) do
// not.
func.func @straight_line(%in: memref<2x96x8x8xf32>, %out: memref<2x96x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c96 = arith.constant 96 : index
  scf.parallel (%n, %c) = (%c0, %c0) to (%c2, %c96) step (%c1, %c1) {
    %r0 = vector.load %in[%n, %c, %c0, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
    %r1 = vector.load %in[%n, %c, %c1, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
    %r2 = vector.load %in[%n, %c, %c2, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
    %r3 = vector.load %in[%n, %c, %c3, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
    %r4 = vector.load %in[%n, %c, %c4, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
    %r5 = vector.load %in[%n, %c, %c5, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
    %r6 = vector.load %in[%n, %c, %c6, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
    %r7 = vector.load %in[%n, %c, %c7, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
    %s0 = arith.addf %r0, %r1 : vector<8xf32>
    %s1 = arith.addf %r2, %r3 : vector<8xf32>
    %s2 = arith.addf %r4, %r5 : vector<8xf32>
    %s3 = arith.addf %r6, %r7 : vector<8xf32>
    %t0 = arith.addf %s0, %s1 : vector<8xf32>
    %t1 = arith.addf %s2, %s3 : vector<8xf32>
    %sum = arith.addf %t0, %t1 : vector<8xf32>
    vector.store %sum, %out[%n, %c, %c0] : memref<2x96x8xf32>, vector<8xf32>
  }
  return
}

func.func @straight_line_light(%in: memref<2x96x8xf32>, %out: memref<2x96x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c96 = arith.constant 96 : index
  scf.parallel (%n, %c) = (%c0, %c0) to (%c2, %c96) step (%c1, %c1) {
    %r = vector.load %in[%n, %c, %c0] : memref<2x96x8xf32>, vector<8xf32>
    %d = arith.addf %r, %r : vector<8xf32>
    vector.store %d, %out[%n, %c, %c0] : memref<2x96x8xf32>, vector<8xf32>
  }
  return
}

// The accesses in an scf.if's branches count as well: 2 x 96 x (8 + 1).
func.func @accesses_in_branches(%in: memref<2x96x8x8xf32>, %out: memref<2x96x8xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c96 = arith.constant 96 : index
  scf.parallel (%n, %c) = (%c0, %c0) to (%c2, %c96) step (%c1, %c1) {
    scf.if %flag {
      %r0 = vector.load %in[%n, %c, %c0, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
      %r1 = vector.load %in[%n, %c, %c1, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
      %r2 = vector.load %in[%n, %c, %c2, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
      %r3 = vector.load %in[%n, %c, %c3, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
      %r4 = vector.load %in[%n, %c, %c4, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
      %r5 = vector.load %in[%n, %c, %c5, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
      %r6 = vector.load %in[%n, %c, %c6, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
      %r7 = vector.load %in[%n, %c, %c7, %c0] : memref<2x96x8x8xf32>, vector<8xf32>
      %s0 = arith.addf %r0, %r1 : vector<8xf32>
      %s1 = arith.addf %r2, %r3 : vector<8xf32>
      %s2 = arith.addf %r4, %r5 : vector<8xf32>
      %s3 = arith.addf %r6, %r7 : vector<8xf32>
      %t0 = arith.addf %s0, %s1 : vector<8xf32>
      %t1 = arith.addf %s2, %s3 : vector<8xf32>
      %sum = arith.addf %t0, %t1 : vector<8xf32>
      vector.store %sum, %out[%n, %c, %c0] : memref<2x96x8xf32>, vector<8xf32>
    }
  }
  return
}
