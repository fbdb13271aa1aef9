// RUN: jeet-opt %s --split-input-file --jeet-gpu-pipeline | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-gpu-pipeline=fuse=false | FileCheck %s --check-prefix=UNFUSED
// RUN: jeet-opt %s --split-input-file --jeet-gpu-kernel-pipeline | FileCheck %s --check-prefix=HOST

// Ten elementwise ops are one fusion group, one launch; unfused, ten.
// CHECK-LABEL: llvm.func @chain
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
// CHECK: gpu.binary @jeet_kernels
// CHECK-SAME: #nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK-SAME: .entry chain_kernel(
// UNFUSED-LABEL: llvm.func @chain
// UNFUSED-COUNT-10: gpu.launch_func
// UNFUSED-NOT: gpu.launch_func
// UNFUSED: llvm.return
func.func @chain(%a: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = "jeet.add"(%a, %b) : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  %1 = "jeet.mul"(%0, %b) : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  %2 = "jeet.sub"(%1, %a) : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  %3 = "jeet.exp"(%2) : (tensor<4096xf32>) -> tensor<4096xf32>
  %4 = "jeet.add"(%3, %b) : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  %5 = "jeet.tanh"(%4) : (tensor<4096xf32>) -> tensor<4096xf32>
  %6 = "jeet.max"(%5, %a) : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  %7 = "jeet.relu"(%6) : (tensor<4096xf32>) -> tensor<4096xf32>
  %8 = "jeet.sqrt"(%7) : (tensor<4096xf32>) -> tensor<4096xf32>
  %9 = "jeet.neg"(%8) : (tensor<4096xf32>) -> tensor<4096xf32>
  return %9 : tensor<4096xf32>
}

// -----

// A three-layer MLP is three kernels: each matmul with its bias and
// activation as epilogue.
// CHECK-LABEL: llvm.func @mlp
// CHECK-COUNT-3: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
// The intermediates are views into the arena the caller passes (64x256xf32
// at 0, 64x128xf32 after it: both alive while the second kernel runs), the
// launches are chained on the caller's stream, and nothing waits.
// HOST-LABEL: func.func @mlp
// HOST-SAME: %[[OUT:[^:]*]]: memref<64x10xf32>, %[[ARENA:[^:]*]]: memref<98304xi8> {jeet.arena}, %[[S:[^:]*]]: !gpu.async.token {jeet.stream})
// HOST-SAME: jeet.memory_plan = {arena_bytes = 98304 : i64, buffers = 2 : i64, intermediate_bytes = 98304 : i64, live_bytes_bound = 98304 : i64}
// HOST-NOT: gpu.alloc
// HOST: %[[H1:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<98304xi8> to memref<64x256xf32>
// HOST: %[[K1:.*]] = gpu.launch_func async [%[[S]]] @jeet_kernels::@mlp_kernel
// HOST: %[[C64K:.*]] = arith.constant 65536 : index
// HOST: %[[H2:.*]] = memref.view %[[ARENA]][%[[C64K]]][] : memref<98304xi8> to memref<64x128xf32>
// HOST: %[[K2:.*]] = gpu.launch_func async [%[[K1]]] @jeet_kernels::@mlp_kernel_0 {{.*}}args({{.*}}%[[H2]] : memref<64x128xf32>, %[[H1]] : memref<64x256xf32>)
// HOST: gpu.launch_func async [%[[K2]]] @jeet_kernels::@mlp_kernel_1 {{.*}}%[[OUT]] : memref<64x10xf32>)
// HOST-NOT: gpu.dealloc
// HOST-NOT: gpu.wait
// HOST-NEXT: return
// HOST: gpu.module @jeet_kernels
// HOST-COUNT-3: gpu.func @mlp_kernel{{.*}} kernel
func.func @mlp(%x: tensor<64x128xf32>, %w1: tensor<128x256xf32>, %b1: tensor<256xf32>,
               %w2: tensor<256x128xf32>, %b2: tensor<128xf32>,
               %w3: tensor<128x10xf32>, %b3: tensor<10xf32>) -> tensor<64x10xf32> {
  %0 = "jeet.matmul"(%x, %w1) : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  %1 = "jeet.add"(%0, %b1) : (tensor<64x256xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %2 = "jeet.relu"(%1) : (tensor<64x256xf32>) -> tensor<64x256xf32>
  %3 = "jeet.matmul"(%2, %w2) : (tensor<64x256xf32>, tensor<256x128xf32>) -> tensor<64x128xf32>
  %4 = "jeet.add"(%3, %b2) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %5 = "jeet.gelu"(%4) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %6 = "jeet.matmul"(%5, %w3) : (tensor<64x128xf32>, tensor<128x10xf32>) -> tensor<64x10xf32>
  %7 = "jeet.add"(%6, %b3) : (tensor<64x10xf32>, tensor<10xf32>) -> tensor<64x10xf32>
  return %7 : tensor<64x10xf32>
}

// -----

// Softmax is one multi-reduction group (max; exp and its sum; divide): one
// launch, a block per 8 rows.
// CHECK-LABEL: llvm.func @softmax
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %0 : tensor<64x1000xf32>
}

// -----

// Rows of 16 KiB (4096 f32): two rows per block in 32 KiB of shared memory,
// still one launch.
// CHECK-LABEL: llvm.func @softmax_rows_of_16_kib
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @softmax_rows_of_16_kib(%x: tensor<8x4096xf32>) -> tensor<8x4096xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<8x4096xf32>) -> tensor<8x4096xf32>
  return %0 : tensor<8x4096xf32>
}

// -----

// Rows longer than 32 KiB (8193 f32) do not fit a block's shared memory:
// still one group and one launch, a block per row whose passes (max; exp and
// its sum; divide) read the row from global memory, none staged (the
// kernel's shared memory is the two row results and the warps' slots).
// CHECK-LABEL: llvm.func @long_softmax
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
// CHECK: gpu.binary
// CHECK-SAME: .visible .entry long_softmax_kernel(
// CHECK-NOT: [32772]
// CHECK-SAME: ret;
func.func @long_softmax(%x: tensor<4x8193xf32>) -> tensor<4x8193xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<4x8193xf32>) -> tensor<4x8193xf32>
  return %0 : tensor<4x8193xf32>
}

// -----

// One such row: three fusion groups (max; exp and its sum; divide), three
// launches, so that the divide is parallel over many blocks instead of the
// one that a row's kernel would have; the group with two results (exp and
// sum) is one launch.
// CHECK-LABEL: llvm.func @long_softmax_one_row
// CHECK-COUNT-3: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.return
func.func @long_softmax_one_row(%x: tensor<1x8193xf32>) -> tensor<1x8193xf32> {
  %0 = "jeet.softmax"(%x) {axis = 1 : i64} : (tensor<1x8193xf32>) -> tensor<1x8193xf32>
  return %0 : tensor<1x8193xf32>
}
