// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s
// RUN: jeet-opt %s --jeet-lower-to-linalg=epilogue-tile-size=0 | FileCheck %s --check-prefix=UNTILED
// RUN: jeet-opt %s --jeet-lower-to-linalg=hoist-broadcast-work=false | FileCheck %s --check-prefix=NOHOIST

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[PERMUTED:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[IDENTITY3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Ten elementwise ops (with a broadcast input and rank-0 splat constants)
// are one generic; each group input is read through its own map. The exp of
// the broadcast input (8 values for 128 elements) is computed first, by a
// generic of its own shape, and read as an input (with
// hoist-broadcast-work=false, in the loop nest: NOHOIST).
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<f32>)
// CHECK-NOT: jeet.
// CHECK: %[[X:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[B]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16x8xf32>
// CHECK-COUNT-1: linalg.generic {indexing_maps = [#[[ID2]], #[[COL]], #[[COL]], #[[SCALAR]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]], %[[X]], %[[C]] : tensor<16x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<f32>) outs(%[[E]] : tensor<16x8xf32>)
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK-NOT: math.exp
// CHECK: arith.subf
// CHECK: arith.maximumf
// CHECK: arith.divf
// CHECK: math.tanh
// CHECK: arith.negf
// CHECK: math.absf
// CHECK: arith.minimumf
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return
// NOHOIST-LABEL: func.func @chain
// NOHOIST-COUNT-1: linalg.generic
// NOHOIST: math.exp
// NOHOIST-NOT: linalg.generic
// NOHOIST: return
func.func @chain(%a: tensor<16x8xf32>, %b: tensor<8xf32>, %c: tensor<f32>) -> tensor<16x8xf32> {
  %r = jeet.fusion (%a, %b, %c) : (tensor<16x8xf32>, tensor<8xf32>, tensor<f32>) -> tensor<16x8xf32> {
  ^bb0(%x: tensor<16x8xf32>, %y: tensor<8xf32>, %z: tensor<f32>):
    %two = jeet.constant dense<2.0> : tensor<f32>
    %0 = jeet.add %x, %y : tensor<16x8xf32>, tensor<8xf32> -> tensor<16x8xf32>
    %1 = jeet.mul %0, %two : tensor<16x8xf32>, tensor<f32> -> tensor<16x8xf32>
    %2 = jeet.exp %y : tensor<8xf32>
    %3 = jeet.sub %1, %2 : tensor<16x8xf32>, tensor<8xf32> -> tensor<16x8xf32>
    %4 = jeet.relu %3 : tensor<16x8xf32>
    %5 = jeet.div %4, %z : tensor<16x8xf32>, tensor<f32> -> tensor<16x8xf32>
    %6 = jeet.tanh %5 : tensor<16x8xf32>
    %7 = jeet.neg %6 : tensor<16x8xf32>
    %8 = jeet.abs %7 : tensor<16x8xf32>
    %9 = jeet.min %8, %x : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
    jeet.yield %9 : tensor<16x8xf32>
  }
  return %r : tensor<16x8xf32>
}

// Several results of one shape: one multi-result generic; an intermediate
// result is computed once in the body.
// CHECK-LABEL: func.func @two_results
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: %[[S:.*]] = arith.addf
// CHECK: %[[M:.*]] = arith.maximumf %[[S]]
// CHECK: linalg.yield %[[M]], %[[S]] : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @two_results(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = jeet.fusion (%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>):
    %0 = jeet.add %x, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    %1 = jeet.relu %0 : tensor<4x8xf32>
    jeet.yield %1, %0 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// Sum of squares: the square is computed inside the reduction's body; the
// epilogue (rsqrt(sum + eps)) is a second generic.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK-SAME: (%[[A:.*]]: tensor<16x8xf32>)
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]] : tensor<16x8xf32>) outs(%[[F]] : tensor<16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[SQ]]
// CHECK-NEXT: linalg.yield %[[SUM]]
// CHECK: %[[K:.*]] = tensor.expand_shape %[[S]]
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[K]] : tensor<16x1xf32>)
// CHECK: arith.addf
// CHECK: math.rsqrt
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @sum_of_squares(%a: tensor<16x8xf32>) -> tensor<16x1xf32> {
  %r = jeet.fusion (%a) : (tensor<16x8xf32>) -> tensor<16x1xf32> {
  ^bb0(%x: tensor<16x8xf32>):
    %0 = jeet.mul %x, %x : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
    %1 = jeet.reduce_sum %0 {axes = array<i64: 1>, keepdims = true} : tensor<16x8xf32> -> tensor<16x1xf32>
    %eps = jeet.constant dense<1.0e-5> : tensor<f32>
    %2 = jeet.add %1, %eps : tensor<16x1xf32>, tensor<f32> -> tensor<16x1xf32>
    %3 = jeet.rsqrt %2 : tensor<16x1xf32>
    jeet.yield %3 : tensor<16x1xf32>
  }
  return %r : tensor<16x1xf32>
}

// A reduction alone in its group is exactly one generic.
// CHECK-LABEL: func.func @sum_of_squares_only
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @sum_of_squares_only(%a: tensor<16x8xf32>) -> tensor<16xf32> {
  %r = jeet.fusion (%a) : (tensor<16x8xf32>) -> tensor<16xf32> {
  ^bb0(%x: tensor<16x8xf32>):
    %0 = jeet.mul %x, %x : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
    %1 = jeet.reduce_sum %0 {axes = array<i64: 1>} : tensor<16x8xf32> -> tensor<16xf32>
    jeet.yield %1 : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// matmul + bias + relu: the epilogue is tiled into scf.forall over 64x64
// output tiles, with the matmul and its fill fused into each tile.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-SAME: (%[[A:.*]]: tensor<128x64xf32>, %[[B:.*]]: tensor<64x256xf32>, %[[BIAS:.*]]: tensor<256xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (128, 256) step (64, 64) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK-DAG: %[[TA:.*]] = tensor.extract_slice %[[A]][%[[I]], 0] [64, 64] [1, 1]
// CHECK-DAG: %[[TB:.*]] = tensor.extract_slice %[[B]][0, %[[J]]] [64, 64] [1, 1]
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[TA]], %[[TB]] : tensor<64x64xf32>, tensor<64x64xf32>) outs(%[[F]] : tensor<64x64xf32>)
// CHECK: %[[TBIAS:.*]] = tensor.extract_slice %[[BIAS]][%[[J]]] [64] [1]
// CHECK: %[[TOUT:.*]] = tensor.extract_slice %[[OUT]][%[[I]], %[[J]]] [64, 64] [1, 1]
// CHECK: %[[EP:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[MM]], %[[TBIAS]] : tensor<64x64xf32>, tensor<64xf32>) outs(%[[TOUT]] : tensor<64x64xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[EP]] into %[[OUT]][%[[I]], %[[J]]] [64, 64] [1, 1]
// CHECK-NOT: linalg.matmul
// CHECK: return %[[R]]

// UNTILED-LABEL: func.func @matmul_bias_relu
// UNTILED: %[[MM:.*]] = linalg.matmul
// UNTILED: %[[R:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<128x256xf32>, tensor<256xf32>)
// UNTILED: return %[[R]]
func.func @matmul_bias_relu(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>, %bias: tensor<256xf32>) -> tensor<128x256xf32> {
  %r = jeet.fusion (%a, %b, %bias) : (tensor<128x64xf32>, tensor<64x256xf32>, tensor<256xf32>) -> tensor<128x256xf32> {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x256xf32>, %z: tensor<256xf32>):
    %0 = jeet.matmul %x, %y : tensor<128x64xf32>, tensor<64x256xf32> -> tensor<128x256xf32>
    %1 = jeet.add %0, %z : tensor<128x256xf32>, tensor<256xf32> -> tensor<128x256xf32>
    %2 = jeet.relu %1 : tensor<128x256xf32>
    jeet.yield %2 : tensor<128x256xf32>
  }
  return %r : tensor<128x256xf32>
}

// Taller tiles where there are enough of them: 1024 columns make 16 tiles
// of 64, so the 512 rows are tiled by the most rows up to 256 that leave
// at least 16 tiles: 256 (32 tiles). Each tile's matmul then reads its
// panel of B into L1 once for 256 rows. (In @matmul_bias_relu above, 128
// rows of 4 column tiles stay in tiles of 64: 128-row tiles would leave 4.)
// CHECK-LABEL: func.func @matmul_taller_tiles
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (512, 1024) step (256, 64)
// CHECK: linalg.matmul {{.*}} -> tensor<256x64xf32>
func.func @matmul_taller_tiles(%a: tensor<512x32xf32>, %b: tensor<32x1024xf32>) -> tensor<512x1024xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<512x32xf32>, tensor<32x1024xf32>) -> tensor<512x1024xf32> {
  ^bb0(%x: tensor<512x32xf32>, %y: tensor<32x1024xf32>):
    %0 = jeet.matmul %x, %y : tensor<512x32xf32>, tensor<32x1024xf32> -> tensor<512x1024xf32>
    %1 = jeet.relu %0 : tensor<512x1024xf32>
    jeet.yield %1 : tensor<512x1024xf32>
  }
  return %r : tensor<512x1024xf32>
}

// An f16 matmul epilogue reads the f32 accumulator and truncates it in its
// body; a dimension shorter than the tile is one tile.
// CHECK-LABEL: func.func @matmul_f16_scale
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (32, 16) step (32, 16)
// CHECK: %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<32x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<32x16xf32>, tensor<f16>)
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[S:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[ACC]] : f32 to f16
// CHECK-NEXT: arith.mulf %[[T]], %[[S]] : f16
func.func @matmul_f16_scale(%a: tensor<32x8xf16>, %b: tensor<8x16xf16>, %s: tensor<f16>) -> tensor<32x16xf16> {
  %r = jeet.fusion (%a, %b, %s) : (tensor<32x8xf16>, tensor<8x16xf16>, tensor<f16>) -> tensor<32x16xf16> {
  ^bb0(%x: tensor<32x8xf16>, %y: tensor<8x16xf16>, %z: tensor<f16>):
    %0 = jeet.matmul %x, %y : tensor<32x8xf16>, tensor<8x16xf16> -> tensor<32x16xf16>
    %1 = jeet.mul %0, %z : tensor<32x16xf16>, tensor<f16> -> tensor<32x16xf16>
    jeet.yield %1 : tensor<32x16xf16>
  }
  return %r : tensor<32x16xf16>
}

// Tiles divide the output, so every tile keeps a static shape (the CPU
// matmul kernels need one): 100 rows in tiles of 50 (the divisor of 100
// closest to 64 within [32, 128]), and a prime 97 rows would be one tile.
// Columns go in the tiles whose rows fill the most of their 16-lane
// vectors: 130 columns are one tile (128 + 2: 130 of 144 lanes; tiles of 65
// would fill 65 of 80).
// CHECK-LABEL: func.func @matmul_uneven_tiles
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (100, 130) step (50, 130)
// CHECK: linalg.matmul {{.*}} -> tensor<50x130xf32>
// CHECK-NOT: affine.min
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (97, 130) step (97, 130)
// CHECK: linalg.matmul {{.*}} -> tensor<97x130xf32>
// CHECK-NOT: affine.min
// CHECK: return
func.func @matmul_uneven_tiles(%a: tensor<100x8xf32>, %b: tensor<8x130xf32>, %c: tensor<97x8xf32>) -> (tensor<100x130xf32>, tensor<97x130xf32>) {
  %r = jeet.fusion (%a, %b) : (tensor<100x8xf32>, tensor<8x130xf32>) -> tensor<100x130xf32> {
  ^bb0(%x: tensor<100x8xf32>, %y: tensor<8x130xf32>):
    %0 = jeet.matmul %x, %y : tensor<100x8xf32>, tensor<8x130xf32> -> tensor<100x130xf32>
    %1 = jeet.relu %0 : tensor<100x130xf32>
    jeet.yield %1 : tensor<100x130xf32>
  }
  %p = jeet.fusion (%c, %b) : (tensor<97x8xf32>, tensor<8x130xf32>) -> tensor<97x130xf32> {
  ^bb0(%x: tensor<97x8xf32>, %y: tensor<8x130xf32>):
    %0 = jeet.matmul %x, %y : tensor<97x8xf32>, tensor<8x130xf32> -> tensor<97x130xf32>
    %1 = jeet.relu %0 : tensor<97x130xf32>
    jeet.yield %1 : tensor<97x130xf32>
  }
  return %r, %p : tensor<100x130xf32>, tensor<97x130xf32>
}

// 144 columns (a convolution's 12 x 12 positions) in tiles of 48, three
// whole vectors, not of 72 (the divisor closest to 64), whose last 8
// columns would be a register tile of few accumulators.
// CHECK-LABEL: func.func @matmul_whole_vector_columns
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (512, 144) step (64, 48)
// CHECK: linalg.matmul {{.*}} -> tensor<64x48xf32>
func.func @matmul_whole_vector_columns(%a: tensor<512x128xf32>, %b: tensor<128x144xf32>) -> tensor<512x144xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<512x128xf32>, tensor<128x144xf32>) -> tensor<512x144xf32> {
  ^bb0(%x: tensor<512x128xf32>, %y: tensor<128x144xf32>):
    %0 = jeet.matmul %x, %y : tensor<512x128xf32>, tensor<128x144xf32> -> tensor<512x144xf32>
    %1 = jeet.relu %0 : tensor<512x144xf32>
    jeet.yield %1 : tensor<512x144xf32>
  }
  return %r : tensor<512x144xf32>
}

// An epilogue that reads its matmul transposed (jeet-fuse's transposed
// epilogues: a convolution's 36 positions as the matmul's rows): the
// epilogue's rows are the matmul's columns, 1152 in tiles of 64 (whole
// vectors; the divisor closest to 64 with 16 tiles would be 72 = 64 + 8),
// its columns the 36 positions, whole.
// CHECK-LABEL: func.func @matmul_transposed_epilogue
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (1, 1152, 36) step (1, 64, 36)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x36x64xf32>)
func.func @matmul_transposed_epilogue(%a: tensor<1x36x32xf32>, %b: tensor<32x1152xf32>) -> tensor<1x1152x36xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<1x36x32xf32>, tensor<32x1152xf32>) -> tensor<1x1152x36xf32> {
  ^bb0(%x: tensor<1x36x32xf32>, %y: tensor<32x1152xf32>):
    %0 = jeet.matmul %x, %y : tensor<1x36x32xf32>, tensor<32x1152xf32> -> tensor<1x36x1152xf32>
    %1 = jeet.transpose %0 {permutation = array<i64: 0, 2, 1>} : tensor<1x36x1152xf32> -> tensor<1x1152x36xf32>
    %2 = jeet.relu %1 : tensor<1x1152x36xf32>
    jeet.yield %2 : tensor<1x1152x36xf32>
  }
  return %r : tensor<1x1152x36xf32>
}

// The same with no elementwise op after the transpose (a convolution's
// transposed form without bias): the transpose yielded is computed as the
// matmul's epilogue, a generic that reads it permuted, tiled with the
// matmul as above, not a linalg.transpose copy after the whole product.
// CHECK-LABEL: func.func @matmul_transposed_result
// CHECK-NOT: linalg.transpose
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (1, 1152, 36) step (1, 64, 36)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x36x64xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[PERMUTED]], #[[IDENTITY3]]], {{.*}} ins(%[[P]] : tensor<1x36x64xf32>) outs(%{{.*}} : tensor<1x64x36xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// UNTILED-LABEL: func.func @matmul_transposed_result
// UNTILED-NOT: scf.forall
// UNTILED-NOT: linalg.transpose
func.func @matmul_transposed_result(%a: tensor<1x36x32xf32>, %b: tensor<32x1152xf32>) -> tensor<1x1152x36xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<1x36x32xf32>, tensor<32x1152xf32>) -> tensor<1x1152x36xf32> {
  ^bb0(%x: tensor<1x36x32xf32>, %y: tensor<32x1152xf32>):
    %0 = jeet.matmul %x, %y : tensor<1x36x32xf32>, tensor<32x1152xf32> -> tensor<1x36x1152xf32>
    %1 = jeet.transpose %0 {permutation = array<i64: 0, 2, 1>} : tensor<1x36x1152xf32> -> tensor<1x1152x36xf32>
    jeet.yield %1 : tensor<1x1152x36xf32>
  }
  return %r : tensor<1x1152x36xf32>
}

// A yielded transpose of a matmul's result that moves its batch dimension
// (attention's heads back between the positions) is copied after the
// product: tiles of one row of the matmul would be no product at all.
// CHECK-LABEL: func.func @matmul_result_heads_moved
// UNTILED-LABEL: func.func @matmul_result_heads_moved
// CHECK-NOT: scf.forall
// CHECK: linalg.transpose
func.func @matmul_result_heads_moved(%a: tensor<4x16x32xf32>, %b: tensor<4x32x8xf32>) -> tensor<16x4x8xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<4x16x32xf32>, tensor<4x32x8xf32>) -> tensor<16x4x8xf32> {
  ^bb0(%x: tensor<4x16x32xf32>, %y: tensor<4x32x8xf32>):
    %0 = jeet.matmul %x, %y : tensor<4x16x32xf32>, tensor<4x32x8xf32> -> tensor<4x16x8xf32>
    %1 = jeet.transpose %0 {permutation = array<i64: 1, 0, 2>} : tensor<4x16x8xf32> -> tensor<16x4x8xf32>
    jeet.yield %1 : tensor<16x4x8xf32>
  }
  return %r : tensor<16x4x8xf32>
}

// A matmul yielded alone with fewer than 128 rows and a batch of one (a
// convolution without bias: 32 filters by 1152 x 576 windows) is tiled
// over its columns as a matmul with an epilogue, its fill in each tile; 128
// rows or more keep the whole product, and so do a batch of several, a
// product of fewer than 8 rows, one whose column tiles would not be whole
// vectors (1000 columns in tiles of 125) and one by a constant B (read
// from the panels the compiler packs).
// CHECK-LABEL: func.func @matmul_of_few_rows_alone
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (32, 576) step (32, 64)
// CHECK: linalg.fill {{.*}} -> tensor<1x32x64xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x32x64xf32>)
// CHECK-LABEL: func.func @matmul_of_many_rows_alone
// CHECK-NOT: scf.forall
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<128x256xf32>)
// CHECK-LABEL: func.func @matmul_of_one_row_alone
// CHECK-NOT: scf.forall
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<1x256xf32>)
// CHECK-LABEL: func.func @matmul_of_odd_column_tiles
// CHECK-NOT: scf.forall
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<32x1000xf32>)
// CHECK-LABEL: func.func @matmul_by_a_constant_alone
// CHECK-NOT: scf.forall
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<32x256xf32>)
// CHECK-LABEL: func.func @batched_matmul_alone
// CHECK-NOT: scf.forall
// CHECK: linalg.batch_matmul {{.*}} outs(%{{.*}} : tensor<4x32x256xf32>)
// UNTILED-LABEL: func.func @matmul_of_few_rows_alone
// UNTILED-NOT: scf.forall
// UNTILED-LABEL: func.func @matmul_of_many_rows_alone
func.func @matmul_of_few_rows_alone(%a: tensor<32x1152xf32>, %b: tensor<1x1152x576xf32>) -> tensor<1x32x576xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<32x1152xf32>, tensor<1x1152x576xf32>) -> tensor<1x32x576xf32> {
  ^bb0(%x: tensor<32x1152xf32>, %y: tensor<1x1152x576xf32>):
    %0 = jeet.matmul %x, %y : tensor<32x1152xf32>, tensor<1x1152x576xf32> -> tensor<1x32x576xf32>
    jeet.yield %0 : tensor<1x32x576xf32>
  }
  return %r : tensor<1x32x576xf32>
}
func.func @matmul_of_many_rows_alone(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32> {
  ^bb0(%x: tensor<128x64xf32>, %y: tensor<64x256xf32>):
    %0 = jeet.matmul %x, %y : tensor<128x64xf32>, tensor<64x256xf32> -> tensor<128x256xf32>
    jeet.yield %0 : tensor<128x256xf32>
  }
  return %r : tensor<128x256xf32>
}
func.func @matmul_of_one_row_alone(%a: tensor<1x64xf32>, %b: tensor<64x256xf32>) -> tensor<1x256xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<1x64xf32>, tensor<64x256xf32>) -> tensor<1x256xf32> {
  ^bb0(%x: tensor<1x64xf32>, %y: tensor<64x256xf32>):
    %0 = jeet.matmul %x, %y : tensor<1x64xf32>, tensor<64x256xf32> -> tensor<1x256xf32>
    jeet.yield %0 : tensor<1x256xf32>
  }
  return %r : tensor<1x256xf32>
}
func.func @matmul_of_odd_column_tiles(%a: tensor<32x64xf32>, %b: tensor<64x1000xf32>) -> tensor<32x1000xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<32x64xf32>, tensor<64x1000xf32>) -> tensor<32x1000xf32> {
  ^bb0(%x: tensor<32x64xf32>, %y: tensor<64x1000xf32>):
    %0 = jeet.matmul %x, %y : tensor<32x64xf32>, tensor<64x1000xf32> -> tensor<32x1000xf32>
    jeet.yield %0 : tensor<32x1000xf32>
  }
  return %r : tensor<32x1000xf32>
}
func.func @matmul_by_a_constant_alone(%a: tensor<32x64xf32>) -> tensor<32x256xf32> {
  %b = jeet.constant dense<1.0> : tensor<64x256xf32>
  %r = jeet.fusion (%a, %b) : (tensor<32x64xf32>, tensor<64x256xf32>) -> tensor<32x256xf32> {
  ^bb0(%x: tensor<32x64xf32>, %y: tensor<64x256xf32>):
    %0 = jeet.matmul %x, %y : tensor<32x64xf32>, tensor<64x256xf32> -> tensor<32x256xf32>
    jeet.yield %0 : tensor<32x256xf32>
  }
  return %r : tensor<32x256xf32>
}
func.func @batched_matmul_alone(%a: tensor<4x32x64xf32>, %b: tensor<4x64x256xf32>) -> tensor<4x32x256xf32> {
  %r = jeet.fusion (%a, %b) : (tensor<4x32x64xf32>, tensor<4x64x256xf32>) -> tensor<4x32x256xf32> {
  ^bb0(%x: tensor<4x32x64xf32>, %y: tensor<4x64x256xf32>):
    %0 = jeet.matmul %x, %y : tensor<4x32x64xf32>, tensor<4x64x256xf32> -> tensor<4x32x256xf32>
    jeet.yield %0 : tensor<4x32x256xf32>
  }
  return %r : tensor<4x32x256xf32>
}

// Any other group is lowered op by op: a transpose between elementwise ops
// is read in place by the op after it, through a permuted indexing map (the
// exp's result is a tensor of the group: the transpose's input), not copied.
// CHECK-LABEL: func.func @other_group
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>)
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[A]] :
// CHECK: math.exp
// CHECK-NOT: linalg.transpose
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: arith.negf
// CHECK: return %[[R]]
func.func @other_group(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %r = jeet.fusion (%a) : (tensor<4x8xf32>) -> tensor<8x4xf32> {
  ^bb0(%x: tensor<4x8xf32>):
    %0 = jeet.exp %x : tensor<4x8xf32>
    %1 = jeet.transpose %0 {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
    %2 = jeet.neg %1 : tensor<8x4xf32>
    jeet.yield %2 : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// A group input yielded as is needs no loop nest.
// CHECK-LABEL: func.func @passthrough
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[A]]
func.func @passthrough(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = jeet.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    jeet.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// A reduction whose operand the group also yields, a SiLU (a depthwise
// convolution's, which a squeeze-and-excitation block averages): the SiLU is
// computed once, by the generic that yields it, and the reduction reads it
// rather than computing it again in its prologue.
// CHECK-LABEL: func.func @yielded_operand_of_a_reduction
// CHECK-SAME: (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<16x8xf32>, tensor<8xf32>)
// CHECK: math.exp
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[Y]] : tensor<16x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: arith.addf %[[ACC]], %[[X]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]], %[[S]]
// Without hoist-broadcast-work (the GPU's kernel formation, whose launches
// read the yielded result before it was written) the reduction computes the
// SiLU in its prologue.
// NOHOIST-LABEL: func.func @yielded_operand_of_a_reduction
// NOHOIST-SAME: (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>)
// NOHOIST: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// NOHOIST-SAME: ins(%[[A]], %[[B]] : tensor<16x8xf32>, tensor<8xf32>)
// NOHOIST: math.exp
// NOHOIST: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<16x8xf32>, tensor<8xf32>)
func.func @yielded_operand_of_a_reduction(%a: tensor<16x8xf32>, %b: tensor<8xf32>) -> (tensor<16x8xf32>, tensor<16xf32>) {
  %r:2 = jeet.fusion (%a, %b) : (tensor<16x8xf32>, tensor<8xf32>) -> (tensor<16x8xf32>, tensor<16xf32>) {
  ^bb0(%x: tensor<16x8xf32>, %y: tensor<8xf32>):
    %0 = jeet.add %x, %y : tensor<16x8xf32>, tensor<8xf32> -> tensor<16x8xf32>
    %1 = jeet.sigmoid %0 : tensor<16x8xf32>
    %2 = jeet.mul %0, %1 : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
    %3 = jeet.reduce_sum %2 {axes = array<i64: 1>} : tensor<16x8xf32> -> tensor<16xf32>
    jeet.yield %2, %3 : tensor<16x8xf32>, tensor<16xf32>
  }
  return %r#0, %r#1 : tensor<16x8xf32>, tensor<16xf32>
}

// The same with a cheap operand (x * x + y, two ops): computed in the
// reduction's prologue as well as by the generic that yields it.
// CHECK-LABEL: func.func @yielded_cheap_operand_of_a_reduction
// CHECK-SAME: (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<16x8xf32>, tensor<8xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<16x8xf32>, tensor<8xf32>)
func.func @yielded_cheap_operand_of_a_reduction(%a: tensor<16x8xf32>, %b: tensor<8xf32>) -> (tensor<16x8xf32>, tensor<16xf32>) {
  %r:2 = jeet.fusion (%a, %b) : (tensor<16x8xf32>, tensor<8xf32>) -> (tensor<16x8xf32>, tensor<16xf32>) {
  ^bb0(%x: tensor<16x8xf32>, %y: tensor<8xf32>):
    %0 = jeet.mul %x, %x : tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
    %1 = jeet.add %0, %y : tensor<16x8xf32>, tensor<8xf32> -> tensor<16x8xf32>
    %2 = jeet.reduce_sum %1 {axes = array<i64: 1>} : tensor<16x8xf32> -> tensor<16xf32>
    jeet.yield %1, %2 : tensor<16x8xf32>, tensor<16xf32>
  }
  return %r#0, %r#1 : tensor<16x8xf32>, tensor<16xf32>
}

// A squeeze-and-excitation gate: sigmoid(s + b), one value per channel,
// multiplies every position of its channel. The gate (an add and a sigmoid)
// is computed by a generic over the channels first; the product reads it.
// CHECK-LABEL: func.func @channel_gate
// CHECK-SAME: (%[[X:.*]]: tensor<1x32x3x3xf32>, %[[S:.*]]: tensor<1x32x1x1xf32>, %[[B:.*]]: tensor<1x32x1x1xf32>)
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[B]] : tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>) outs(%{{.*}} : tensor<1x32x1x1xf32>)
// CHECK: arith.addf
// CHECK: math.exp
// CHECK: %[[GC:.*]] = tensor.collapse_shape %[[G]]
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[GC]] : tensor<1x32x3x3xf32>, tensor<1x32xf32>) outs(%{{.*}} : tensor<1x32x3x3xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
// CHECK: return %[[Y]]
func.func @channel_gate(%x: tensor<1x32x3x3xf32>, %s: tensor<1x32x1x1xf32>, %b: tensor<1x32x1x1xf32>) -> tensor<1x32x3x3xf32> {
  %r = jeet.fusion (%x, %s, %b) : (tensor<1x32x3x3xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<1x32x3x3xf32> {
  ^bb0(%xx: tensor<1x32x3x3xf32>, %ss: tensor<1x32x1x1xf32>, %bb: tensor<1x32x1x1xf32>):
    %0 = jeet.add %ss, %bb : tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32> -> tensor<1x32x1x1xf32>
    %1 = jeet.sigmoid %0 : tensor<1x32x1x1xf32>
    %2 = jeet.mul %xx, %1 : tensor<1x32x3x3xf32>, tensor<1x32x1x1xf32> -> tensor<1x32x3x3xf32>
    jeet.yield %2 : tensor<1x32x3x3xf32>
  }
  return %r : tensor<1x32x3x3xf32>
}

// A cheap broadcast operand (s + b, one add) stays in the loop nest.
// CHECK-LABEL: func.func @channel_shift
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @channel_shift(%x: tensor<1x32x3x3xf32>, %s: tensor<1x32x1x1xf32>, %b: tensor<1x32x1x1xf32>) -> tensor<1x32x3x3xf32> {
  %r = jeet.fusion (%x, %s, %b) : (tensor<1x32x3x3xf32>, tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<1x32x3x3xf32> {
  ^bb0(%xx: tensor<1x32x3x3xf32>, %ss: tensor<1x32x1x1xf32>, %bb: tensor<1x32x1x1xf32>):
    %0 = jeet.add %ss, %bb : tensor<1x32x1x1xf32>, tensor<1x32x1x1xf32> -> tensor<1x32x1x1xf32>
    %1 = jeet.mul %xx, %0 : tensor<1x32x3x3xf32>, tensor<1x32x1x1xf32> -> tensor<1x32x3x3xf32>
    jeet.yield %1 : tensor<1x32x3x3xf32>
  }
  return %r : tensor<1x32x3x3xf32>
}
