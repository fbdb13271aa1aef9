// RUN: jeet-opt %s --split-input-file --jeet-cpu-vectorize-pad | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-cpu-vectorize-pad --jeet-cpu-vectorize-elementwise | FileCheck %s --check-prefix=VEC

#map = affine_map<(d0, d1) -> (d0, d1)>

// A pad whose value is a 0-d buffer: the value is loaded once, the result
// filled with it, and the input copied into the interior at the low padding.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:[^:]*]]: memref<2x3xf32>, %[[V:[^:]*]]: memref<f32>, %[[O:[^:]*]]: memref<4x6xf32>)
// CHECK: %[[P:.*]] = memref.load %[[V]][] : memref<f32>
// CHECK: linalg.generic {{.*}} outs(%[[O]] : memref<4x6xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[P]] : f32
// CHECK: %[[IN:.*]] = memref.subview %[[O]][1, 2] [2, 3] [1, 1] : memref<4x6xf32> to memref<2x3xf32, strided<[6, 1], offset: 8>>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<2x3xf32>) outs(%[[IN]] : memref<2x3xf32, strided<[6, 1], offset: 8>>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[A]] : f32
// CHECK-NOT: arith.select
// CHECK-NOT: jeet.pad_low
// Both become vector loops.
// VEC-LABEL: func.func @pad
// VEC-NOT: linalg.generic
// VEC: vector.store
// VEC: vector.load %{{.*}} : memref<2x3xf32>
// VEC: vector.store {{.*}} : memref<2x3xf32, strided<[6, 1], offset: 8>>
func.func @pad(%x: memref<2x3xf32>, %v: memref<f32>, %o: memref<4x6xf32>) {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%o : memref<4x6xf32>) attrs = {jeet.pad_low = array<i64: 1, 2>} {
  ^bb0(%out: f32):
    %0 = memref.load %v[] : memref<f32>
    %1 = linalg.index 0 : index
    %2 = arith.subi %1, %c1 : index
    %3 = arith.cmpi sge, %2, %c0 : index
    %4 = arith.cmpi slt, %2, %c2 : index
    %5 = arith.andi %3, %4 : i1
    %6 = arith.maxsi %2, %c0 : index
    %7 = arith.minsi %6, %c1 : index
    %8 = linalg.index 1 : index
    %9 = arith.subi %8, %c2 : index
    %10 = arith.cmpi sge, %9, %c0 : index
    %11 = arith.cmpi slt, %9, %c3 : index
    %12 = arith.andi %10, %11 : i1
    %13 = arith.andi %5, %12 : i1
    %14 = arith.maxsi %9, %c0 : index
    %15 = arith.minsi %14, %c2 : index
    %16 = memref.load %x[%7, %15] : memref<2x3xf32>
    %17 = arith.select %13, %16, %0 : f32
    linalg.yield %17 : f32
  }
  return
}

// -----

#map = affine_map<(d0) -> (d0)>

// A padding value defined outside the body (a folded constant) is used as
// it is.
// CHECK-LABEL: func.func @constant_value
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: linalg.yield %[[ZERO]] : f32
// CHECK: memref.subview %{{.*}}[2] [4] [1]
func.func @constant_value(%x: memref<4xf32>, %o: memref<7xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%o : memref<7xf32>) attrs = {jeet.pad_low = array<i64: 2>} {
  ^bb0(%out: f32):
    %0 = linalg.index 0 : index
    %1 = arith.subi %0, %c2 : index
    %2 = arith.cmpi sge, %1, %c0 : index
    %3 = arith.cmpi slt, %1, %c4 : index
    %4 = arith.andi %2, %3 : i1
    %5 = arith.maxsi %1, %c0 : index
    %6 = arith.minsi %5, %c3 : index
    %7 = memref.load %x[%6] : memref<4xf32>
    %8 = arith.select %4, %7, %cst : f32
    linalg.yield %8 : f32
  }
  return
}

// -----

#map = affine_map<(d0) -> (d0)>

// A marked generic whose body computes more than the select (an epilogue),
// and a generic without the mark, are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: memref.subview
// CHECK: arith.select
// CHECK: arith.maximumf
// CHECK: arith.select
// CHECK-NOT: memref.subview
func.func @left_alone(%x: memref<4xf32>, %o: memref<7xf32>, %p: memref<7xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%o : memref<7xf32>) attrs = {jeet.pad_low = array<i64: 2>} {
  ^bb0(%out: f32):
    %0 = linalg.index 0 : index
    %1 = arith.subi %0, %c2 : index
    %2 = arith.cmpi sge, %1, %c0 : index
    %3 = arith.cmpi slt, %1, %c4 : index
    %4 = arith.andi %2, %3 : i1
    %5 = arith.maxsi %1, %c0 : index
    %6 = arith.minsi %5, %c3 : index
    %7 = memref.load %x[%6] : memref<4xf32>
    %8 = arith.select %4, %7, %cst : f32
    %9 = arith.maximumf %8, %cst : f32
    linalg.yield %9 : f32
  }
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%p : memref<7xf32>) {
  ^bb0(%out: f32):
    %0 = linalg.index 0 : index
    %1 = arith.subi %0, %c2 : index
    %2 = arith.cmpi sge, %1, %c0 : index
    %3 = arith.cmpi slt, %1, %c4 : index
    %4 = arith.andi %2, %3 : i1
    %5 = arith.maxsi %1, %c0 : index
    %6 = arith.minsi %5, %c3 : index
    %7 = memref.load %x[%6] : memref<4xf32>
    %8 = arith.select %4, %7, %cst : f32
    linalg.yield %8 : f32
  }
  return
}
