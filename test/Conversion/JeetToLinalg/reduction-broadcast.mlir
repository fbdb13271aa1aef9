// RUN: jeet-opt %s --jeet-fuse --jeet-lower-to-linalg | FileCheck %s

// A reduction over a dimension its prologue broadcasts along: no operand of
// the fused loop nest would index that dimension, so the operand is computed
// in full first and then reduced (two generics, both valid).
// CHECK-LABEL: func.func @sum_of_broadcast
// CHECK:         %[[FULL:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      outs({{.*}} : tensor<2x6xf32>)
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK-SAME:      ins(%[[FULL]] : tensor<2x6xf32>)
func.func @sum_of_broadcast(%x: tensor<1x6xf32>) -> tensor<1x6xf32> {
  %0 = jeet.broadcast_to %x : tensor<1x6xf32> -> tensor<2x6xf32>
  %1 = jeet.reduce_sum %0 {axes = array<i64: 0>, keepdims = true} : tensor<2x6xf32> -> tensor<1x6xf32>
  return %1 : tensor<1x6xf32>
}
