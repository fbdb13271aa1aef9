// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=512 join-rows=false}),canonicalize,cse)' | FileCheck %s
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=256 join-rows=false}),canonicalize,cse)' | FileCheck %s --check-prefix=NARROW

// Rows of 23: a vector of 16, then the remainder of 7 as one vector of 8
// with its last lane masked off (its loads read 7 elements, the others
// hold 1; its store writes 7) where AVX-512 runs whole 512-bit vectors;
// on a 256-bit datapath, vectors of 4, 2 and 1.
// CHECK-LABEL: func.func @rows_of_23
// CHECK-DAG: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : vector<8xf32>
// CHECK: vector.load %{{.*}} : memref<4x23xf32>, vector<16xf32>
// CHECK: vector.store %{{.*}} : memref<4x23xf32>, vector<16xf32>
// CHECK: %[[MASK:.*]] = vector.constant_mask [7] : vector<8xi1>
// CHECK: vector.maskedload %{{.*}}[%{{.*}}, %c16], %[[MASK]], %[[ONES]] : memref<4x23xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: arith.addf {{.*}} : vector<8xf32>
// CHECK: vector.maskedstore %{{.*}}[%{{.*}}, %c16], %[[MASK]], %{{.*}} : memref<4x23xf32>, vector<8xi1>, vector<8xf32>
// NARROW-LABEL: func.func @rows_of_23
// NARROW-NOT: vector.masked
// NARROW: vector.store %{{.*}} : memref<4x23xf32>, vector<4xf32>
// NARROW: vector.store %{{.*}} : memref<4x23xf32>, vector<2xf32>
// NARROW: vector.store %{{.*}} : memref<4x23xf32>, vector<1xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows_of_23(%a: memref<4x23xf32>, %b: memref<4x23xf32>, %c: memref<4x23xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<4x23xf32>, memref<4x23xf32>) outs(%c : memref<4x23xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An integer division on a masked remainder: the lanes past the row hold 1,
// so the divisor is never 0 there (LLVM divides a vector of integers lane
// by lane, and a 0 traps).
// CHECK-LABEL: func.func @division_of_rows_of_6
// CHECK-DAG: %[[ONES:.*]] = arith.constant dense<1> : vector<8xi32>
// CHECK: vector.maskedload %{{.*}}, %{{.*}}, %[[ONES]] : memref<3x6xi32>, vector<8xi1>, vector<8xi32> into vector<8xi32>
// CHECK: arith.divsi {{.*}} : vector<8xi32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @division_of_rows_of_6(%a: memref<3x6xi32>, %b: memref<3x6xi32>, %c: memref<3x6xi32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<3x6xi32>, memref<3x6xi32>) outs(%c : memref<3x6xi32>) {
  ^bb0(%x: i32, %y: i32, %out: i32):
    %q = arith.divsi %x, %y : i32
    linalg.yield %q : i32
  }
  return
}

// -----

// A pooling's strided views, rows of 11 outputs from inputs 2 apart: one
// vector of 16 with 11 lanes, which reads the span of its 11 lanes (21
// elements) with one masked load, keeps every other element and fills the
// lanes past the row with 1.
// CHECK-LABEL: func.func @strided_rows_of_11
// CHECK-DAG: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK: %[[SPAN:.*]] = vector.constant_mask [21] : vector<32xi1>
// CHECK: %[[READ:.*]] = vector.maskedload %{{.*}}, %[[SPAN]], %{{.*}} : memref<2x23xf32, strided<[23, 1]>>, vector<32xi1>, vector<32xf32> into vector<32xf32>
// CHECK: %[[KEPT:.*]] = vector.shuffle %[[READ]], %[[READ]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK: %[[LANES:.*]] = vector.constant_mask [11] : vector<16xi1>
// CHECK: arith.select %[[LANES]], %[[KEPT]], %[[ONES]] : vector<16xi1>, vector<16xf32>
// CHECK: vector.maskedstore %{{.*}}, %[[LANES]], %{{.*}} : memref<2x11xf32>, vector<16xi1>, vector<16xf32>
#in = affine_map<(d0, d1) -> (d0, d1 * 2)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @strided_rows_of_11(%a: memref<2x23xf32>, %c: memref<2x11xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]} ins(%a : memref<2x23xf32>) outs(%c : memref<2x11xf32>) {
  ^bb0(%x: f32, %out: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  }
  return
}
