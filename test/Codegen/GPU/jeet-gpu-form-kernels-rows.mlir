// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-decompose,jeet-fuse{multi-reduction=true max-row-bytes=4096}),jeet-gpu-form-kernels,canonicalize,cse)' | FileCheck %s
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-decompose,jeet-fuse{multi-reduction=true}),jeet-gpu-form-kernels,canonicalize,cse)' | FileCheck %s --check-prefix=SPLIT
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-decompose,jeet-fuse{multi-reduction=true max-row-bytes=32768}),jeet-gpu-form-kernels,canonicalize,cse)' | FileCheck %s --check-prefix=WIDE

// Multi-reduction groups: one kernel per group whose rows fit (jeet-fuse's
// max-row-bytes, which the GPU pipeline sets to 32 KiB), tiled over blocks
// of 8 rows (fewer where 8 rows would pass 32 KiB) with the reduced
// dimension whole; the input rows that several ops of the tile read are
// staged in a tile tensor (workgroup memory once bufferized).

// Softmax: one forall; max, exp-sum and the division read the staged rows.
// CHECK-LABEL: func.func @softmax
// CHECK: scf.forall (%[[R:.*]]) = (0) to (19) step (8)
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %{{.*}}[%[[R]], 0] [%{{.*}}, 1000] [1, 1]
// CHECK: %[[STAGED:.*]] = linalg.copy ins(%[[ROWS]] : tensor<?x1000xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[STAGED]] :
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[STAGED]], %[[MAX]] :
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[STAGED]], %[[MAX]], %[[SUM]] :
// CHECK: arith.divf
// CHECK: } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
// CHECK-NOT: scf.forall
// CHECK: return
func.func @softmax(%x: tensor<19x1000xf32>) -> tensor<19x1000xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<19x1000xf32>) -> tensor<19x1000xf32>
  return %0 : tensor<19x1000xf32>
}

// -----

// Layernorm (mean; x - mean, square; mean; rsqrt; scale, shift): one forall
// with both reductions.
// CHECK-LABEL: func.func @layernorm
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (8)
// CHECK: linalg.copy
// CHECK-COUNT-2: iterator_types = ["parallel", "reduction"]
// CHECK: math.rsqrt
// CHECK: } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
// CHECK-NOT: scf.forall
// CHECK: return
func.func @layernorm(%x: tensor<64x512xf16>, %g: tensor<512xf16>, %b: tensor<512xf16>) -> tensor<64x512xf16> {
  %eps = jeet.constant dense<1.0e-5> : tensor<f16>
  %m = jeet.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : tensor<64x512xf16> -> tensor<64x1xf16>
  %d = jeet.sub %x, %m : tensor<64x512xf16>, tensor<64x1xf16> -> tensor<64x512xf16>
  %sq = jeet.mul %d, %d : tensor<64x512xf16>, tensor<64x512xf16> -> tensor<64x512xf16>
  %v = jeet.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : tensor<64x512xf16> -> tensor<64x1xf16>
  %ve = jeet.add %v, %eps : tensor<64x1xf16>, tensor<f16> -> tensor<64x1xf16>
  %r = jeet.rsqrt %ve : tensor<64x1xf16>
  %n = jeet.mul %d, %r : tensor<64x512xf16>, tensor<64x1xf16> -> tensor<64x512xf16>
  %s = jeet.mul %n, %g : tensor<64x512xf16>, tensor<512xf16> -> tensor<64x512xf16>
  %o = jeet.add %s, %b : tensor<64x512xf16>, tensor<512xf16> -> tensor<64x512xf16>
  return %o : tensor<64x512xf16>
}

// -----

// Rows of one element: the reductions are broadcast through reshapes that
// add unit dimensions, which the row ops read through; still one forall.
// CHECK-LABEL: func.func @one_column
// CHECK: scf.forall
// CHECK: } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
// CHECK-NOT: scf.forall
// CHECK: return
func.func @one_column(%x: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<3x1xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// The rows of one element come from a keepdims reduction: the softmax's
// reductions read them through the reshape that adds the unit axis, and
// would have no extent left for their reduced loop if they read its source.
// They keep that one reshape; the row ops read the group's own results
// through theirs. Two kernels: the reduction, then the whole softmax.
// CHECK-LABEL: func.func @rows_of_a_keepdims_reduction
// CHECK: } {jeet.kernel = 0 : i64
// CHECK: %[[ROWS:.*]] = tensor.expand_shape {{.*}} into tensor<33x2x1xf32>
// CHECK: scf.forall
// CHECK: tensor.extract_slice %[[ROWS]]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins({{.*}}tensor<?x2x1xf32>)
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins({{.*}}tensor<?x2x1xf32>, tensor<?x2xf32>)
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: } {jeet.kernel = 1 : i64
// CHECK-NOT: jeet.kernel =
// CHECK: return
func.func @rows_of_a_keepdims_reduction(%x: tensor<33x2x2xf32>) -> tensor<33x2x1xf32> {
  %0 = "jeet.reduce_sum"(%x) {axes = array<i64: 2>, keepdims = true} : (tensor<33x2x2xf32>) -> tensor<33x2x1xf32>
  %1 = "jeet.softmax"(%0) {axis = 2 : i64} : (tensor<33x2x1xf32>) -> tensor<33x2x1xf32>
  return %1 : tensor<33x2x1xf32>
}

// -----

// Rows of 4100 bytes are too long: jeet-fuse keeps a group per reduction and
// the softmax is three kernels (max; exp and its sum; divide).
// CHECK-LABEL: func.func @long_rows
// CHECK-COUNT-3: jeet.kernel =
// CHECK-NOT: jeet.kernel =
// CHECK: return
func.func @long_rows(%x: tensor<4x1025xf32>) -> tensor<4x1025xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<4x1025xf32>) -> tensor<4x1025xf32>
  return %0 : tensor<4x1025xf32>
}

// -----

// A softmax over the leading axis: jeet-fuse with max-row-bytes keeps a
// group per reduction (the rows are not the trailing axis). Without
// max-row-bytes it is one multi-reduction group, but not over rows:
// jeet-gpu-form-kernels splits it at its reductions, which are not fused
// into the ops over their own rows: three kernels, the reductions before
// their readers.
// CHECK-LABEL: func.func @columns
// CHECK-COUNT-3: jeet.kernel =
// CHECK-NOT: jeet.kernel =
// CHECK: return
// SPLIT-LABEL: func.func @columns
// SPLIT: iterator_types = ["reduction", "parallel"]
// SPLIT: arith.maximumf
// SPLIT: jeet.kernel = 2 : i64
// SPLIT: iterator_types = ["reduction", "parallel"]
// SPLIT: math.exp
// SPLIT: jeet.kernel = 1 : i64
// SPLIT: arith.divf
// SPLIT: jeet.kernel = 0 : i64
// SPLIT-NOT: jeet.kernel =
// SPLIT: return
func.func @columns(%x: tensor<100x37xf32>) -> tensor<100x37xf32> {
  %0 = "jeet.softmax"(%x) {axis = 0 : i64} : (tensor<100x37xf32>) -> tensor<100x37xf32>
  return %0 : tensor<100x37xf32>
}

// -----

// A split group (the softmax over the only axis) whose reductions read an op
// the last kernel also yields (the broadcast, a result of the graph): the
// reductions keep reading their own copy of it, before the kernel, rather
// than the kernel's result, which comes after them.
// CHECK-LABEL: func.func @reductions_of_a_returned_broadcast
// CHECK: %[[MAX:.*]] = scf.forall
// CHECK: arith.maximumf
// CHECK: } {jeet.kernel = 1 : i64
// CHECK: %[[SUM:.*]] = scf.forall
// CHECK: math.exp
// CHECK: } {jeet.kernel = 1 : i64
// CHECK: %[[LAST:.*]]:2 = scf.forall
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[MAX]], %[[SUM]] :
// CHECK: arith.divf
// CHECK: } {jeet.kernel = 0 : i64
// CHECK-NOT: jeet.kernel =
// CHECK: return %[[LAST]]#1, %[[LAST]]#0
func.func @reductions_of_a_returned_broadcast(%x: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "jeet.broadcast_to"(%x) : (tensor<f32>) -> tensor<4xf32>
  %1 = "jeet.softmax"(%0) {axis = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Rows of 16 KiB (4096 f32): blocks of 2 rows, staged (32 KiB).
// WIDE-LABEL: func.func @rows_of_16_kib
// WIDE: scf.forall (%{{.*}}) = (0) to (19) step (2)
// WIDE: linalg.copy ins(%{{.*}} : tensor<?x4096xf32>)
// WIDE: arith.divf
// WIDE: } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
// WIDE-NOT: scf.forall
// WIDE: return
func.func @rows_of_16_kib(%x: tensor<19x4096xf32>) -> tensor<19x4096xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<19x4096xf32>) -> tensor<19x4096xf32>
  return %0 : tensor<19x4096xf32>
}

// -----

// f16 rows of 8192 (16 KiB as stored; the means sum them in f32): blocks of
// 2 rows.
// WIDE-LABEL: func.func @f16_rows_of_16_kib
// WIDE: scf.forall (%{{.*}}) = (0) to (5) step (2)
// WIDE: linalg.copy ins(%{{.*}} : tensor<?x8192xf16>)
// WIDE: math.rsqrt
// WIDE: } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
// WIDE-NOT: scf.forall
// WIDE: return
func.func @f16_rows_of_16_kib(%x: tensor<5x8192xf16>) -> tensor<5x8192xf16> {
  %eps = jeet.constant dense<1.0e-5> : tensor<f16>
  %m = jeet.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : tensor<5x8192xf16> -> tensor<5x1xf16>
  %d = jeet.sub %x, %m : tensor<5x8192xf16>, tensor<5x1xf16> -> tensor<5x8192xf16>
  %sq = jeet.mul %d, %d : tensor<5x8192xf16>, tensor<5x8192xf16> -> tensor<5x8192xf16>
  %v = jeet.reduce_mean %sq {axes = array<i64: 1>, keepdims = true} : tensor<5x8192xf16> -> tensor<5x1xf16>
  %ve = jeet.add %v, %eps : tensor<5x1xf16>, tensor<f16> -> tensor<5x1xf16>
  %r = jeet.rsqrt %ve : tensor<5x1xf16>
  %n = jeet.mul %d, %r : tensor<5x8192xf16>, tensor<5x1xf16> -> tensor<5x8192xf16>
  return %n : tensor<5x8192xf16>
}

// -----

// Rows of 32 KiB: a row per block; one more element and the softmax is
// split into three kernels.
// WIDE-LABEL: func.func @rows_of_32_kib
// WIDE: scf.forall (%{{.*}}) in (3)
// WIDE: linalg.copy ins(%{{.*}} : tensor<1x8192xf32>)
// WIDE: } {jeet.kernel = 0 : i64, mapping = [#gpu.block<linear_dim_0>]}
// WIDE-NOT: scf.forall
// WIDE: return
// WIDE-LABEL: func.func @rows_past_32_kib
// WIDE-COUNT-3: jeet.kernel =
// WIDE-NOT: jeet.kernel =
// WIDE: return
func.func @rows_of_32_kib(%x: tensor<3x8192xf32>) -> tensor<3x8192xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<3x8192xf32>) -> tensor<3x8192xf32>
  return %0 : tensor<3x8192xf32>
}
func.func @rows_past_32_kib(%x: tensor<3x8193xf32>) -> tensor<3x8193xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<3x8193xf32>) -> tensor<3x8193xf32>
  return %0 : tensor<3x8193xf32>
}
