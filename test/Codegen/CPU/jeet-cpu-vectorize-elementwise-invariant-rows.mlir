// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=512}),canonicalize,cse)' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A channels-last depthwise sum's shape: (positions, channels) times rows of
// taps that every position reads again. Three rows of 1152 floats (13.5 KiB)
// outgrow the 8 KiB a chunk may take: the chunks, of 672 elements (3 x 672 x
// 4 bytes within 8 KiB, whole vectors), are the outer dimension of the
// parallel loop and the positions the inner, so that a chunk's taps stay in
// L1 across the positions. The remainder (8 of 1160) is the last chunk's.
// CHECK-LABEL: func.func @taps
// CHECK-DAG: %[[C672:.*]] = arith.constant 672 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : index
// CHECK: scf.parallel (%[[CHUNK:.*]], %[[POS:.*]]) = (%{{.*}}, %{{.*}}) to (%[[C2]], %[[C9]])
// CHECK: %[[START:.*]] = arith.muli %[[CHUNK]], %[[C672]]
// CHECK: scf.for %[[I:.*]] = %[[START]] to %{{.*}} step %c16
// CHECK: vector.load %{{.*}}[%[[I]]] : memref<1160xf32>, vector<16xf32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%[[POS]], %[[I]]] : memref<9x1160xf32>, vector<16xf32>
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[CHUNK]], %c1
// CHECK: scf.if %[[LAST]]
// CHECK: vector.store %{{.*}}, %{{.*}}[%[[POS]], %c1152] : memref<9x1160xf32>, vector<8xf32>
func.func @taps(%x: memref<9x1160xf32>, %w0: memref<1160xf32>, %w1: memref<1160xf32>, %w2: memref<1160xf32>, %o: memref<9x1160xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %w0, %w1, %w2 : memref<9x1160xf32>, memref<1160xf32>, memref<1160xf32>, memref<1160xf32>) outs(%o : memref<9x1160xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32, %out: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.mulf %a, %c : f32
    %2 = arith.addf %0, %1 : f32
    %3 = arith.mulf %a, %d : f32
    %4 = arith.addf %2, %3 : f32
    linalg.yield %4 : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// One row (a bias, 4.5 KiB) stays in L1 as it is: the positions stay the
// outer dimension, one chunk each.
// CHECK-LABEL: func.func @bias
// CHECK: scf.parallel (%[[POS:.*]]) = (%{{.*}}) to (%c9)
// CHECK: scf.for %{{.*}} = %c0 to %c1152 step %c16
func.func @bias(%x: memref<9x1152xf32>, %w0: memref<1152xf32>, %o: memref<9x1152xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %w0 : memref<9x1152xf32>, memref<1152xf32>) outs(%o : memref<9x1152xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  }
  return
}
