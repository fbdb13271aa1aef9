// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-decompose,jeet-fuse{multi-reduction=true max-row-bytes=32768}),jeet-gpu-form-kernels)' | FileCheck %s

// What a tile holds lives in the block's workgroup memory. A mean of 17,000
// halves per output widens them to f32 first: 68,000 bytes for one output,
// more than a block has (a compilation error; fuzz_numerics.py --device gpu
// seed 213,608). The widening stays outside the reduction's tiles, a kernel
// of its own launched first (kernel 1 here), and the reduction reads it.
// CHECK-LABEL: func.func @mean_of_a_wide_broadcast
// CHECK: %[[WIDE:.*]] = scf.forall
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: } {jeet.kernel = 1 : i64
// CHECK: scf.forall (%{{.*}}) in (3)
// CHECK-NOT: arith.extf
// CHECK: tensor.extract_slice %[[WIDE]]
// CHECK: arith.addf
// CHECK: } {jeet.kernel = 0 : i64
func.func @mean_of_a_wide_broadcast(%x: tensor<17x1000xf16>) -> tensor<3xf16> {
  %0 = jeet.broadcast_to %x : tensor<17x1000xf16> -> tensor<3x17x1000xf16>
  %1 = jeet.reduce_mean %0 {axes = array<i64: 1, 2>} : tensor<3x17x1000xf16> -> tensor<3xf16>
  return %1 : tensor<3xf16>
}

// -----

// A full reduction of a broadcast that the graph also returns: the
// broadcast's forall is a kernel formed first (kernel 0), and the
// reduction's one-block kernel reads its result. It cloned that forall into
// its tile instead (a forall nested in a kernel, which the emulation target
// could not lower: found by fuzz_graph_builder.py --device gpu --compare-cpu,
// seed 14,100,428).
// CHECK-LABEL: func.func @full_reduction_of_a_returned_broadcast
// CHECK: %[[B:.*]]:2 = scf.forall
// CHECK: arith.negf
// CHECK: } {jeet.kernel = 0 : i64
// CHECK: scf.forall (%{{.*}}) in (1)
// CHECK-NOT: scf.forall
// CHECK: ins(%[[B]]#1 : tensor<8x7x3x2xf32>)
// CHECK: arith.maximumf
// CHECK: } {jeet.kernel = 1 : i64
func.func @full_reduction_of_a_returned_broadcast(%x: tensor<7x3x2xf32>) -> (tensor<8x7x3x2xf32>, tensor<8x7x3x2xf32>, tensor<f32>) {
  %0 = jeet.broadcast_to %x : tensor<7x3x2xf32> -> tensor<8x7x3x2xf32>
  %1 = jeet.neg %0 : tensor<8x7x3x2xf32>
  %2 = jeet.reduce_max %0 {axes = array<i64: 0, 1, 2, 3>} : tensor<8x7x3x2xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<8x7x3x2xf32>, tensor<8x7x3x2xf32>, tensor<f32>
}
