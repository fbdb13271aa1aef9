// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-reshaped-results-in-place))' | FileCheck %s

// A result returned through an expand_shape of the buffer that computes it:
// computed in the out-parameter, seen through the inverse collapse_shape;
// the copy and the buffer are gone.
// CHECK-LABEL: func.func @expanded
// CHECK-SAME: (%[[X:.*]]: memref<4096xf32>, %[[OUT:.*]]: memref<64x64xf32>)
// CHECK-NEXT: %[[C:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1]] : memref<64x64xf32> into memref<4096xf32>
// CHECK-NEXT: linalg.copy ins(%[[X]] : memref<4096xf32>) outs(%[[C]] : memref<4096xf32>)
// CHECK-NEXT: return
func.func @expanded(%x: memref<4096xf32>, %out: memref<64x64xf32>) {
  %buf = memref.alloc() {alignment = 64 : i64} : memref<4096xf32>
  linalg.copy ins(%x : memref<4096xf32>) outs(%buf : memref<4096xf32>)
  %e = memref.expand_shape %buf [[0, 1]] output_shape [64, 64] : memref<4096xf32> into memref<64x64xf32>
  memref.copy %e, %out : memref<64x64xf32> to memref<64x64xf32>
  return
}

// -----

// Through a collapse_shape, the buffer read by another kernel before the
// copy: computed in the out-parameter through an expand_shape, and the
// other kernel reads it there.
// CHECK-LABEL: func.func @collapsed
// CHECK-SAME: (%[[X:.*]]: memref<8x16xf32>, %[[Y:.*]]: memref<8x16xf32>, %[[OUT:.*]]: memref<128xf32>)
// CHECK-NEXT: %[[E:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1]] output_shape [8, 16] : memref<128xf32> into memref<8x16xf32>
// CHECK-NEXT: linalg.copy ins(%[[X]] : memref<8x16xf32>) outs(%[[E]] : memref<8x16xf32>)
// CHECK-NEXT: linalg.copy ins(%[[E]] : memref<8x16xf32>) outs(%[[Y]] : memref<8x16xf32>)
// CHECK-NEXT: return
func.func @collapsed(%x: memref<8x16xf32>, %y: memref<8x16xf32>, %out: memref<128xf32>) {
  %buf = memref.alloc() : memref<8x16xf32>
  linalg.copy ins(%x : memref<8x16xf32>) outs(%buf : memref<8x16xf32>)
  linalg.copy ins(%buf : memref<8x16xf32>) outs(%y : memref<8x16xf32>)
  %c = memref.collapse_shape %buf [[0, 1]] : memref<8x16xf32> into memref<128xf32>
  memref.copy %c, %out : memref<128xf32> to memref<128xf32>
  return
}

// -----

// The buffer written after the copy: the result is the value at the copy,
// so the copy stays.
// CHECK-LABEL: func.func @written_after
// CHECK: memref.alloc
// CHECK: memref.copy
// CHECK: linalg.fill
func.func @written_after(%x: memref<4096xf32>, %out: memref<64x64xf32>) {
  %buf = memref.alloc() : memref<4096xf32>
  linalg.copy ins(%x : memref<4096xf32>) outs(%buf : memref<4096xf32>)
  %e = memref.expand_shape %buf [[0, 1]] output_shape [64, 64] : memref<4096xf32> into memref<64x64xf32>
  memref.copy %e, %out : memref<64x64xf32> to memref<64x64xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%buf : memref<4096xf32>)
  return
}

// -----

// One buffer, two results (a second copy into another out-parameter): both
// copies stay.
// CHECK-LABEL: func.func @two_results
// CHECK: memref.alloc
// CHECK-COUNT-2: memref.copy
func.func @two_results(%x: memref<4096xf32>, %out0: memref<4096xf32>, %out1: memref<64x64xf32>) {
  %buf = memref.alloc() : memref<4096xf32>
  linalg.copy ins(%x : memref<4096xf32>) outs(%buf : memref<4096xf32>)
  memref.copy %buf, %out0 : memref<4096xf32> to memref<4096xf32>
  %e = memref.expand_shape %buf [[0, 1]] output_shape [64, 64] : memref<4096xf32> into memref<64x64xf32>
  memref.copy %e, %out1 : memref<64x64xf32> to memref<64x64xf32>
  return
}

// -----

// The out-parameter read by a kernel too, an argument copied (not a
// buffer of the function), a buffer in another memory space: unchanged.
// CHECK-LABEL: func.func @out_read
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @out_read(%x: memref<4096xf32>, %y: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %buf = memref.alloc() : memref<4096xf32>
  linalg.copy ins(%x : memref<4096xf32>) outs(%buf : memref<4096xf32>)
  linalg.copy ins(%out : memref<64x64xf32>) outs(%y : memref<64x64xf32>)
  %e = memref.expand_shape %buf [[0, 1]] output_shape [64, 64] : memref<4096xf32> into memref<64x64xf32>
  memref.copy %e, %out : memref<64x64xf32> to memref<64x64xf32>
  return
}

// CHECK-LABEL: func.func @argument_source
// CHECK: memref.copy
func.func @argument_source(%x: memref<4096xf32>, %out: memref<64x64xf32>) {
  %e = memref.expand_shape %x [[0, 1]] output_shape [64, 64] : memref<4096xf32> into memref<64x64xf32>
  memref.copy %e, %out : memref<64x64xf32> to memref<64x64xf32>
  return
}

// CHECK-LABEL: func.func @other_memory_space
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @other_memory_space(%x: memref<4096xf32, 1>, %out: memref<64x64xf32>) {
  %buf = memref.alloc() : memref<4096xf32, 1>
  linalg.copy ins(%x : memref<4096xf32, 1>) outs(%buf : memref<4096xf32, 1>)
  %e = memref.expand_shape %buf [[0, 1]] output_shape [64, 64] : memref<4096xf32, 1> into memref<64x64xf32, 1>
  memref.copy %e, %out : memref<64x64xf32, 1> to memref<64x64xf32>
  return
}
