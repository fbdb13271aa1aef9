// RUN: jeet-opt %s --jeet-one-shot-bufferize | FileCheck %s
// RUN: jeet-opt %s --jeet-cpu-pipeline | FileCheck %s --check-prefix=CPU

// A strided view made contiguous (here for a collapse the view cannot take)
// is copied by a linalg.copy, lowered to loops with the kernels: a
// memref.copy of a strided buffer would become a call of `memrefCopy`, a
// function of MLIR's runtime library that the JIT and artifacts do not link
// ("Symbols not found: [ memrefCopy ]", fuzz_numerics.py seed 595,217
// before slices were read as rank-reduced views). Copies of contiguous
// buffers stay memref.copy (a memcpy).
// CHECK-LABEL: func.func @strided
// CHECK: %[[V:.*]] = memref.subview
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: linalg.copy ins(%[[V]] : memref<4x3xf32, strided<[12, 2], offset: 1>>) outs(%[[A]] : memref<4x3xf32>)
// CHECK-NOT: memref.copy
// CPU-NOT: memrefCopy
func.func @strided(%x: tensor<8x6xf32>) -> tensor<12xf32> {
  %s = tensor.extract_slice %x[0, 1] [4, 3] [2, 2] : tensor<8x6xf32> to tensor<4x3xf32>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<4x3xf32> into tensor<12xf32>
  return %c : tensor<12xf32>
}
