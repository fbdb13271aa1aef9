// RUN: jeet-opt %s --jeet-cpu-pipeline | FileCheck %s

// Two layers of an MLP (matmul tiles with a bias and relu epilogue) run in
// one OpenMP region: one start of the threads per call, a barrier between
// the layers; the four tiles of each layer are handed out one at a time,
// by an atomic counter per layer in main's frame (zeroed before the region)
// and not by libomp's loop calls. Both layers' tiles accumulate into one
// 64x64 buffer on each thread's stack, made at the region's start: the
// graph calls no allocator.
// CHECK-LABEL: llvm.func @main
// CHECK-NOT:     _mlir_memref_to_llvm_
// CHECK:         %[[C1:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NEXT:    %[[C2:.*]] = llvm.alloca %{{.*}} x i64
// CHECK-NEXT:    llvm.store %[[ZERO:.*]], %[[C2]] : i64, !llvm.ptr
// CHECK-NEXT:    llvm.store %[[ZERO]], %[[C1]] : i64, !llvm.ptr
// CHECK-NEXT:    omp.parallel {
// CHECK-NEXT:      llvm.call @omp_get_thread_num()
// CHECK-NEXT:      llvm.call @omp_get_num_threads()
// CHECK-NEXT:      llvm.alloca %{{.*}} x f32 {alignment = 64 : i64}
// CHECK-NOT:       omp.wsloop
// CHECK:           llvm.atomicrmw add %[[C2]], %{{.*}} acq_rel
// CHECK:           omp.barrier
// CHECK:           llvm.atomicrmw add %[[C1]], %{{.*}} acq_rel
// CHECK:           omp.barrier
// CHECK-NEXT:      omp.terminator
// CHECK-NOT:     omp.parallel
// CHECK-NOT:     _mlir_memref_to_llvm_
func.func @main(%x: tensor<64x128xf32>, %w1: tensor<128x256xf32>,
                %b1: tensor<256xf32>, %w2: tensor<256x256xf32>,
                %b2: tensor<256xf32>) -> tensor<64x256xf32> {
  %0 = jeet.matmul %x, %w1 : tensor<64x128xf32>, tensor<128x256xf32> -> tensor<64x256xf32>
  %1 = jeet.add %0, %b1 : tensor<64x256xf32>, tensor<256xf32> -> tensor<64x256xf32>
  %2 = jeet.relu %1 : tensor<64x256xf32>
  %3 = jeet.matmul %2, %w2 : tensor<64x256xf32>, tensor<256x256xf32> -> tensor<64x256xf32>
  %4 = jeet.add %3, %b2 : tensor<64x256xf32>, tensor<256xf32> -> tensor<64x256xf32>
  %5 = jeet.relu %4 : tensor<64x256xf32>
  return %5 : tensor<64x256xf32>
}
