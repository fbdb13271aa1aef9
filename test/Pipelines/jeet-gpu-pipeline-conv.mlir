// RUN: jeet-opt %s --jeet-gpu-kernel-pipeline=target=emulator | FileCheck %s
// RUN: jeet-opt %s --jeet-gpu-kernel-pipeline="target=emulator fuse=false" | FileCheck %s --check-prefix=UNFUSED

// conv2d + bias + relu: the bias add and the relu are the epilogue of the
// convolution's matmul kernel (jeet-sink-reshapes), which reads the bias as
// (O) and writes (N, O, OH * OW), viewed as NCHW; the other kernels pad the
// input and gather its windows. The matmul kernel writes the result's
// buffer itself, seen as (N, O, OH * OW) (jeet-reshaped-results-in-place),
// with no copy after it. Unfused, the add and the relu are kernels of their
// own.
// CHECK-LABEL: func.func @main
// CHECK-COUNT-2: gpu.launch_func
// CHECK: %[[B:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1, 2]] : memref<4x1x1xf32> into memref<4xf32>
// CHECK: %[[OUT:.*]] = memref.collapse_shape %arg3 {{\[\[}}0], [1], [2, 3]] : memref<2x4x8x8xf32> into memref<2x4x64xf32>
// CHECK: gpu.launch_func {{.*}} args({{.*}} %[[OUT]] : memref<2x4x64xf32>, {{.*}} %[[B]] : memref<4xf32>)
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: memref.copy
// CHECK: return
// UNFUSED-LABEL: func.func @main
// UNFUSED-COUNT-5: gpu.launch_func
// UNFUSED-NOT: gpu.launch_func
// UNFUSED: return
func.func @main(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4x1x1xf32>) -> tensor<2x4x8x8xf32> {
  %0 = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
  %1 = jeet.add %0, %b : tensor<2x4x8x8xf32>, tensor<4x1x1xf32> -> tensor<2x4x8x8xf32>
  %2 = jeet.relu %1 : tensor<2x4x8x8xf32>
  return %2 : tensor<2x4x8x8xf32>
}
