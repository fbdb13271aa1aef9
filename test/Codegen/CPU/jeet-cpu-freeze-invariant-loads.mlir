// RUN: jeet-opt %s --split-input-file --jeet-cpu-freeze-invariant-loads | FileCheck %s

// A load of the same element on every iteration is frozen; its uses read
// the frozen value. A load that moves with the loop is left alone.
// CHECK-LABEL: func.func @broadcast_base
// CHECK:         scf.for %[[I:.*]] =
// CHECK-NEXT:      %[[X:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK-NEXT:      %[[F:.*]] = llvm.freeze %[[X]] : i32
// CHECK-NEXT:      %[[E:.*]] = memref.load %{{.*}}[%[[I]]] : memref<165xi32>
// CHECK-NEXT:      %[[S:.*]] = arith.muli %[[F]], %[[F]] : i32
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[S]], %[[E]] : i32
// CHECK-NEXT:      memref.store %[[P]]
// CHECK-NOT:     llvm.freeze
func.func @broadcast_base(%base: memref<i32>, %exponent: memref<165xi32>,
                          %out: memref<165xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c165 = arith.constant 165 : index
  scf.for %i = %c0 to %c165 step %c1 {
    %x = memref.load %base[] : memref<i32>
    %e = memref.load %exponent[%i] : memref<165xi32>
    %s = arith.muli %x, %x : i32
    %p = arith.muli %s, %e : i32
    memref.store %p, %out[%i] : memref<165xi32>
  }
  return
}

// -----

// Invariant in the inner loop: the row's element, its index computed inside
// the loop from the outer loop's index alone.
// CHECK-LABEL: func.func @one_per_row
// CHECK:         scf.for %[[I:.*]] =
// CHECK:           scf.for %[[J:.*]] =
// CHECK-NEXT:        %[[R:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:        %[[X:.*]] = memref.load %{{.*}}[%[[R]]] : memref<6xf32>
// CHECK-NEXT:        %[[F:.*]] = llvm.freeze %[[X]] : f32
// CHECK-NEXT:        %[[Y:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<5x33xf32>
// CHECK-NOT:         llvm.freeze
// CHECK:             arith.addf %[[F]], %[[Y]]
func.func @one_per_row(%rows: memref<6xf32>, %y: memref<5x33xf32>,
                       %out: memref<5x33xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c33 = arith.constant 33 : index
  scf.for %i = %c0 to %c5 step %c1 {
    scf.for %j = %c0 to %c33 step %c1 {
      %r = arith.addi %i, %c1 : index
      %x = memref.load %rows[%r] : memref<6xf32>
      %v = memref.load %y[%i, %j] : memref<5x33xf32>
      %s = arith.addf %x, %v : f32
      memref.store %s, %out[%i, %j] : memref<5x33xf32>
    }
  }
  return
}

// -----

// A gather at an index loaded from the same element on every iteration
// is the same on every iteration too (the index, of index type, is not
// frozen itself).
// CHECK-LABEL: func.func @uniform_gather
// CHECK:         scf.for
// CHECK-NEXT:      %[[K:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<8xindex>
// CHECK-NEXT:      %[[X:.*]] = memref.load %{{.*}}[%[[K]]] : memref<4xf32>
// CHECK-NEXT:      %[[F:.*]] = llvm.freeze %[[X]] : f32
// CHECK-NEXT:      memref.store %[[F]]
func.func @uniform_gather(%a: memref<4xf32>, %indices: memref<8xindex>,
                          %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %k = memref.load %indices[%c0] : memref<8xindex>
    %x = memref.load %a[%k] : memref<4xf32>
    memref.store %x, %out[%i] : memref<8xf32>
  }
  return
}

// -----

// Left alone: a load outside loops, loads at an index that moves with the
// loop or is read at one, an accumulator the loop writes back (through a
// view of the same buffer), which LLVM must still see as a reduction, and a
// load broadcast in a loop of vectors (which LLVM does not vectorize).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     llvm.freeze
// CHECK:         return
func.func @left_alone(%a: memref<4xf32>, %indices: memref<8xindex>,
                      %acc: memref<2xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %first = memref.load %a[%c0] : memref<4xf32>
  memref.store %first, %out[%c0] : memref<8xf32>
  %view = memref.subview %acc[1] [1] [1]
      : memref<2xf32> to memref<f32, strided<[], offset: 1>>
  scf.for %i = %c0 to %c8 step %c1 {
    %k = memref.load %indices[%i] : memref<8xindex>
    %x = memref.load %a[%k] : memref<4xf32>
    memref.store %x, %out[%i] : memref<8xf32>
    %s = memref.load %acc[%c1] : memref<2xf32>
    %t = arith.addf %s, %x : f32
    memref.store %t, %view[] : memref<f32, strided<[], offset: 1>>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %y = memref.load %a[%c1] : memref<4xf32>
    %v = vector.broadcast %y : f32 to vector<8xf32>
    vector.store %v, %out[%c0] : memref<8xf32>, vector<8xf32>
  }
  return
}
