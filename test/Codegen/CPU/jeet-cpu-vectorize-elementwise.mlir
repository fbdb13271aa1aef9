// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=256}),canonicalize,cse)' | FileCheck %s
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=512},jeet-cpu-vectorize-reductions{datapath-bits=512}),canonicalize,cse)' | FileCheck %s --check-prefix=BOTH

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>

// relu(a + b) with b broadcast along the rows and c along the columns: a and
// the output are vectors, b a vector per row, c a scalar splat. 37 columns
// are two vectors of 16 and a remainder of 4 + 1. Rows and chunks are the
// parallel loop.
// CHECK-LABEL: func.func @broadcast
// CHECK-NOT: linalg.generic
// CHECK: scf.parallel
// CHECK: scf.for {{.*}} step %c16
// CHECK-DAG: vector.load %{{.*}} : memref<5x37xf32>, vector<16xf32>
// CHECK-DAG: vector.load %{{.*}} : memref<37xf32>, vector<16xf32>
// CHECK-DAG: %[[C:.*]] = memref.load %{{.*}} : memref<5xf32>
// CHECK: vector.broadcast %[[C]] : f32 to vector<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}} : memref<5x37xf32>, vector<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<4xf32>
// CHECK: vector.store {{.*}} : memref<5x37xf32>, vector<4xf32>
// CHECK: arith.maximumf {{.*}} : vector<1xf32>
// CHECK: vector.store {{.*}} : memref<5x37xf32>, vector<1xf32>
// CHECK: scf.reduce
func.func @broadcast(%a: memref<5x37xf32>, %b: memref<37xf32>, %c: memref<5xf32>, %o: memref<5x37xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c : memref<5x37xf32>, memref<37xf32>, memref<5xf32>) outs(%o : memref<5x37xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.mulf %0, %z : f32
    %2 = arith.maximumf %1, %zero : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

#id1 = affine_map<(d0) -> (d0)>

// f16 in, f32 math, f16 out: the casts are vectorised like any other op. One
// chunk: the parallel loop of one iteration folds away.
// CHECK-LABEL: func.func @cast
// CHECK: scf.for {{.*}} step %c16
// CHECK: vector.load %{{.*}} : memref<64xf16>, vector<16xf16>
// CHECK: arith.extf {{.*}} : vector<16xf16> to vector<16xf32>
// CHECK: math.exp {{.*}} : vector<16xf32>
// CHECK: arith.truncf {{.*}} : vector<16xf32> to vector<16xf16>
func.func @cast(%a: memref<64xf16>, %o: memref<64xf16>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : memref<64xf16>) outs(%o : memref<64xf16>) {
  ^bb0(%x: f16, %out: f16):
    %0 = arith.extf %x : f16 to f32
    %1 = math.exp %0 : f32
    %2 = arith.truncf %1 : f32 to f16
    linalg.yield %2 : f16
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#transposed = affine_map<(d0, d1) -> (d1, d0)>

// A transposed read along the innermost dimension is read element by
// element into a vector (the loop steps the input's rows: lane l reads
// a[x + l, row]), the rest on vectors; a reduction along it is left to
// jeet-cpu-vectorize-reductions.
// CHECK-LABEL: func.func @unsupported
// CHECK: %[[E0:.*]] = memref.load %{{.*}}[%c0, %[[ROW:.*]]] : memref<4x4xf32>
// CHECK: %[[E1:.*]] = memref.load %{{.*}}[%c1, %[[ROW]]] : memref<4x4xf32>
// CHECK: %[[E2:.*]] = memref.load %{{.*}}[%c2, %[[ROW]]] : memref<4x4xf32>
// CHECK: %[[E3:.*]] = memref.load %{{.*}}[%c3, %[[ROW]]] : memref<4x4xf32>
// CHECK: %[[V:.*]] = vector.from_elements %[[E0]], %[[E1]], %[[E2]], %[[E3]] : vector<4xf32>
// CHECK: vector.store %[[V]], %{{.*}}[%[[ROW]], %c0] : memref<4x4xf32>, vector<4xf32>
// CHECK: linalg.generic
// CHECK-SAME: "reduction"
func.func @unsupported(%a: memref<4x4xf32>, %o: memref<4x4xf32>, %r: memref<4xf32>) {
  linalg.generic {indexing_maps = [#transposed, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%o : memref<4x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x4xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %0 = arith.addf %x, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A reduction over the outer loop (column sums of exp(x), 3000 columns):
// chunks of 1024 columns run in parallel; in each, the rows are reduced in
// order, each step reading 16 lanes of the output, adding and storing them
// back (the scalar loop's order, so the same sums). The last chunk ends with
// the remainder (3000 = 187 * 16 + 8).
#id = affine_map<(d0, d1) -> (d0, d1)>
#cols = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @column_sums
// CHECK-SAME: (%[[X:.*]]: memref<100x3000xf32>, %[[S:.*]]: memref<3000xf32>)
// CHECK: scf.parallel (%[[CHUNK:.*]]) = (%{{.*}}) to (%c3) step
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %c100 step
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: %[[V:.*]] = vector.load %[[X]][%[[ROW]], %[[COL]]] : memref<100x3000xf32>, vector<16xf32>
// CHECK: %[[OLD:.*]] = vector.load %[[S]][%[[COL]]] : memref<3000xf32>, vector<16xf32>
// CHECK: %[[E:.*]] = math.exp %[[V]] : vector<16xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[E]] : vector<16xf32>
// CHECK: vector.store %[[NEW]], %[[S]][%[[COL]]] : memref<3000xf32>, vector<16xf32>
// CHECK: scf.if
// CHECK: vector<8xf32>
// CHECK-NOT: nontemporal
// CHECK: return
func.func @column_sums(%x: memref<100x3000xf32>, %s: memref<3000xf32>) {
  linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<100x3000xf32>) outs(%s : memref<3000xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = math.exp %in : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// An input read at sums of loops (im2col: row oh + kh, column ow + kw) is
// loaded as vectors along the innermost loop: its indices are computed from
// the loop indices, the last one kw + ow with unit stride.
// CHECK-LABEL: func.func @im2col
// CHECK-NOT: linalg.generic
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}, %[[ROW]], %[[COL]]] : memref<1x2x10x34xf32>, vector<16xf32>
// CHECK: vector.store {{.*}} : memref<1x2x3x3x8x32xf32>, vector<16xf32>
func.func @im2col(%x: memref<1x2x10x34xf32>, %o: memref<1x2x3x3x8x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x2x10x34xf32>) outs(%o : memref<1x2x3x3x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// With a stride of 2 along the columns (a strided convolution's windows),
// the 31 elements from a vector's first lane to its last are two loads of
// 16 through a view of the same memory with unit stride, the first 16 and
// the last 16 (they overlap: nothing past the last element is read, and no
// masked load, which costs several loads on some cores), and a shuffle
// keeps every other one.
// CHECK-LABEL: func.func @strided_columns
// CHECK-NOT: linalg.generic
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c2 : index
// CHECK: %[[START:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [1, 1, 10, 66], strides: [660, 660, 66, 1]
// CHECK: %[[HEAD:.*]] = vector.load %[[VIEW]][%c0, %c0, %{{.*}}, %[[START]]] : {{.*}}, vector<16xf32>
// CHECK: %[[TAIL_AT:.*]] = arith.addi %[[START]], %c15 : index
// CHECK: %[[TAIL:.*]] = vector.load %[[VIEW]][%c0, %c0, %{{.*}}, %[[TAIL_AT]]] : {{.*}}, vector<16xf32>
// CHECK: %[[EVEN:.*]] = vector.shuffle %[[HEAD]], %[[TAIL]] [0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31] : vector<16xf32>, vector<16xf32>
// CHECK: vector.store %[[EVEN]], %{{.*}} : memref<1x1x3x3x8x32xf32>, vector<16xf32>
func.func @strided_columns(%x: memref<1x1x10x66xf32>, %o: memref<1x1x3x3x8x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 * 2 + d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<1x1x10x66xf32>) outs(%o : memref<1x1x3x3x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// A view with a stride of 3 along its rows (a slice x[:, 1::3]) is read the
// same way: its elements from the first lane's to the last's through a view
// with unit stride (sizes 3 x 8 + 1: the row's span), a shuffle keeping
// every third (two loads, the span's first 16 elements and its last 8).
// The remainder column is one lane of a masked load of 3 (a single lane's
// span is shorter than the two loads).
// CHECK-LABEL: func.func @strided_view
// CHECK-NOT: linalg.generic
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %{{.*}} to offset: [1], sizes: [4, 25], strides: [40, 1]
// CHECK: %[[HEAD:.*]] = vector.load %[[VIEW]][%{{.*}}, %c0] : {{.*}}, vector<16xf32>
// CHECK: %[[TAIL:.*]] = vector.load %[[VIEW]][%{{.*}}, %c14] : {{.*}}, vector<8xf32>
// CHECK: %[[X:.*]] = vector.shuffle %[[HEAD]], %[[TAIL]] [0, 3, 6, 9, 12, 15, 20, 23] : vector<16xf32>, vector<8xf32>
// CHECK: %[[Y:.*]] = vector.load %{{.*}} : memref<4x9xf32>, vector<8xf32>
// CHECK: arith.mulf %[[X]], %[[Y]] : vector<8xf32>
// CHECK: vector.constant_mask [1] : vector<3xi1>
// CHECK: vector.shuffle %{{.*}} [0] : vector<3xf32>, vector<3xf32>
// CHECK: arith.mulf %{{.*}} : vector<1xf32>
func.func @strided_view(%x: memref<4x9xf32, strided<[40, 3], offset: 1>>, %y: memref<4x9xf32>, %o: memref<4x9xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<4x9xf32, strided<[40, 3], offset: 1>>, memref<4x9xf32>) outs(%o : memref<4x9xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.mulf %in, %in2 : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Lanes 5 elements apart (past kMaxReadStride, a load of the span would be
// mostly waste) are read element by element; an output with a stride of 2
// is not vectorised.
// CHECK-LABEL: func.func @too_strided
// CHECK-COUNT-8: memref.load %{{.*}} : memref<4x9xf32, strided<[80, 5]>>
// CHECK: vector.from_elements {{.*}} : vector<8xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<4x9xf32, strided<[18, 2]>>)
func.func @too_strided(%x: memref<4x9xf32, strided<[80, 5]>>, %o: memref<4x9xf32>, %p: memref<4x9xf32, strided<[18, 2]>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x9xf32, strided<[80, 5]>>) outs(%o : memref<4x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%o : memref<4x9xf32>) outs(%p : memref<4x9xf32, strided<[18, 2]>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>

// A squeeze-and-excitation gate of (1, 40, 1, 1): rows of one element were
// one-lane vectors, 40 of them. The unit loops fold into the channels' (every
// operand reads them as one run: the bias's map leaves out the batch): 40
// channels in vectors of 16 and one of 8.
// CHECK-LABEL: func.func @unit_trailing_loops
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : memref<1x40x1x1xf32> into memref<1x40xf32>
// CHECK-NOT: vector<1xf32>
// CHECK: vector.load {{.*}} vector<16xf32>
// CHECK: arith.divf {{.*}} : vector<16xf32>
// CHECK-NOT: vector<1xf32>
func.func @unit_trailing_loops(%x: memref<1x40x1x1xf32>, %b: memref<40x1x1xf32>, %o: memref<1x40x1x1xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : memref<1x40x1x1xf32>, memref<40x1x1xf32>) outs(%o : memref<1x40x1x1xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    %n = arith.negf %s : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %g = arith.divf %s, %d : f32
    linalg.yield %g : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>

// A softmax's normalisation over the channels of (8, 64, 1, 1): the row's
// sum is read by (8, 1, 1), which leaves out the channels' loop, so the unit
// loops do not fold into it. They are dropped instead: 64 channels in
// vectors of 16, the sum uniform.
// CHECK-LABEL: func.func @unit_loops_after_a_row_read
// CHECK-DAG: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : memref<8x1x1xf32> into memref<8xf32>
// CHECK-NOT: vector<1xf32>
// CHECK: vector.load {{.*}} : memref<8x64xf32>, vector<16xf32>
// CHECK: arith.divf {{.*}} : vector<16xf32>
// CHECK-NOT: vector<1xf32>
// CHECK: return
func.func @unit_loops_after_a_row_read(%x: memref<8x64x1x1xf32>, %sum: memref<8x1x1xf32>, %o: memref<8x64x1x1xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %sum : memref<8x64x1x1xf32>, memref<8x1x1xf32>) outs(%o : memref<8x64x1x1xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %e = math.exp %a : f32
    %d = arith.divf %e, %s : f32
    linalg.yield %d : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>

// A sum over the channels of (8, 64, 1, 1): the loops after the reduction
// run once, and were vectorised as the innermost loop, one lane at a time.
// They are dropped: a reduction along its innermost loop, which this pass
// leaves to jeet-cpu-vectorize-reductions (the RUN line after the split
// runs both).
// CHECK-LABEL: func.func @unit_loops_after_reduction
// CHECK-DAG: memref.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : memref<8x64x1x1xf32> into memref<8x64xf32>
// CHECK-DAG: memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : memref<8x1x1xf32> into memref<8xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-NOT: vector<
// CHECK: return
// BOTH-LABEL: func.func @unit_loops_after_reduction
// BOTH-NOT: vector<1xf32>
// BOTH: vector.load {{.*}} vector<64xf32>
// BOTH: vector.reduction <add>
// BOTH-NOT: vector<1xf32>
// BOTH: return
func.func @unit_loops_after_reduction(%x: memref<8x64x1x1xf32>, %o: memref<8x1x1xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%x : memref<8x64x1x1xf32>) outs(%o : memref<8x1x1xf32>) {
  ^bb0(%a: f32, %out: f32):
    %e = math.exp %a : f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A copy into a view (a concat's input into its channels of the result)
// whose trailing dimensions both buffers hold contiguously: those loops
// folded into one, runs of 100 elements (6 vectors of 16 and one of 4) where
// rows of 5 would have been copied; the batch dimension, 200 elements apart
// in the view, stays a loop.
// CHECK-LABEL: func.func @copy_into_channels
// CHECK-DAG: %[[IN:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : memref<2x4x5x5xf32> into memref<2x100xf32>
// CHECK-DAG: %[[OUT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : memref<2x4x5x5xf32, strided<[200, 25, 5, 1], offset: 100>> into memref<2x100xf32, strided<[200, 1], offset: 100>>
// CHECK: scf.parallel (%[[N:.*]]) =
// CHECK: %[[V:.*]] = vector.load %[[IN]][%[[N]], %{{.*}}] : memref<2x100xf32>, vector<16xf32>
// CHECK: vector.store %[[V]], %[[OUT]][%[[N]], %{{.*}}] : memref<2x100xf32, strided<[200, 1], offset: 100>>, vector<16xf32>
// CHECK: vector.load %[[IN]][%[[N]], %c96] : memref<2x100xf32>, vector<4xf32>
func.func @copy_into_channels(%a: memref<2x4x5x5xf32>, %c: memref<2x8x5x5xf32>) {
  %s = memref.subview %c[0, 4, 0, 0] [2, 4, 5, 5] [1, 1, 1, 1] : memref<2x8x5x5xf32> to memref<2x4x5x5xf32, strided<[200, 25, 5, 1], offset: 100>>
  linalg.copy ins(%a : memref<2x4x5x5xf32>) outs(%s : memref<2x4x5x5xf32, strided<[200, 25, 5, 1], offset: 100>>)
  return
}

// -----

// A copy into columns of a wider buffer: its rows are not contiguous in the
// view, nothing folds (the rows of 5 are joined instead).
// CHECK-LABEL: func.func @copy_into_columns
// CHECK-NOT: memref.collapse_shape
// CHECK: vector.maskedstore
func.func @copy_into_columns(%a: memref<4x5xf32>, %c: memref<4x8xf32>) {
  %s = memref.subview %c[0, 3] [4, 5] [1, 1] : memref<4x8xf32> to memref<4x5xf32, strided<[8, 1], offset: 3>>
  linalg.copy ins(%a : memref<4x5xf32>) outs(%s : memref<4x5xf32, strided<[8, 1], offset: 3>>)
  return
}

// -----

// A fill (a matmul's accumulator the matmul's kernels did not start from
// the fill's value) becomes a generic that yields the value, stored as
// vectors; its contiguous loops folded as a copy's (here into runs of 100
// elements of the view, one a batch).
// CHECK-LABEL: func.func @fill_of_channels
// CHECK-NOT: linalg.fill
// CHECK: %[[OUT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : memref<2x4x5x5xf32, strided<[200, 25, 5, 1], offset: 100>> into memref<2x100xf32, strided<[200, 1], offset: 100>>
// CHECK: scf.parallel
// CHECK: vector.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] : memref<2x100xf32, strided<[200, 1], offset: 100>>, vector<16xf32>
func.func @fill_of_channels(%c: memref<2x8x5x5xf32>) {
  %one = arith.constant 1.0 : f32
  %s = memref.subview %c[0, 4, 0, 0] [2, 4, 5, 5] [1, 1, 1, 1] : memref<2x8x5x5xf32> to memref<2x4x5x5xf32, strided<[200, 25, 5, 1], offset: 100>>
  linalg.fill ins(%one : f32) outs(%s : memref<2x4x5x5xf32, strided<[200, 25, 5, 1], offset: 100>>)
  return
}

// -----

// A sum over positions read through a transpose (a mean after a transposed
// matmul's (N, positions, C) result): its reduced loops step 32 elements
// apart, the channels run along every operand's contiguous dimension. The
// channel loop moves innermost: vectors of 16 channels, each step of the
// positions one vector of the output read, summed and written back (the
// terms of each output in the same order).
// CHECK-LABEL: func.func @sum_over_positions_of_a_transpose
// CHECK: scf.for %[[H:.*]] = %c0 to %c3
// CHECK: scf.for %[[W:.*]] = %c0 to %c3
// CHECK: scf.for %[[C:.*]] = %c0 to %c32 step %c16
// CHECK: %[[X:.*]] = vector.load %{{.*}}[%c0, %[[H]], %[[W]], %[[C]]] : memref<1x3x3x32xf32>, vector<16xf32>
// CHECK: %[[ACC:.*]] = vector.load %{{.*}}[%c0, %[[C]]] : memref<1x32xf32>, vector<16xf32>
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : vector<16xf32>
// CHECK: vector.store %[[S]], %{{.*}}[%c0, %[[C]]] : memref<1x32xf32>, vector<16xf32>
#in = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @sum_over_positions_of_a_transpose(%x: memref<1x3x3x32xf32>, %o: memref<1x32xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : memref<1x3x3x32xf32>) outs(%o : memref<1x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An im2col copy (a convolution's windows, dilated and strided, of a strided
// view) whose trailing loop runs once: its read, d4 * 2 + d2 * 2, is not a
// projected permutation, so the trailing loop is not folded into the one
// before it (folded, the copy read one element for all seven windows); the
// windows are read one lane at a time, each at its own row.
#window = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2 * 2, d5 * 2 + d3)>
#identity6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @im2col_unit_trailing_loop
// CHECK-NOT: memref.collapse_shape
// CHECK-NOT: vector.broadcast
// CHECK: return
func.func @im2col_unit_trailing_loop(%x: memref<1x2x33x4xf32>, %out: memref<1x2x3x1x7x1xf32>) {
  %view = memref.subview %x[0, 0, 0, 0] [1, 2, 17, 2] [1, 1, 2, 2] : memref<1x2x33x4xf32> to memref<1x2x17x2xf32, strided<[264, 132, 8, 2]>>
  linalg.generic {indexing_maps = [#window, #identity6], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%view : memref<1x2x17x2xf32, strided<[264, 132, 8, 2]>>) outs(%out : memref<1x2x3x1x7x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}
