// RUN: jeet-opt %s --split-input-file --jeet-cpu-vectorize-pad | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-cpu-vectorize-pad --jeet-cpu-vectorize-elementwise=datapath-bits=256 | FileCheck %s --check-prefix=VEC

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
// Both become vectors (jeet-cpu-vectorize-elementwise): the fill of the
// contiguous result one run of 24 (its loops folded: a store of 16 and one
// of 8), the copy across its short rows (joined rows) one load of the
// input's 6 elements spread to the interior's positions (rows 6 apart) and
// one masked store.
// VEC-LABEL: func.func @pad
// VEC-NOT: linalg.generic
// VEC: memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<4x6xf32> into memref<24xf32>
// VEC: vector.store {{.*}} : memref<24xf32>, vector<16xf32>
// VEC: vector.store {{.*}} : memref<24xf32>, vector<8xf32>
// VEC: vector.maskedload %{{.*}} : memref<6xf32, strided<[1], offset: ?>>
// VEC: vector.shuffle {{.*}} [0, 1, 2, 0, 0, 0, 3, 4, 5,
// VEC: vector.maskedstore %{{.*}} : memref<9xf32, strided<[1], offset: ?>>
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

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A pad fused into the tiles of a batched matmul (seed 498119 of
// fuzz_numerics.py): tile %b computes batch %b of a 1x7x32 input padded to 8
// batches, reading batch clamp(%b) where %b < 1 and the padding elsewhere.
// Its generic is one batch of the pad, not the whole: it is left as it is
// (rewritten as a fill and a copy of the whole input, every batch was a copy
// of batch 0).
// CHECK-LABEL: func.func @pad_in_a_tile
// CHECK: scf.forall (%[[B:.*]]) in (8)
// CHECK: linalg.generic {{.*}} attrs = {jeet.pad_low = array<i64: 0, 0, 0>}
// CHECK: arith.cmpi slt, %[[B]]
// CHECK: arith.select
// CHECK-NOT: linalg.generic
// CHECK: }
func.func @pad_in_a_tile(%x: memref<1x7x32xf32>, %out: memref<8x7x32xf32>) {
  %cst = arith.constant 2.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  scf.forall (%b) in (8) {
    %tile = memref.subview %out[%b, 0, 0] [1, 7, 32] [1, 1, 1] : memref<8x7x32xf32> to memref<1x7x32xf32, strided<[224, 32, 1], offset: ?>>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%tile : memref<1x7x32xf32, strided<[224, 32, 1], offset: ?>>) attrs = {jeet.pad_low = array<i64: 0, 0, 0>} {
    ^bb0(%o: f32):
      %0 = arith.cmpi sge, %b, %c0 : index
      %1 = arith.cmpi slt, %b, %c1 : index
      %2 = arith.andi %0, %1 : i1
      %3 = arith.maxsi %b, %c0 : index
      %4 = arith.minsi %3, %c0 : index
      %5 = linalg.index 1 : index
      %6 = arith.cmpi sge, %5, %c0 : index
      %7 = arith.cmpi slt, %5, %c7 : index
      %8 = arith.andi %6, %7 : i1
      %9 = arith.andi %2, %8 : i1
      %10 = arith.maxsi %5, %c0 : index
      %11 = arith.minsi %10, %c6 : index
      %12 = linalg.index 2 : index
      %13 = arith.cmpi sge, %12, %c0 : index
      %14 = arith.cmpi slt, %12, %c32 : index
      %15 = arith.andi %13, %14 : i1
      %16 = arith.andi %9, %15 : i1
      %17 = arith.maxsi %12, %c0 : index
      %18 = arith.minsi %17, %c31 : index
      %19 = memref.load %x[%4, %11, %18] : memref<1x7x32xf32>
      %20 = arith.select %16, %19, %cst : f32
      linalg.yield %20 : f32
    }
  }
  return
}
