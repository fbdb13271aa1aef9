// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=256},jeet-cpu-vectorize-reductions{datapath-bits=256}),canonicalize,cse)' | FileCheck %s
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{join-rows=false datapath-bits=256},jeet-cpu-vectorize-reductions{join-rows=false datapath-bits=256}),canonicalize,cse)' | FileCheck %s --check-prefix=ROWS
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=512},jeet-cpu-vectorize-reductions{datapath-bits=512}),canonicalize,cse)' | FileCheck %s --check-prefix=WIDE

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>

// Two taps of a depthwise convolution (windows of a padded input: rows of 6
// that are 10 apart) times a filter value per channel: the 6 x 6 positions
// are one grid of 56 (5 x 10 + 6). Vectors of 8 would cost least (7, a
// 512-bit vector counting as two 256-bit ones: 4 of 16 cost 8, the rows
// 12); 4 of 16 are within a seventh of that and less code. Each tap is a
// load of 16 positions (the lanes between rows are elements of its view,
// read and never used), the last vector, which would run past the grid's 56
// positions, the 16 that end there, its lanes moved up by a shuffle: no
// masked load (several loads' cost on some cores). The filter value is read
// once per channel. The packed output's 36 positions (12, 8, 10 and 6 from
// the four vectors) are stored as whole vectors as soon as they are
// computed, each gathered by shuffles from the vectors holding its lanes:
// [0, 16) after the second vector, [16, 32) after the fourth, and the last
// 16, [20, 36), stored again where they overlap; no masked store.
// CHECK-LABEL: func.func @taps
// CHECK: scf.parallel (%{{.*}}, %[[C:.*]]) =
// CHECK: %[[T0:.*]] = memref.reinterpret_cast {{.*}} sizes: [56], strides: [1]
// CHECK: %[[T1:.*]] = memref.reinterpret_cast {{.*}} sizes: [56], strides: [1]
// CHECK: memref.load %{{.*}}[%[[C]]] : memref<4xf32>
// CHECK: %[[OUT:.*]] = memref.reinterpret_cast {{.*}} sizes: [36], strides: [1]
// CHECK-NOT: memref.load
// CHECK: vector.load %[[T0]][%c0] : memref<56xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: vector.load %[[T1]][%c0]
// CHECK: vector.load %[[T0]][%c16]
// CHECK: vector.load %[[T1]][%c16]
// CHECK: %[[V0:.*]] = vector.shuffle %[[R0:.*]], %[[R0]] [0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 0, 0, 0, 0]
// CHECK: %[[W0:.*]] = vector.shuffle %[[V0]], %[[R1:.*]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 20, 21, 22, 23]
// CHECK: vector.store %[[W0]], %[[OUT]][%c0] : memref<36xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: vector.load %[[T0]][%c32]
// CHECK: vector.load %[[T1]][%c32]
// CHECK: %[[L0:.*]] = vector.load %[[T0]][%c40]
// CHECK: vector.shuffle %[[L0]], %[[L0]] [8, 9, 10, 11, 12, 13, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15]
// CHECK: vector.load %[[T1]][%c40]
// CHECK: vector.shuffle %[[R1]], %[[R1]] [8, 9, 14, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// CHECK: vector.store %{{.*}}, %[[OUT]][%c16]
// CHECK: vector.store %{{.*}}, %[[OUT]][%c20]
// CHECK-NOT: vector.maskedstore
// CHECK-NOT: vector.maskedload
// CHECK: scf.reduce
// ROWS-LABEL: func.func @taps
// ROWS: vector<4xf32>
// ROWS: vector<2xf32>
// ROWS-NOT: vector.maskedload
func.func @taps(%p: memref<2x4x10x10xf32>, %f: memref<4xf32>, %o: memref<2x4x6x6xf32>) {
  %t0 = memref.subview %p[0, 0, 0, 0] [2, 4, 6, 6] [1, 1, 1, 1] : memref<2x4x10x10xf32> to memref<2x4x6x6xf32, strided<[400, 100, 10, 1]>>
  %t1 = memref.subview %p[0, 0, 4, 4] [2, 4, 6, 6] [1, 1, 1, 1] : memref<2x4x10x10xf32> to memref<2x4x6x6xf32, strided<[400, 100, 10, 1], offset: 44>>
  linalg.generic {indexing_maps = [#id, #id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t0, %t1, %f : memref<2x4x6x6xf32, strided<[400, 100, 10, 1]>>, memref<2x4x6x6xf32, strided<[400, 100, 10, 1], offset: 44>>, memref<4xf32>) outs(%o : memref<2x4x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %w: f32, %out: f32):
    %m = arith.mulf %a, %w : f32
    %s = arith.addf %m, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#ch = affine_map<(d0, d1, d2) -> (d0)>

// Packed rows of 5 (a squeeze-and-excitation scale applied to 5 x 5
// positions): 25 elements, two vectors of 16 (rows: 5 x (4 + 1)); the first
// holds only positions on rows, a load and a store; the second 9, the 16
// elements that end at the last (a load from 9, moved up by 7), and the
// output's last 16 positions, 7 from the first vector and 9 from the
// second, one store from 9.
// CHECK-LABEL: func.func @packed
// CHECK: scf.parallel
// CHECK: vector.load %{{.*}}[%c0] : memref<25xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: vector.store %[[FIRST:.*]], %{{.*}}[%c0] : memref<25xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: %[[END:.*]] = vector.load %{{.*}}[%c9] : memref<25xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: vector.shuffle %[[END]], %[[END]] [7, 8, 9, 10, 11, 12, 13, 14, 15, 15, 15, 15, 15, 15, 15, 15]
// CHECK: %[[HEAD:.*]] = vector.shuffle %[[FIRST]], %[[FIRST]] [9, 10, 11, 12, 13, 14, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// CHECK: %[[LAST:.*]] = vector.shuffle %[[HEAD]], %{{.*}} [0, 1, 2, 3, 4, 5, 6, 16, 17, 18, 19, 20, 21, 22, 23, 24]
// CHECK: vector.store %[[LAST]], %{{.*}}[%c9] : memref<25xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK-NOT: vector.maskedload
// CHECK-NOT: vector.maskedstore
func.func @packed(%x: memref<3x5x5xf32>, %s: memref<3xf32>, %o: memref<3x5x5xf32>) {
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %s : memref<3x5x5xf32>, memref<3xf32>) outs(%o : memref<3x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A stride-2 window (3 x 3 positions of an 8 x 8 padded input): rows 16
// elements apart, elements 2 apart, a grid of rows 8 positions apart. Each
// vector of 8 positions is a load of its span of 16 elements and a shuffle
// keeping every other; the last, whose span would run past the view's 37
// elements, the 16 that end there (from 21), moved up by 11.
// CHECK-LABEL: func.func @strided
// CHECK: %[[IN:.*]] = memref.reinterpret_cast {{.*}} sizes: [37], strides: [1]
// CHECK: %[[A:.*]] = vector.load %[[IN]][%c0] : memref<37xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: vector.shuffle %[[A]], %[[A]] [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK: vector.load %[[IN]][%c16]
// CHECK: %[[END:.*]] = vector.load %[[IN]][%c21]
// CHECK: vector.shuffle %[[END]], %[[END]] [11, 12, 13, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15]
// CHECK-NOT: vector.maskedload
// ROWS-LABEL: func.func @strided
// ROWS-NOT: memref.reinterpret_cast {{.*}} sizes: [37]
func.func @strided(%p: memref<2x4x8x8xf32>, %o: memref<2x4x3x3xf32>) {
  %t0 = memref.subview %p[0, 0, 1, 1] [2, 4, 3, 3] [1, 1, 2, 2] : memref<2x4x8x8xf32> to memref<2x4x3x3xf32, strided<[256, 64, 16, 2], offset: 9>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t0 : memref<2x4x3x3xf32, strided<[256, 64, 16, 2], offset: 9>>) outs(%o : memref<2x4x3x3xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Left to the row by row loop: inputs whose rows are different distances
// apart (10 and 12), a body with an integer division (a lane between rows
// would divide by the zero its masked load put there), and rows of 8 that
// fill vectors of 8 already.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: vector.maskedload
// CHECK-NOT: vector.maskedstore
// CHECK: return
func.func @rows(%p: memref<6x10xf32>, %q: memref<6x12xf32>, %o: memref<6x6xf32>, %i: memref<6x6xi32>, %j: memref<6x6xi32>, %k: memref<2x8xf32>, %l: memref<2x8xf32>) {
  %a = memref.subview %p[0, 0] [6, 6] [1, 1] : memref<6x10xf32> to memref<6x6xf32, strided<[10, 1]>>
  %b = memref.subview %q[0, 0] [6, 6] [1, 1] : memref<6x12xf32> to memref<6x6xf32, strided<[12, 1]>>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<6x6xf32, strided<[10, 1]>>, memref<6x6xf32, strided<[12, 1]>>) outs(%o : memref<6x6xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%i : memref<6x6xi32>) outs(%j : memref<6x6xi32>) {
  ^bb0(%x: i32, %out: i32):
    %d = arith.divsi %x, %x : i32
    linalg.yield %d : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%k : memref<2x8xf32>) outs(%l : memref<2x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0)>

// A sum over a window's 6 x 6 positions (rows 10 apart) per channel: the
// grid's 56 positions as one vector of 64 lanes (four 512-bit registers,
// the width of the pass's partial results; within a seventh of 7 vectors of
// 8; a masked load of the 56 in the view), the lanes between rows replaced
// by the sum's identity (-0.0), then the lanes reduced with the output's
// value.
// CHECK-LABEL: func.func @sum
// CHECK: %[[ID:.*]] = arith.constant dense<-0.000000e+00> : vector<64xf32>
// CHECK: scf.parallel
// CHECK: %[[IN_VIEW:.*]] = vector.constant_mask [56] : vector<64xi1>
// CHECK: %[[V:.*]] = vector.maskedload {{.*}}, %[[IN_VIEW]], {{.*}} : memref<56xf32, strided<[1], offset: ?>>, vector<64xi1>, vector<64xf32> into vector<64xf32>
// CHECK: %[[E:.*]] = math.exp %[[V]] : vector<64xf32>
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[E]], %[[ID]] : vector<64xi1>, vector<64xf32>
// CHECK: vector.reduction <add>, %[[S]], %{{.*}} fastmath<reassoc> : vector<64xf32> into f32
// ROWS-LABEL: func.func @sum
// ROWS-NOT: vector.maskedload
// ROWS: vector.reduction
func.func @sum(%p: memref<4x10x10xf32>, %o: memref<4xf32>) {
  %w = memref.subview %p[0, 1, 1] [4, 6, 6] [1, 1, 1] : memref<4x10x10xf32> to memref<4x6x6xf32, strided<[100, 10, 1], offset: 11>>
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%w : memref<4x6x6xf32, strided<[100, 10, 1], offset: 11>>) outs(%o : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %e = math.exp %x : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Rows of 12 of a 5x5 depthwise convolution's window (a 16 x 16 padded
// input: rows 16 apart, a grid of 188 positions). With a 512-bit vector
// costing two 256-bit ones, 12 vectors of 16 (24) cost as much as the rows
// (12 rows of 8 + 4 lanes, 24): the row by row loop. On a core that
// executes 512 bits whole (datapath-bits=512, WIDE) the 12 vectors cost 12
// against the rows' 24: joined, each vector one row and the 4 positions of
// the padding after it (12 loads), the packed output stored as 9 whole
// vectors.
// CHECK-LABEL: func.func @rows_of_twelve
// CHECK-NOT: memref.reinterpret_cast
// CHECK: vector.load {{.*}} vector<8xf32>
// CHECK: vector.load {{.*}} vector<4xf32>
// WIDE-LABEL: func.func @rows_of_twelve
// WIDE: %[[T:.*]] = memref.reinterpret_cast {{.*}} sizes: [188], strides: [1]
// WIDE-COUNT-12: vector.load %[[T]]{{.*}} vector<16xf32>
// WIDE-NOT: vector<8xf32>
// WIDE: scf.reduce
func.func @rows_of_twelve(%p: memref<1x4x16x16xf32>, %o: memref<1x4x12x12xf32>) {
  %t = memref.subview %p[0, 0, 2, 2] [1, 4, 12, 12] [1, 1, 1, 1] : memref<1x4x16x16xf32> to memref<1x4x12x12xf32, strided<[1024, 256, 16, 1], offset: 34>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : memref<1x4x12x12xf32, strided<[1024, 256, 16, 1], offset: 34>>) outs(%o : memref<1x4x12x12xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  }
  return
}
