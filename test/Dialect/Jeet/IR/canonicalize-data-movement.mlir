// RUN: jeet-opt %s -canonicalize | FileCheck %s

// A concat of one tensor, a slice of everything forwards and a pad of
// nothing are their input; other ones stay.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x6xf32>
// CHECK-NOT: jeet.concat
// CHECK: %[[S:.*]] = jeet.slice %[[X]] {{.*}} -> tensor<4x6xf32>
// CHECK-NOT: jeet.pad
// CHECK: return %[[X]], %[[X]], %[[S]], %[[X]]
func.func @identities(%x: tensor<4x6xf32>, %v: tensor<f32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = jeet.concat %x {axis = 1 : i64} : tensor<4x6xf32> -> tensor<4x6xf32>
  %1 = jeet.slice %x {starts = array<i64: -100, 0>, stops = array<i64: 9223372036854775807, 6>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<4x6xf32>
  %2 = jeet.slice %x {starts = array<i64: -1, 0>, stops = array<i64: -9223372036854775808, 6>, steps = array<i64: -1, 1>} : tensor<4x6xf32> -> tensor<4x6xf32>
  %3 = jeet.pad %x, %v {low = array<i64: 0, 0>, high = array<i64: 0, 0>} : tensor<4x6xf32>, tensor<f32> -> tensor<4x6xf32>
  return %0, %1, %2, %3 : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}

// A concat whose leading inputs are an earlier concat's (densenet's block:
// each layer concatenates all the features before it) concatenates that
// concat and the rest, the longest such prefix taken. Not rewritten: a
// concat along another axis, one whose inputs start otherwise.
// CHECK-LABEL: func.func @earlier_concat
// CHECK-SAME: (%[[A:[^:]*]]: tensor<1x2x3xf32>, %[[B:[^:]*]]: tensor<1x2x3xf32>, %[[C:[^:]*]]: tensor<1x2x3xf32>, %[[D:[^:]*]]: tensor<1x2x3xf32>)
// CHECK-NEXT: %[[AB:.*]] = jeet.concat %[[A]], %[[B]] {axis = 1 : i64}
// CHECK-NEXT: %[[ABC:.*]] = jeet.concat %[[AB]], %[[C]] {axis = 1 : i64}
// CHECK-NEXT: %[[ABCD:.*]] = jeet.concat %[[ABC]], %[[D]] {axis = 1 : i64}
// CHECK-NEXT: %[[AB0:.*]] = jeet.concat %[[A]], %[[B]] {axis = 0 : i64}
// CHECK-NEXT: %[[ABD:.*]] = jeet.concat %[[AB]], %[[D]] {axis = 1 : i64}
// CHECK-NEXT: %[[BAC:.*]] = jeet.concat %[[B]], %[[A]], %[[C]] {axis = 1 : i64}
// CHECK-NEXT: return %[[ABCD]], %[[ABC]], %[[AB0]], %[[ABD]], %[[BAC]], %[[AB]]
func.func @earlier_concat(%a: tensor<1x2x3xf32>, %b: tensor<1x2x3xf32>, %c: tensor<1x2x3xf32>, %d: tensor<1x2x3xf32>)
    -> (tensor<1x8x3xf32>, tensor<1x6x3xf32>, tensor<2x2x3xf32>, tensor<1x6x3xf32>, tensor<1x6x3xf32>, tensor<1x4x3xf32>) {
  %ab = jeet.concat %a, %b {axis = 1 : i64} : tensor<1x2x3xf32>, tensor<1x2x3xf32> -> tensor<1x4x3xf32>
  %abc = jeet.concat %a, %b, %c {axis = 1 : i64} : tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32> -> tensor<1x6x3xf32>
  %abcd = jeet.concat %a, %b, %c, %d {axis = 1 : i64} : tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32> -> tensor<1x8x3xf32>
  %ab0 = jeet.concat %a, %b {axis = 0 : i64} : tensor<1x2x3xf32>, tensor<1x2x3xf32> -> tensor<2x2x3xf32>
  %abd = jeet.concat %a, %b, %d {axis = 1 : i64} : tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32> -> tensor<1x6x3xf32>
  %bac = jeet.concat %b, %a, %c {axis = 1 : i64} : tensor<1x2x3xf32>, tensor<1x2x3xf32>, tensor<1x2x3xf32> -> tensor<1x6x3xf32>
  return %abcd, %abc, %ab0, %abd, %bac, %ab : tensor<1x8x3xf32>, tensor<1x6x3xf32>, tensor<2x2x3xf32>, tensor<1x6x3xf32>, tensor<1x6x3xf32>, tensor<1x4x3xf32>
}
