// RUN: jeet-opt %s --split-input-file --jeet-cpu-vectorize-window-reductions | FileCheck %s

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d2)>

// A 2x2 max pooling (the input as (H/2, 2, W/2, 2)): per 8 outputs, one
// load of 16 inputs split into its even and odd lanes, combined over the
// window's rows in the scalar loop's order.
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[X:[^:]*]]: memref<4x2x8x2xf32>, %[[O:[^:]*]]: memref<4x8xf32>)
// CHECK: %[[ROWS:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0], [1], [2, 3]] : memref<4x2x8x2xf32> into memref<4x2x16xf32>
// CHECK: scf.parallel (%[[H:.*]]) =
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[ACC:.*]] = vector.load %[[O]][%[[H]], %[[J]]] : memref<4x8xf32>, vector<8xf32>
// CHECK: %[[R:.*]] = scf.for %[[KH:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[ACC]]) -> (vector<8xf32>) {
// CHECK: %[[V:.*]] = vector.load %[[ROWS]][%[[H]], %[[KH]], %{{.*}}] : memref<4x2x16xf32>, vector<16xf32>
// CHECK: %[[EVEN:.*]] = vector.shuffle %[[V]], %[[V]] [0, 2, 4, 6, 8, 10, 12, 14]
// CHECK: %[[M0:.*]] = arith.maximumf %[[A]], %[[EVEN]] : vector<8xf32>
// CHECK: %[[ODD:.*]] = vector.shuffle %[[V]], %[[V]] [1, 3, 5, 7, 9, 11, 13, 15]
// CHECK: %[[M1:.*]] = arith.maximumf %[[M0]], %[[ODD]] : vector<8xf32>
// CHECK: scf.yield %[[M1]] : vector<8xf32>
// CHECK: vector.store %[[R]], %[[O]][%[[H]], %[[J]]]
// CHECK-NOT: linalg.generic
func.func @max_pool(%x: memref<4x2x8x2xf32>, %o: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%x : memref<4x2x8x2xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>

// A sum over windows of 3 with the input first: 3 shuffles of every third
// lane, the operands in the body's order.
// CHECK-LABEL: func.func @sum_rows_of_three
// CHECK: vector.load %{{.*}} : memref<12xf32>, vector<12xf32>
// CHECK: vector.shuffle %{{.*}} [0, 3, 6, 9]
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: vector.shuffle %{{.*}} [1, 4, 7, 10]
// CHECK: vector.shuffle %{{.*}} [2, 5, 8, 11]
func.func @sum_rows_of_three(%x: memref<4x3xf32>, %o: memref<4xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x3xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d2)>

// A row of 14 outputs, which no width divides (a 2x2 pooling of 28
// columns): a step of 8 outputs in the loop, then one of the last 6 (12
// inputs loaded, 6-lane vectors), where the generic's scalar loops ran
// 5-10 times slower.
// CHECK-LABEL: func.func @row_with_a_remainder
// CHECK-SAME: (%[[X:[^:]*]]: memref<4x2x14x2xf32>, %[[O:[^:]*]]: memref<4x14xf32>)
// CHECK: %[[END:.*]] = arith.constant 8 : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[END]] step %{{.*}} {
// CHECK: vector.load %{{.*}} : memref<4x2x28xf32>, vector<16xf32>
// CHECK: vector.store %{{.*}}, %[[O]][%{{.*}}, %[[J]]] : memref<4x14xf32>, vector<8xf32>
// CHECK: }
// CHECK: %[[ACC:.*]] = vector.load %[[O]][%{{.*}}, %[[END]]] : memref<4x14xf32>, vector<6xf32>
// CHECK: scf.for
// CHECK: %[[V:.*]] = vector.load %{{.*}} : memref<4x2x28xf32>, vector<12xf32>
// CHECK: vector.shuffle %[[V]], %[[V]] [0, 2, 4, 6, 8, 10] : vector<12xf32>, vector<12xf32>
// CHECK: vector.shuffle %[[V]], %[[V]] [1, 3, 5, 7, 9, 11] : vector<12xf32>, vector<12xf32>
// CHECK: vector.store %{{.*}}, %[[O]][%{{.*}}, %[[END]]] : memref<4x14xf32>, vector<6xf32>
// CHECK-NOT: linalg.generic
func.func @row_with_a_remainder(%x: memref<4x2x14x2xf32>, %o: memref<4x14xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%x : memref<4x2x14x2xf32>) outs(%o : memref<4x14xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0) -> (d0)>

// An epilogue that yields a value from outside its body (`s - s` folded to
// 0): the value splat and stored (the pass crashed storing a null value;
// fuzz_numerics.py seed 594,268).
// CHECK-LABEL: func.func @epilogue_yields_a_constant
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: vector.shuffle
// CHECK: %[[S:.*]] = vector.broadcast %[[Z]] : i32 to vector<4xi32>
// CHECK: vector.store %[[S]]
// CHECK-NOT: linalg.generic
func.func @epilogue_yields_a_constant(%x: memref<4x3xi32>, %o: memref<4xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%o : memref<4xi32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x3xi32>) outs(%o : memref<4xi32>) {
  ^bb0(%in: i32, %out: i32):
    %0 = arith.addi %out, %in : i32
    linalg.yield %0 : i32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%o : memref<4xi32>) outs(%o : memref<4xi32>) {
  ^bb0(%in: i32, %out: i32):
    linalg.yield %c0 : i32
  }
  return
}

// -----

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>

// Left alone: a long innermost reduction (a row sum, for
// jeet-cpu-vectorize-reductions), a row of one output, and a body that
// computes more than the combining op.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.shuffle
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: vector.shuffle
func.func @left_alone(%a: memref<4x64xf32>, %b: memref<1x2xf32>, %c: memref<4x2xf32>, %o: memref<4xf32>, %p: memref<1xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%a : memref<4x64xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%b : memref<1x2xf32>) outs(%p : memref<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%c : memref<4x2xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// An average pooling as the pipeline has it: the fill of its output before
// the sum and the division of the sums in place after it join the sum's
// loop: the accumulator starts as a splat of the fill's value (no load of
// the output) and is divided before its one store.
// CHECK-LABEL: func.func @avg_pool_fill_and_division
// CHECK-SAME: (%[[X:[^:]*]]: memref<4x2x8x2xf32>, %[[O:[^:]*]]: memref<4x8xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: scf.parallel (%[[H:.*]]) =
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT: vector.load %[[O]]
// CHECK: %[[ACC:.*]] = vector.broadcast %[[ZERO]] : f32 to vector<8xf32>
// CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8xf32>) {
// CHECK: arith.addf %{{.*}} : vector<8xf32>
// CHECK: arith.addf %{{.*}} : vector<8xf32>
// CHECK: scf.yield
// CHECK: %[[D:.*]] = vector.broadcast %[[FOUR]] : f32 to vector<8xf32>
// CHECK: %[[Q:.*]] = arith.divf %[[R]], %[[D]] : vector<8xf32>
// CHECK: vector.store %[[Q]], %[[O]][%[[H]], %[[J]]]
// CHECK-NOT: linalg.generic
func.func @avg_pool_fill_and_division(%x: memref<4x2x8x2xf32>, %o: memref<4x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %four = arith.constant 4.000000e+00 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%x : memref<4x2x8x2xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%o : memref<4x8xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %four : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Neighbours left alone: a fill of another buffer, an op between the fill
// and the reduction, and a generic after it that reads what it overwrites
// (its init) or writes elsewhere.
// CHECK-LABEL: func.func @neighbours_left_alone
// CHECK-SAME: (%[[X:[^:]*]]: memref<4x2x8x2xf32>, %[[O:[^:]*]]: memref<4x8xf32>, %[[P:[^:]*]]: memref<4x8xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : memref<4x8xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[O]] : memref<4x8xf32>)
// CHECK: memref.store
// CHECK: vector.load %[[O]]
// CHECK-NOT: arith.divf {{.*}} vector
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @neighbours_left_alone(%x: memref<4x2x8x2xf32>, %o: memref<4x8xf32>, %p: memref<4x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %four = arith.constant 4.000000e+00 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%zero : f32) outs(%p : memref<4x8xf32>)
  linalg.fill ins(%zero : f32) outs(%o : memref<4x8xf32>)
  memref.store %four, %o[%c0, %c0] : memref<4x8xf32>
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%x : memref<4x2x8x2xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%o : memref<4x8xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%o : memref<4x8xf32>) outs(%p : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %four : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d2)>

// A max pooling of a relu's results, as a convolution's tile has them (the
// epilogue writes the tile's buffer, the pooling reads it reshaped): every
// value is +0 or more, or NaN, and the windows are combined as unsigned
// integers from +0 (vpmaxud), not with maximumf from -inf.
// CHECK-LABEL: func.func @max_pool_of_relu
// CHECK-NOT: linalg.fill
// CHECK: scf.for
// CHECK-NEXT: %[[PZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ACC:.*]] = vector.broadcast %[[PZERO]] : f32 to vector<8xf32>
// CHECK: scf.for %{{.*}} iter_args(%[[A:.*]] = %[[ACC]]) -> (vector<8xf32>) {
// CHECK: %[[EVEN:.*]] = vector.shuffle
// CHECK: %[[AI:.*]] = arith.bitcast %[[A]] : vector<8xf32> to vector<8xi32>
// CHECK: %[[EI:.*]] = arith.bitcast %[[EVEN]] : vector<8xf32> to vector<8xi32>
// CHECK: %[[M:.*]] = arith.maxui %[[AI]], %[[EI]] : vector<8xi32>
// CHECK: arith.bitcast %[[M]] : vector<8xi32> to vector<8xf32>
// CHECK: arith.maxui
// CHECK-NOT: arith.maximumf {{.*}} vector
// CHECK: vector.store
func.func @max_pool_of_relu(%x: memref<8x16xf32>, %b: memref<16xf32>, %o: memref<4x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %tile = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : memref<8x16xf32>, memref<16xf32>) outs(%tile : memref<8x16xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  %windows = memref.expand_shape %tile [[0, 1], [2, 3]] output_shape [4, 2, 8, 2] : memref<8x16xf32> into memref<4x2x8x2xf32>
  linalg.fill ins(%ninf : f32) outs(%o : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%windows : memref<4x2x8x2xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %tile : memref<8x16xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d2)>

// Where the values may be negative, or the relu's buffer may have been
// written since, maximumf stays: a max with -1 (not a relu), a store into
// the tile after the relu, and a pooling of a function argument.
// CHECK-LABEL: func.func @max_pool_maybe_negative
// CHECK-NOT: arith.maxui
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK-NOT: arith.maxui
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK-NOT: arith.maxui
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK-NOT: arith.maxui
// CHECK: return
func.func @max_pool_maybe_negative(%x: memref<8x16xf32>, %y: memref<4x2x8x2xf32>, %o: memref<4x8xf32>) {
  %minus = arith.constant -1.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : index
  %tile = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x16xf32>) outs(%tile : memref<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %minus : f32
    linalg.yield %r : f32
  }
  %windows = memref.expand_shape %tile [[0, 1], [2, 3]] output_shape [4, 2, 8, 2] : memref<8x16xf32> into memref<4x2x8x2xf32>
  linalg.fill ins(%ninf : f32) outs(%o : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%windows : memref<4x2x8x2xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  %tile2 = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x16xf32>) outs(%tile2 : memref<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  }
  memref.store %minus, %tile2[%c0, %c0] : memref<8x16xf32>
  %windows2 = memref.expand_shape %tile2 [[0, 1], [2, 3]] output_shape [4, 2, 8, 2] : memref<8x16xf32> into memref<4x2x8x2xf32>
  linalg.fill ins(%ninf : f32) outs(%o : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%windows2 : memref<4x2x8x2xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%ninf : f32) outs(%o : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "reduction"]} ins(%y : memref<4x2x8x2xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %tile : memref<8x16xf32>
  memref.dealloc %tile2 : memref<8x16xf32>
  return
}
