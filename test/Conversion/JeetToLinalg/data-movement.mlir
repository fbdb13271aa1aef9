// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s
// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s --check-prefix=MAP

// Each op is one parallel generic over its result that reads its inputs with
// tensor.extract at indices clamped into them.

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:[^:]*]]: tensor<2x3xf32>, %[[B:[^:]*]]: tensor<4x3xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<6x3xf32>)
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[EA:.*]] = tensor.extract %[[A]]
// CHECK: arith.subi %[[I]], %c2
// CHECK: %[[EB:.*]] = tensor.extract %[[B]]
// CHECK: %[[BEFORE:.*]] = arith.cmpi slt, %[[I]], %c2
// CHECK: arith.select %[[BEFORE]], %[[EA]], %[[EB]] : f32
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<6x3xf32> {
  %0 = jeet.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
  return %0 : tensor<6x3xf32>
}

// A slice reads start + i * step: here 3 - i along dimension 0.
// CHECK-LABEL: func.func @slice
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2xf32>)
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[M:.*]] = arith.muli %[[I]], %c-2
// CHECK: %[[R:.*]] = arith.addi %[[M]], %c3
// CHECK: tensor.extract %{{.*}}[%[[R]], %{{.*}}] : tensor<4x3xf32>
func.func @slice(%x: tensor<4x3xf32>) -> tensor<2x2xf32> {
  %0 = jeet.slice %x {starts = array<i64: -1, 0>, stops = array<i64: -9223372036854775808, 3>, steps = array<i64: -2, 2>} : tensor<4x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// Gather reads its indices through the loops of their dimensions, wraps the
// negative ones and clamps the rest into [0, 10).
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<5xi64>) outs(%{{.*}} : tensor<5x4xf32>)
// CHECK: %[[IDX:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[W:.*]] = arith.addi %[[IDX]], %c10
// CHECK: %[[N:.*]] = arith.cmpi slt, %[[IDX]], %c0
// CHECK: %[[S:.*]] = arith.select %[[N]], %[[W]], %[[IDX]]
// CHECK: %[[LO:.*]] = arith.maxsi %[[S]], %c0
// CHECK: %[[C:.*]] = arith.minsi %[[LO]], %c9
// CHECK: tensor.extract %{{.*}}[%[[C]], %{{.*}}] : tensor<10x4xf32>
func.func @gather(%t: tensor<10x4xf32>, %i: tensor<5xi64>) -> tensor<5x4xf32> {
  %0 = jeet.gather %t, %i {axis = 0 : i64} : tensor<10x4xf32>, tensor<5xi64> -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// Pad reads the value in the loop and selects it outside the input; the
// generic carries the low padding (jeet.pad_low) for the CPU code generator.
// CHECK-LABEL: func.func @pad
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x6xf32>) attrs = {{.*}}jeet.pad_low = array<i64: 1, 2>}
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: %[[E:.*]] = tensor.extract %{{.*}} : tensor<2x3xf32>
// CHECK: arith.select %{{.*}}, %[[E]], %[[V]] : f32
func.func @pad(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<4x6xf32> {
  %0 = jeet.pad %x, %v {low = array<i64: 1, 2>, high = array<i64: 1, 1>} : tensor<2x3xf32>, tensor<f32> -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// An empty result has nothing to compute: it folds to an empty constant.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: linalg.generic
// CHECK: arith.constant dense<> : tensor<0x3xf32>
func.func @empty(%x: tensor<4x3xf32>) -> tensor<0x3xf32> {
  %0 = jeet.slice %x {starts = array<i64: 2, 0>, stops = array<i64: 2, 3>, steps = array<i64: 1, 1>} : tensor<4x3xf32> -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// im2col is a copy whose input map is affine in the loops
// (n, c, kh, kw, oh, ow): rows oh * 2 + kh * 1, columns ow * 1 + kw * 2.
// MAP: affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 + d3 * 2)>
// CHECK-LABEL: func.func @im2col
// CHECK: linalg.generic {indexing_maps = [#[[IN:.*]], #{{.*}}], {{.*}} ins(%{{.*}} : tensor<1x2x7x7xf32>) outs(%{{.*}} : tensor<1x2x3x2x3x5xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[X]] : f32
func.func @im2col(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x3x2x3x5xf32> {
  %0 = jeet.im2col %x {kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>} : tensor<1x2x7x7xf32> -> tensor<1x2x3x2x3x5xf32>
  return %0 : tensor<1x2x3x2x3x5xf32>
}
