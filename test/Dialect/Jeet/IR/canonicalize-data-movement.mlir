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
