// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-fuse),jeet-gpu-form-kernels)' | FileCheck %s

// An elementwise group is one forall over tiles of up to 1024 elements along
// the innermost dimensions, mapped to blocks.
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (1000, 37) step (27, 37)
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK-NOT: scf.forall
// CHECK: return
func.func @elementwise(%a: tensor<1000x37xf32>, %b: tensor<37xf32>) -> tensor<1000x37xf32> {
  %0 = "jeet.add"(%a, %b) : (tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32>
  %1 = "jeet.exp"(%0) : (tensor<1000x37xf32>) -> tensor<1000x37xf32>
  return %1 : tensor<1000x37xf32>
}

// -----

// A matmul with its epilogue: 64x64 output tiles, the fill, the matmul and
// the epilogue all inside the one forall.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (128, 256) step (64, 64)
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]
// CHECK-NOT: linalg.
// CHECK: return
func.func @matmul_bias_relu(%x: tensor<128x64xf32>, %w: tensor<64x256xf32>, %b: tensor<256xf32>) -> tensor<128x256xf32> {
  %0 = "jeet.matmul"(%x, %w) : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  %1 = "jeet.add"(%0, %b) : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %2 = "jeet.relu"(%1) : (tensor<128x256xf32>) -> tensor<128x256xf32>
  return %2 : tensor<128x256xf32>
}

// -----

// A row reduction with its prologue: tiles of 8 rows (a warp each), the fill and the
// reduction inside.
// CHECK-LABEL: func.func @sum_of_squares
// CHECK: scf.forall (%{{.*}}) = (0) to (512) step (8)
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: jeet.kernel = 0 : i64
// CHECK-NOT: linalg.
// CHECK: return
func.func @sum_of_squares(%a: tensor<512x300xf32>) -> tensor<512xf32> {
  %0 = "jeet.mul"(%a, %a) : (tensor<512x300xf32>, tensor<512x300xf32>) -> tensor<512x300xf32>
  %1 = "jeet.reduce_sum"(%0) {axes = array<i64: 1>, keepdims = false} : (tensor<512x300xf32>) -> tensor<512xf32>
  return %1 : tensor<512xf32>
}

// -----

// A reduction to a scalar has no parallel dimension: one tile, computed in
// the forall's own output.
// CHECK-LABEL: func.func @total
// CHECK: scf.forall (%{{.*}}) in (1) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : tensor<f32>)
// CHECK: linalg.generic
// CHECK: tensor.parallel_insert_slice
// CHECK: mapping = [#gpu.block<linear_dim_0>]
func.func @total(%a: tensor<64x300xf32>) -> tensor<f32> {
  %1 = "jeet.reduce_sum"(%a) {axes = array<i64: 0, 1>, keepdims = false} : (tensor<64x300xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// A group of rank-0 ops with two results (a value and its exp): one tile
// with a shared output per result, each computed in place.
// CHECK-LABEL: func.func @scalar_group_with_two_results
// CHECK: scf.forall (%{{.*}}) in (1) shared_outs(%[[S:.*]] = %{{.*}}, %[[E:.*]] = %{{.*}}) -> (tensor<f32>, tensor<f32>)
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} outs(%[[S]], %[[E]] : tensor<f32>, tensor<f32>)
// CHECK: arith.addf
// CHECK: math.exp
// CHECK: tensor.parallel_insert_slice %[[R]]#0 into %[[S]][] [] []
// CHECK: tensor.parallel_insert_slice %[[R]]#1 into %[[E]][] [] []
// CHECK: mapping = [#gpu.block<linear_dim_0>]
// CHECK-NOT: scf.forall
// CHECK: return
func.func @scalar_group_with_two_results(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %s = "jeet.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %e = "jeet.exp"(%s) : (tensor<f32>) -> tensor<f32>
  return %s, %e : tensor<f32>, tensor<f32>
}

// -----

// reduce_mean with keepdims: the division reads the expand_shape of the
// keepdims reduction. The reshape moves past the division so that both are
// one tile of one kernel (tiling fuses no producer through a reshape).
// CHECK-LABEL: func.func @mean_keepdims
// CHECK: scf.forall
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: jeet.kernel = 0 : i64
// CHECK-NOT: scf.forall
// CHECK: tensor.expand_shape
// CHECK: return
func.func @mean_keepdims(%x: tensor<3x4x5xf32>) -> tensor<3x4x1xf32> {
  %0 = "jeet.reduce_mean"(%x) {axes = array<i64: 2>, keepdims = true} : (tensor<3x4x5xf32>) -> tensor<3x4x1xf32>
  return %0 : tensor<3x4x1xf32>
}

// -----

// A keepdims reduction that is a result of its group and feeds another
// result: the consumer's forall computes and yields both, and the reshape of
// the reduction (before the forall in program order) moves after it (it
// once used the forall's result before its definition).
// CHECK-LABEL: func.func @reduction_result_and_consumer
// CHECK: %[[LOOP:.*]]:2 = scf.forall
// CHECK: arith.addf
// CHECK: arith.negf
// CHECK: jeet.kernel = 0 : i64
// CHECK-NOT: scf.forall
// CHECK-DAG: tensor.expand_shape %[[LOOP]]#0
// CHECK-DAG: tensor.expand_shape %[[LOOP]]#1
// CHECK: return
func.func @reduction_result_and_consumer(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>) {
  %s = "jeet.add"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = "jeet.reduce_sum"(%s) {axes = array<i64: 0>, keepdims = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %n = "jeet.neg"(%r) : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return %r, %n : tensor<1x3xf32>, tensor<1x3xf32>
}

// -----

// A full reduction (one block) of a broadcast larger than a block's
// workgroup memory: the broadcast is a kernel of its own before it, not a
// tile tensor of 372000 bytes.
// CHECK-LABEL: func.func @full_reduction_of_a_large_broadcast
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (31, 3, 1000)
// CHECK: } {jeet.kernel = 1 : i64
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK-NOT: tensor.empty() : tensor<31x3x1000xf32>
// CHECK: arith.minimumf
// CHECK: } {jeet.kernel = 0 : i64
func.func @full_reduction_of_a_large_broadcast(%x: tensor<3x1000xf32>) -> tensor<f32> {
  %0 = jeet.broadcast_to %x : tensor<3x1000xf32> -> tensor<31x3x1000xf32>
  %1 = jeet.reduce_min %0 {axes = array<i64: 0, 1, 2>} : tensor<31x3x1000xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// The same for a transpose (256 KiB) under a sum to a scalar, which was a
// compilation error ("needs 262144 bytes of workgroup memory"): the
// transpose is a kernel of its own.
// CHECK-LABEL: func.func @transpose_then_sum
// CHECK: linalg.transpose
// CHECK: } {jeet.kernel = 0 : i64
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK: arith.addf
// CHECK: } {jeet.kernel = 1 : i64
func.func @transpose_then_sum(%x: tensor<256x256xf32>) -> tensor<f32> {
  %t = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<256x256xf32> -> tensor<256x256xf32>
  %s = jeet.reduce_sum %t {axes = array<i64: 0, 1>} : tensor<256x256xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A mean over rows of 31 of a remainder of a broadcast that the group also
// returns: lowering leaves the remainder a generic of its own (its input is
// returned too), so each tile holds it whole for the reduction, 31 values of
// 4 bytes per output. Tiles of 1000 outputs held 124,000 bytes, a
// compilation error ("needs 124000 bytes of workgroup memory"; the numeric
// fuzzer on the GPU emulator, seed 112,476); they now take as many outputs
// as fit 32 KiB: 264.
// CHECK-LABEL: func.func @mean_of_a_returned_broadcast
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (2, 1000) step (1, 264)
// CHECK: arith.remf
// CHECK: arith.addf
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0) to (2, 1000, 31)
func.func @mean_of_a_returned_broadcast(%x: tensor<1000x31xf32>) -> (tensor<2x1000xf32>, tensor<2x1000x31xf32>) {
  %0 = jeet.broadcast_to %x : tensor<1000x31xf32> -> tensor<2x1000x31xf32>
  %c = jeet.constant dense<-0.2079> : tensor<f32>
  %1 = jeet.rem %0, %c : tensor<2x1000x31xf32>, tensor<f32> -> tensor<2x1000x31xf32>
  %2 = jeet.reduce_mean %1 {axes = array<i64: 2>} : tensor<2x1000x31xf32> -> tensor<2x1000xf32>
  return %2, %0 : tensor<2x1000xf32>, tensor<2x1000x31xf32>
}
