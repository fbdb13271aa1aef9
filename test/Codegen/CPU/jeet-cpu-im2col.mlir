// RUN: jeet-opt %s --split-input-file --jeet-cpu-im2col --canonicalize | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-cpu-im2col=parallel=false | FileCheck %s --check-prefix=SERIAL

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// A 3x3 window, stride 1, over a pad of 1: the pad is absorbed (its generic
// and buffer go) and each (n, c) of the result is written row by row. For
// kernel offset (0, 0): output row 0 is padding, rows 1 to 3 get padding in
// column 0 and input row oh - 1 in columns 1 to 19 (a vector of 16, one of
// 2, one element).
// CHECK-LABEL: func.func @absorbed
// CHECK-SAME: (%[[X:[^:]*]]: memref<2x3x4x20xf32>, %[[W:[^:]*]]: memref<2x3x3x3x4x20xf32>)
// CHECK-NOT: jeet.pad_low
// CHECK-NOT: linalg.generic
// CHECK: %[[WIN:.*]] = memref.alloc() : memref<2x3x3x3x4x20xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%[[N:.*]], %[[C:.*]]) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1) {
// CHECK-NEXT: vector.store %{{.*}}, %[[WIN]][%[[N]], %[[C]], %c0, %c0, %c0, %c0] : memref<2x3x3x3x4x20xf32>, vector<16xf32>
// CHECK-NEXT: vector.store %{{.*}}, %[[WIN]][%[[N]], %[[C]], %c0, %c0, %c0, %c16] : memref<2x3x3x3x4x20xf32>, vector<4xf32>
// CHECK-NEXT: scf.for %[[OH:.*]] = %c1 to %c4 step %c1 {
// CHECK-NEXT: memref.store %{{.*}}, %[[WIN]][%[[N]], %[[C]], %c0, %c0, %[[OH]], %c0]
// CHECK-NEXT: %[[IH:.*]] = arith.addi %[[OH]], %c-1 : index
// CHECK-NEXT: %[[R0:.*]] = vector.load %[[X]][%[[N]], %[[C]], %[[IH]], %c0] : memref<2x3x4x20xf32>, vector<16xf32>
// CHECK-NEXT: vector.store %[[R0]], %[[WIN]][%[[N]], %[[C]], %c0, %c0, %[[OH]], %c1] : memref<2x3x3x3x4x20xf32>, vector<16xf32>
// CHECK-NEXT: %[[R1:.*]] = vector.load %[[X]][%[[N]], %[[C]], %[[IH]], %c16] : memref<2x3x4x20xf32>, vector<2xf32>
// CHECK-NEXT: vector.store %[[R1]], %[[WIN]][%[[N]], %[[C]], %c0, %c0, %[[OH]], %c17] : memref<2x3x3x3x4x20xf32>, vector<2xf32>
// CHECK-NEXT: %[[R2:.*]] = memref.load %[[X]][%[[N]], %[[C]], %[[IH]], %c18] : memref<2x3x4x20xf32>
// CHECK-NEXT: memref.store %[[R2]], %[[WIN]][%[[N]], %[[C]], %c0, %c0, %[[OH]], %c19] : memref<2x3x3x3x4x20xf32>
// CHECK-NEXT: }
// The last kernel offset (2, 2): row 3 is padding, rows 0 to 2 read input
// rows 1 to 3 from column 1 on, with padding in column 19.
// CHECK: vector.store %{{.*}}, %[[WIN]][%[[N]], %[[C]], %c2, %c2, %c3, %c0] : memref<2x3x3x3x4x20xf32>, vector<16xf32>
// CHECK-NEXT: vector.store %{{.*}}, %[[WIN]][%[[N]], %[[C]], %c2, %c2, %c3, %c16] : memref<2x3x3x3x4x20xf32>, vector<4xf32>
// CHECK-NEXT: scf.for %[[OH2:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: memref.store %{{.*}}, %[[WIN]][%[[N]], %[[C]], %c2, %c2, %[[OH2]], %c19]
// CHECK-NEXT: %[[IH2:.*]] = arith.addi %[[OH2]], %c1 : index
// CHECK-NEXT: vector.load %[[X]][%[[N]], %[[C]], %[[IH2]], %c1] : memref<2x3x4x20xf32>, vector<16xf32>
// CHECK: memref.copy %[[WIN]], %[[W]]
// CHECK-NEXT: memref.dealloc %[[WIN]]
// SERIAL-LABEL: func.func @absorbed
// SERIAL-NOT: scf.parallel
// SERIAL: scf.for
func.func @absorbed(%x: memref<2x3x4x20xf32>, %w: memref<2x3x3x3x4x20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %padded = memref.alloc() : memref<2x3x6x22xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<2x3x6x22xf32>) attrs = {jeet.pad_low = array<i64: 0, 0, 1, 1>} {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %h = arith.subi %i2, %c1 : index
    %v = arith.subi %i3, %c1 : index
    %hc = arith.maxsi %h, %c0 : index
    %vc = arith.maxsi %v, %c0 : index
    %in = arith.cmpi eq, %h, %hc : index
    %e = memref.load %x[%i0, %i1, %hc, %vc] : memref<2x3x4x20xf32>
    %s = arith.select %in, %e, %zero : f32
    linalg.yield %s : f32
  }
  %windows = memref.alloc() : memref<2x3x3x3x4x20xf32>
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%padded : memref<2x3x6x22xf32>) outs(%windows : memref<2x3x3x3x4x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %padded : memref<2x3x6x22xf32>
  memref.copy %windows, %w : memref<2x3x3x3x4x20xf32> to memref<2x3x3x3x4x20xf32>
  memref.dealloc %windows : memref<2x3x3x3x4x20xf32>
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// The pad's input is an intermediate freed after the pad, its last reader
// until now: the free moves after the copies that read it instead.
// CHECK-LABEL: func.func @source_freed_after
// CHECK: %[[SRC:.*]] = memref.alloc() : memref<2x3x4x20xf32>
// CHECK: linalg.fill {{.*}} outs(%[[SRC]]
// CHECK-NOT: memref.dealloc %[[SRC]]
// CHECK: scf.parallel
// CHECK: vector.load %[[SRC]]
// CHECK: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[SRC]]
func.func @source_freed_after(%value: f32, %w: memref<2x3x3x3x4x20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<2x3x4x20xf32>
  linalg.fill ins(%value : f32) outs(%x : memref<2x3x4x20xf32>)
  %padded = memref.alloc() : memref<2x3x6x22xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<2x3x6x22xf32>) attrs = {jeet.pad_low = array<i64: 0, 0, 1, 1>} {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %h = arith.subi %i2, %c1 : index
    %v = arith.subi %i3, %c1 : index
    %hc = arith.maxsi %h, %c0 : index
    %vc = arith.maxsi %v, %c0 : index
    %in = arith.cmpi eq, %h, %hc : index
    %e = memref.load %x[%i0, %i1, %hc, %vc] : memref<2x3x4x20xf32>
    %s = arith.select %in, %e, %zero : f32
    linalg.yield %s : f32
  }
  memref.dealloc %x : memref<2x3x4x20xf32>
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%padded : memref<2x3x6x22xf32>) outs(%w : memref<2x3x3x3x4x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %padded : memref<2x3x6x22xf32>
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// The padded buffer has another reader (it is copied out): the pad stays,
// and the rows are copied from it, with no padding of their own.
// CHECK-LABEL: func.func @pad_read_elsewhere
// CHECK-SAME: (%[[X:[^:]*]]: memref<2x3x4x20xf32>, %[[W:[^:]*]]: memref<2x3x3x3x4x20xf32>, %[[P:[^:]*]]: memref<2x3x6x22xf32>)
// CHECK: %[[PADDED:.*]] = memref.alloc() : memref<2x3x6x22xf32>
// CHECK: linalg.generic {{.*}} outs(%[[PADDED]] : memref<2x3x6x22xf32>) attrs = {jeet.pad_low
// CHECK: scf.parallel
// CHECK-NOT: memref.store
// CHECK: vector.load %[[PADDED]][%{{.*}}, %{{.*}}, %{{.*}}, %c0] : memref<2x3x6x22xf32>, vector<16xf32>
// CHECK: memref.copy %[[PADDED]], %[[P]]
func.func @pad_read_elsewhere(%x: memref<2x3x4x20xf32>, %w: memref<2x3x3x3x4x20xf32>, %p: memref<2x3x6x22xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %padded = memref.alloc() : memref<2x3x6x22xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<2x3x6x22xf32>) attrs = {jeet.pad_low = array<i64: 0, 0, 1, 1>} {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %h = arith.subi %i2, %c1 : index
    %v = arith.subi %i3, %c1 : index
    %hc = arith.maxsi %h, %c0 : index
    %vc = arith.maxsi %v, %c0 : index
    %in = arith.cmpi eq, %h, %hc : index
    %e = memref.load %x[%i0, %i1, %hc, %vc] : memref<2x3x4x20xf32>
    %s = arith.select %in, %e, %zero : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%padded : memref<2x3x6x22xf32>) outs(%w : memref<2x3x3x3x4x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.copy %padded, %p : memref<2x3x6x22xf32> to memref<2x3x6x22xf32>
  memref.dealloc %padded : memref<2x3x6x22xf32>
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// The pad's input written between the pad and the im2col (a result
// computed in place in it): copies from it where the im2col was would read
// what was written. The pad stays, and the rows are copied from its result.
// CHECK-LABEL: func.func @pad_input_written_before_the_im2col
// CHECK: %[[PADDED:.*]] = memref.alloc() : memref<2x3x6x22xf32>
// CHECK: linalg.generic {{.*}} outs(%[[PADDED]] : memref<2x3x6x22xf32>) attrs = {jeet.pad_low
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<2x3x4x20xf32>)
// CHECK: scf.parallel
// CHECK: vector.load %[[PADDED]]
func.func @pad_input_written_before_the_im2col(%x: memref<2x3x4x20xf32>, %w: memref<2x3x3x3x4x20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %padded = memref.alloc() : memref<2x3x6x22xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<2x3x6x22xf32>) attrs = {jeet.pad_low = array<i64: 0, 0, 1, 1>} {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %h = arith.subi %i2, %c1 : index
    %v = arith.subi %i3, %c1 : index
    %hc = arith.maxsi %h, %c0 : index
    %vc = arith.maxsi %v, %c0 : index
    %in = arith.cmpi eq, %h, %hc : index
    %e = memref.load %x[%i0, %i1, %hc, %vc] : memref<2x3x4x20xf32>
    %s = arith.select %in, %e, %zero : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%x : memref<2x3x4x20xf32>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    linalg.yield %n : f32
  }
  %windows = memref.alloc() : memref<2x3x3x3x4x20xf32>
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%padded : memref<2x3x6x22xf32>) outs(%windows : memref<2x3x3x3x4x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %padded : memref<2x3x6x22xf32>
  memref.copy %windows, %w : memref<2x3x3x3x4x20xf32> to memref<2x3x3x3x4x20xf32>
  memref.dealloc %windows : memref<2x3x3x3x4x20xf32>
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// The pad's input and the windows are both function arguments, which the
// caller might have made one buffer: the pad stays.
// CHECK-LABEL: func.func @arguments_may_alias
// CHECK: linalg.generic {{.*}} attrs = {jeet.pad_low
// CHECK: scf.parallel
func.func @arguments_may_alias(%x: memref<2x3x4x20xf32>, %w: memref<2x3x3x3x4x20xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %padded = memref.alloc() : memref<2x3x6x22xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%padded : memref<2x3x6x22xf32>) attrs = {jeet.pad_low = array<i64: 0, 0, 1, 1>} {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %h = arith.subi %i2, %c1 : index
    %v = arith.subi %i3, %c1 : index
    %hc = arith.maxsi %h, %c0 : index
    %vc = arith.maxsi %v, %c0 : index
    %in = arith.cmpi eq, %h, %hc : index
    %e = memref.load %x[%i0, %i1, %hc, %vc] : memref<2x3x4x20xf32>
    %s = arith.select %in, %e, %zero : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#win, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%padded : memref<2x3x6x22xf32>) outs(%w : memref<2x3x3x3x4x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %padded : memref<2x3x6x22xf32>
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#win2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2 * 2, d5 * 5 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// Strides (2, 5) and a dilation of 2 along H, no pad: a stride over 4 along
// W is copied one element at a time (input column ow * 5 + kw).
// CHECK-LABEL: func.func @strided
// CHECK-SAME: (%[[X:[^:]*]]: memref<1x2x9x12xf32>, %[[W:[^:]*]]: memref<1x2x2x2x3x3xf32>)
// CHECK: scf.parallel (%[[C:.*]]) = (%c0) to (%c2) step (%c1) {
// CHECK-NEXT: scf.for %[[OH:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: %[[IH:.*]] = arith.muli %[[OH]], %c2 : index
// CHECK-NEXT: scf.for %[[OW:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: %[[IW:.*]] = arith.muli %[[OW]], %c5 : index
// CHECK-NEXT: %[[E:.*]] = memref.load %[[X]][%c0, %[[C]], %[[IH]], %[[IW]]]
// CHECK-NEXT: memref.store %[[E]], %[[W]][%c0, %[[C]], %c0, %c0, %[[OH]], %[[OW]]]
// CHECK-NOT: vector.
// CHECK: return
func.func @strided(%x: memref<1x2x9x12xf32>, %w: memref<1x2x2x2x3x3xf32>) {
  linalg.generic {indexing_maps = [#win2, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x9x12xf32>) outs(%w : memref<1x2x2x2x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#win2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>

// Stride 2 along W: a run of output columns loads twice as many input
// elements and keeps the even ones, as far as both elements of every pair
// lie in the row. At kw = 0 the four columns are one run (input columns 0
// to 7); at kw = 2 a run of four would read column 9, past the row's end:
// two columns are one run (columns 2 to 5), the last two are copied alone.
// CHECK-LABEL: func.func @stride_two
// CHECK-SAME: (%[[X:[^:]*]]: memref<1x1x5x9xf32>, %[[W:[^:]*]]: memref<1x1x3x3x2x4xf32>)
// CHECK: scf.for %[[OH:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: %[[IH:.*]] = arith.muli %[[OH]], %c2 : index
// CHECK-NEXT: %[[V:.*]] = vector.load %[[X]][%c0, %c0, %[[IH]], %c0] : memref<1x1x5x9xf32>, vector<8xf32>
// CHECK-NEXT: %[[E:.*]] = vector.shuffle %[[V]], %[[V]] [0, 2, 4, 6] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: vector.store %[[E]], %[[W]][%c0, %c0, %c0, %c0, %[[OH]], %c0] : memref<1x1x3x3x2x4xf32>, vector<4xf32>
// CHECK-NEXT: }
// CHECK: scf.for %[[OH2:.*]] = %c0 to %c2 step %c1 {
// CHECK: scf.for %[[OH3:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT: %[[IH3:.*]] = arith.muli %[[OH3]], %c2 : index
// CHECK-NEXT: %[[V3:.*]] = vector.load %[[X]][%c0, %c0, %[[IH3]], %c2] : memref<1x1x5x9xf32>, vector<4xf32>
// CHECK-NEXT: %[[E3:.*]] = vector.shuffle %[[V3]], %[[V3]] [0, 2] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %[[E3]], %[[W]][%c0, %c0, %c0, %c2, %[[OH3]], %c0] : memref<1x1x3x3x2x4xf32>, vector<2xf32>
// CHECK-NEXT: %[[L3:.*]] = memref.load %[[X]][%c0, %c0, %[[IH3]], %c6]
// CHECK-NEXT: memref.store %[[L3]], %[[W]][%c0, %c0, %c0, %c2, %[[OH3]], %c2]
// CHECK-NEXT: %[[M3:.*]] = memref.load %[[X]][%c0, %c0, %[[IH3]], %c8]
// CHECK-NEXT: memref.store %[[M3]], %[[W]][%c0, %c0, %c0, %c2, %[[OH3]], %c3]
// CHECK: return
func.func @stride_two(%x: memref<1x1x5x9xf32>, %w: memref<1x1x3x3x2x4xf32>) {
  linalg.generic {indexing_maps = [#win2, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x5x9xf32>) outs(%w : memref<1x1x3x3x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#other = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d3, d5 + d2)>

// Not an im2col (the kernel offsets swap their spatial dimensions): left
// alone.
// CHECK-LABEL: func.func @not_im2col
// CHECK: linalg.generic
// CHECK-NOT: scf.parallel
func.func @not_im2col(%x: memref<1x1x4x4xf32>, %w: memref<1x1x2x2x3x3xf32>) {
  linalg.generic {indexing_maps = [#other, #id6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x4x4xf32>) outs(%w : memref<1x1x2x2x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
