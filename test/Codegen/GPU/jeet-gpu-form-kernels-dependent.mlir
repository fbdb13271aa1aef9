// RUN: jeet-opt %s --jeet-gpu-form-kernels | FileCheck %s

// A group whose matmul reads the reshaped result of its reduction: tiling
// cannot fuse through the reshape (and a named matmul does not collapse), so
// the reduction is a forall of its own, and it must be a kernel of its own,
// launched first: the blocks of one launch do not wait for each other, so
// the matmul's blocks could read the reduction before it is written.
// CHECK-LABEL: func.func @reduction_feeds_matmul
// CHECK: scf.forall
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: } {jeet.kernel = 1 : i64
// CHECK: tensor.expand_shape
// CHECK: scf.forall
// CHECK: linalg.matmul
// CHECK: } {jeet.kernel = 0 : i64
func.func @reduction_feeds_matmul(%x: tensor<4x6xf32>, %w: tensor<1x5xf32>) -> tensor<4x5xf32> {
  %m = jeet.fusion(%x, %w) : (tensor<4x6xf32>, tensor<1x5xf32>) -> tensor<4x5xf32> {
  ^bb0(%a: tensor<4x6xf32>, %b: tensor<1x5xf32>):
    %r = jeet.reduce_sum %a {axes = array<i64: 1>, keepdims = true} : tensor<4x6xf32> -> tensor<4x1xf32>
    %0 = jeet.matmul %r, %b : tensor<4x1xf32>, tensor<1x5xf32> -> tensor<4x5xf32>
    jeet.yield %0 : tensor<4x5xf32>
  }
  return %m : tensor<4x5xf32>
}

// The other way round: a group returns a broadcast, a comparison of it and
// its maximum over the middle dimension. The comparison is tiled first and
// yields the broadcast's tiles; the reduction, tiled next (in rows of
// another size), reads that result. In one launch, a block of the reduction
// read rows another block had not written yet (NaN where the memory was
// fresh; found by fuzz_numerics.py on the GPU emulator, seed 109,407), so
// the reduction is a kernel of its own, launched after.
// (Kernel ids count on from the function above's 0 and 1.)
// CHECK-LABEL: func.func @reduction_reads_a_yielded_broadcast
// CHECK: scf.forall
// CHECK: arith.cmpf olt
// CHECK: } {jeet.kernel = 2 : i64
// CHECK: scf.forall
// CHECK: arith.maximumf
// CHECK: } {jeet.kernel = 3 : i64
func.func @reduction_reads_a_yielded_broadcast(%x: tensor<7x5x16x4xf16>, %y: tensor<16x4xf16>) -> (tensor<1x7x16x4xf16>, tensor<1x7x5x16x4xi1>, tensor<1x7x5x16x4xf16>) {
  %r:3 = jeet.fusion(%x, %y) : (tensor<7x5x16x4xf16>, tensor<16x4xf16>) -> (tensor<1x7x5x16x4xf16>, tensor<1x7x16x4xf16>, tensor<1x7x5x16x4xi1>) {
  ^bb0(%a: tensor<7x5x16x4xf16>, %b: tensor<16x4xf16>):
    %0 = jeet.broadcast_to %a : tensor<7x5x16x4xf16> -> tensor<1x7x5x16x4xf16>
    %1 = jeet.reduce_max %0 {axes = array<i64: 2>} : tensor<1x7x5x16x4xf16> -> tensor<1x7x16x4xf16>
    %2 = jeet.lt %0, %b : tensor<1x7x5x16x4xf16>, tensor<16x4xf16> -> tensor<1x7x5x16x4xi1>
    jeet.yield %0, %1, %2 : tensor<1x7x5x16x4xf16>, tensor<1x7x16x4xf16>, tensor<1x7x5x16x4xi1>
  }
  return %r#1, %r#2, %r#0 : tensor<1x7x16x4xf16>, tensor<1x7x5x16x4xi1>, tensor<1x7x5x16x4xf16>
}

// A group returning a comparison, a select over it by its maximum over
// everything, and a scalar of that maximum: the select's tiles read the
// maximum, so the maximum is a kernel of its own, launched first; the scalar
// result is a one-block tile of the select's kernel that recomputes the
// maximum. Its accumulator is the tile's own (an alloc_tensor, which no CSE
// merges with the maximum's kernel's tensor.empty): merged, the one-block
// tile reset the buffer that the select's tiles on other blocks were reading
// (found by fuzz_numerics.py on the GPU emulator, seed 206,043).
// (Kernel ids count on from the functions above'.)
// CHECK-LABEL: func.func @tile_recomputes_a_reduction_of_another_kernel
// CHECK: %[[MAX:.*]] = scf.forall
// CHECK: arith.maxsi
// CHECK: } {jeet.kernel = 5 : i64
// CHECK: scf.forall
// CHECK: arith.select
// CHECK: } {jeet.kernel = 4 : i64
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK-NEXT: %[[ACC:.*]] = bufferization.alloc_tensor() : tensor<i32>
// CHECK: linalg.fill ins(%{{.*}} : i32) outs(%[[ACC]] : tensor<i32>)
// CHECK: arith.maxsi
// CHECK: arith.cmpi sgt
// CHECK: } {jeet.kernel = 4 : i64
func.func @tile_recomputes_a_reduction_of_another_kernel(%x: tensor<63x33xf16>, %y: tensor<63x33xf16>) -> (tensor<63x33xi1>, tensor<i1>, tensor<63x33xi32>) {
  %r:3 = jeet.fusion(%x, %y) : (tensor<63x33xf16>, tensor<63x33xf16>) -> (tensor<63x33xi1>, tensor<i1>, tensor<63x33xi32>) {
  ^bb0(%a: tensor<63x33xf16>, %b: tensor<63x33xf16>):
    %0 = jeet.constant dense<0> : tensor<i32>
    %1 = jeet.constant dense<true> : tensor<i1>
    %2 = jeet.eq %a, %b : tensor<63x33xf16>, tensor<63x33xf16> -> tensor<63x33xi1>
    %3 = jeet.cast %2 : tensor<63x33xi1> -> tensor<63x33xi32>
    %4 = jeet.reduce_max %3 {axes = array<i64: 0, 1>} : tensor<63x33xi32> -> tensor<i32>
    %5 = jeet.gt %4, %0 : tensor<i32>, tensor<i32> -> tensor<i1>
    %6 = jeet.select %5, %2, %1 : tensor<i1>, tensor<63x33xi1>, tensor<i1> -> tensor<63x33xi1>
    %7 = jeet.cast %6 : tensor<63x33xi1> -> tensor<63x33xi32>
    jeet.yield %2, %5, %7 : tensor<63x33xi1>, tensor<i1>, tensor<63x33xi32>
  }
  return %r#0, %r#1, %r#2 : tensor<63x33xi1>, tensor<i1>, tensor<63x33xi32>
}
