// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-reductions{datapath-bits=256}),canonicalize,cse)' | FileCheck %s
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-reductions{parallel=false vector-width=16 datapath-bits=256}),canonicalize,cse)' | FileCheck %s --check-prefix=SEQ

// A row maximum over 300 columns: per row, 4 vectors of 64 lanes accumulate
// from -inf, the remainder (44 = 32 + 8 + 4) folds into the row's initial
// value, and one vector.reduction combines the lanes. Rows are parallel.
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_max
// CHECK-SAME: (%[[X:.*]]: memref<8x300xf32>, %[[M:.*]]: memref<8xf32>)
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant dense<0xFF800000> : vector<64xf32>
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[INIT:.*]] = memref.load %[[M]][%[[I]]]
// CHECK: %[[ACC:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[NEGINF]]) -> (vector<64xf32>)
// CHECK: %[[V:.*]] = vector.load %[[X]][%[[I]], %[[J]]] : memref<8x300xf32>, vector<64xf32>
// CHECK: %[[R:.*]] = arith.maximumf %[[A]], %[[V]] : vector<64xf32>
// CHECK: scf.yield %[[R]]
// CHECK: vector.load {{.*}} vector<32xf32>
// CHECK: %[[R32:.*]] = vector.reduction <maximumf>, %{{.*}}, %[[INIT]] : vector<32xf32> into f32
// CHECK: vector.load {{.*}} vector<8xf32>
// CHECK: %[[R8:.*]] = vector.reduction <maximumf>, %{{.*}}, %[[R32]] : vector<8xf32> into f32
// CHECK: vector.load {{.*}} vector<4xf32>
// CHECK: %[[R4:.*]] = vector.reduction <maximumf>, %{{.*}}, %[[R8]] : vector<4xf32> into f32
// CHECK: %[[ALL:.*]] = vector.reduction <maximumf>, %[[ACC]], %[[R4]] : vector<64xf32> into f32
// CHECK: memref.store %[[ALL]], %[[M]][%[[I]]]
// CHECK: scf.reduce

// SEQ-LABEL: func.func @row_max
// SEQ-NOT: scf.parallel
// SEQ: scf.for
// SEQ: scf.for {{.*}} -> (vector<16xf32>)
// SEQ: vector.reduction <maximumf>, {{.*}} : vector<8xf32> into f32
// SEQ: vector.reduction <maximumf>, {{.*}} : vector<4xf32> into f32
// SEQ: vector.reduction <maximumf>, {{.*}} : vector<16xf32> into f32
func.func @row_max(%x: memref<8x300xf32>, %m: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x300xf32>) outs(%m : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Softmax's denominator: the prologue exp(x - max[row]) reads the row's max
// once (uniform) and is computed on vectors; the float sum starts from -0.0
// and reduces the lanes as a tree (reassoc).
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @sum_of_exp
// CHECK-DAG: arith.constant dense<-0.000000e+00> : vector<64xf32>
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: scf.for
// CHECK: vector.load {{.*}} vector<64xf32>
// CHECK: %[[MAX:.*]] = memref.load %{{.*}}[%[[I]]] : memref<4xf32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[MAX]] : f32 to vector<64xf32>
// CHECK: arith.subf %{{.*}}, %[[SPLAT]] : vector<64xf32>
// CHECK: math.exp {{.*}} : vector<64xf32>
// CHECK: arith.addf {{.*}} : vector<64xf32>
// CHECK: vector.reduction <add>, {{.*}} fastmath<reassoc> : vector<64xf32> into f32
func.func @sum_of_exp(%x: memref<4x256xf32>, %max: memref<4xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #rows, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : memref<4x256xf32>, memref<4xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// Two trailing reduction loops (a sum over axes 1 and 2; rows of 130 = 2 * 64
// + 2): the outer one is an scf.for carrying the partial vector and the
// scalar; an i32 sum starts at 0.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#first = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @sum_two_axes
// CHECK: scf.parallel
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<64xi32>, i32)
// CHECK: scf.for {{.*}} -> (vector<64xi32>)
// CHECK: arith.addi {{.*}} : vector<64xi32>
// CHECK: vector.reduction <add>, {{.*}} : vector<2xi32> into i32
// CHECK: vector.reduction <add>, {{.*}} : vector<64xi32> into i32
func.func @sum_two_axes(%x: memref<2x3x130xi32>, %s: memref<2xi32>) {
  linalg.generic {indexing_maps = [#id, #first], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<2x3x130xi32>) outs(%s : memref<2xi32>) {
  ^bb0(%in: i32, %out: i32):
    %0 = arith.addi %out, %in : i32
    linalg.yield %0 : i32
  }
  return
}

// -----

// Left alone: a reduction over the outer loop (the column sums), and a body
// whose accumulator feeds more than the combiner.
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.reduction
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: vector.reduction
func.func @left_alone(%x: memref<4x64xf32>, %c: memref<64xf32>, %r: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<4x64xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %out, %in : f32
    %1 = arith.addf %0, %out : f32
    linalg.yield %1 : f32
  }
  return
}
