// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse=multi-reduction=true | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse=enable=false | FileCheck %s --check-prefix=NOFUSE

// A slice with positive steps of a value in memory is read in place by the
// groups that read it: each such group holds a copy of the slice (and of a
// reshape of it by unit dimensions), and no kernel copies the slice.

// The gates of a recurrent cell: three slices of a matmul's result read by
// one elementwise group. Two groups: the matmul, then the slices and the
// gate arithmetic. Unfused, each slice is a kernel of its own.
// CHECK-LABEL: func.func @gates
// CHECK: %[[M:.*]] = jeet.fusion(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8x48xf32>) -> tensor<4x48xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%[[M]]) : (tensor<4x48xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.slice {{.*}}steps = array<i64: 1, 2>
// CHECK-NEXT: jeet.sigmoid
// CHECK-NEXT: jeet.mul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
// NOFUSE-LABEL: func.func @gates
// NOFUSE-COUNT-3: jeet.slice
func.func @gates(%x: tensor<4x8xf32>, %w: tensor<8x48xf32>) -> tensor<4x16xf32> {
  %y = jeet.matmul %x, %w : tensor<4x8xf32>, tensor<8x48xf32> -> tensor<4x48xf32>
  %a = jeet.slice %y {starts = array<i64: 0, 0>, stops = array<i64: 4, 16>, steps = array<i64: 1, 1>} : tensor<4x48xf32> -> tensor<4x16xf32>
  %b = jeet.slice %y {starts = array<i64: 0, 16>, stops = array<i64: 4, 32>, steps = array<i64: 1, 1>} : tensor<4x48xf32> -> tensor<4x16xf32>
  %c = jeet.slice %y {starts = array<i64: 0, 16>, stops = array<i64: 4, 48>, steps = array<i64: 1, 2>} : tensor<4x48xf32> -> tensor<4x16xf32>
  %s = jeet.sigmoid %a : tensor<4x16xf32>
  %m = jeet.mul %s, %b : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  %r = jeet.add %m, %c : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Queries, keys and values as slices of one stacked tensor, each reshaped
// to drop the stacking dimension: read in place by attention's matmuls (and
// the transpose the first folds in). The three groups of attention (without
// an attention block budget), none of them a copy.
// CHECK-LABEL: func.func @stacked_qkv
// CHECK: %[[S:.*]] = jeet.fusion(%[[QKV:.*]]) : (tensor<3x2x16x8xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice {{.*}}starts = array<i64: 0, 0, 0, 0>
// CHECK-NEXT: jeet.slice {{.*}}starts = array<i64: 1, 0, 0, 0>
// CHECK-NEXT: jeet.reshape
// CHECK-NEXT: jeet.reshape
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK: %[[P:.*]] = jeet.fusion(%[[S]])
// CHECK: jeet.fusion(%[[QKV]], %[[P]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice {{.*}}starts = array<i64: 2, 0, 0, 0>
// CHECK-NEXT: jeet.reshape
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @stacked_qkv(%qkv: tensor<3x2x16x8xf32>) -> tensor<2x16x8xf32> {
  %q1 = jeet.slice %qkv {starts = array<i64: 0, 0, 0, 0>, stops = array<i64: 1, 2, 16, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<3x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %k1 = jeet.slice %qkv {starts = array<i64: 1, 0, 0, 0>, stops = array<i64: 2, 2, 16, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<3x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %v1 = jeet.slice %qkv {starts = array<i64: 2, 0, 0, 0>, stops = array<i64: 3, 2, 16, 8>, steps = array<i64: 1, 1, 1, 1>} : tensor<3x2x16x8xf32> -> tensor<1x2x16x8xf32>
  %q = jeet.reshape %q1 : tensor<1x2x16x8xf32> -> tensor<2x16x8xf32>
  %k = jeet.reshape %k1 : tensor<1x2x16x8xf32> -> tensor<2x16x8xf32>
  %v = jeet.reshape %v1 : tensor<1x2x16x8xf32> -> tensor<2x16x8xf32>
  %kt = jeet.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<2x16x8xf32> -> tensor<2x8x16xf32>
  %s = jeet.matmul %q, %kt : tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x16x16xf32>
  %p = jeet.softmax %s {axis = 2 : i64} : tensor<2x16x16xf32>
  %o = jeet.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %o : tensor<2x16x8xf32>
}

// -----

// A slice read by two groups is in both; a slice that is a result stays a
// group of its own too (a copy), as do a slice with a negative step (not a
// box of its input) and a reshape that merges dimensions; a slice of the
// negative step's result (in memory) is read in place.
// CHECK-LABEL: func.func @not_views
// CHECK: jeet.fusion(%{{.*}}) : (tensor<6x8xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}) : (tensor<6x8xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice {{.*}}steps = array<i64: -1, 1>
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}) : (tensor<3x8xf32>) -> tensor<24xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.reshape
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}, %{{.*}}) : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<3x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}) : (tensor<6x8xf32>) -> tensor<3xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.reduce_sum
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @not_views(%x: tensor<6x8xf32>) -> (tensor<3x8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<24xf32>) {
  %a = jeet.slice %x {starts = array<i64: 0, 0>, stops = array<i64: 3, 8>, steps = array<i64: 1, 1>} : tensor<6x8xf32> -> tensor<3x8xf32>
  %f = jeet.slice %x {starts = array<i64: -1, 0>, stops = array<i64: -9223372036854775808, 8>, steps = array<i64: -1, 1>} : tensor<6x8xf32> -> tensor<6x8xf32>
  %flat = jeet.reshape %a : tensor<3x8xf32> -> tensor<24xf32>
  %e = jeet.exp %a : tensor<3x8xf32>
  %g = jeet.slice %f {starts = array<i64: 0, 0>, stops = array<i64: 3, 8>, steps = array<i64: 1, 1>} : tensor<6x8xf32> -> tensor<3x8xf32>
  %b = jeet.add %e, %g : tensor<3x8xf32>, tensor<3x8xf32> -> tensor<3x8xf32>
  %s = jeet.reduce_sum %a {axes = array<i64: 1>} : tensor<3x8xf32> -> tensor<3xf32>
  return %a, %b, %s, %flat : tensor<3x8xf32>, tensor<3x8xf32>, tensor<3xf32>, tensor<24xf32>
}

// -----

// A slice of a constant is read in place too (a view of its global; on the
// GPU jeet-gpu-sink-globals takes the view into the kernel): one kernel, no
// copy of its own.
// CHECK-LABEL: func.func @constant_slice
// CHECK: jeet.fusion(%{{.*}}) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.constant
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
func.func @constant_slice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = jeet.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = jeet.slice %c {starts = array<i64: 1>, stops = array<i64: 3>, steps = array<i64: 1>} : tensor<4xf32> -> tensor<2xf32>
  %r = jeet.add %x, %s : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// The heads of a query that is a slice of a packed projection: a transpose
// alone (a group that moves data) reads the slice and its splitting reshape
// in place, as an elementwise group does; a gather reads a slice in place
// too, and a reshape alone (a view itself) does not.
// CHECK-LABEL: func.func @heads
// CHECK: jeet.fusion(%{{.*}}) : (tensor<5x24xf32>) -> tensor<2x5x4xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.reshape {{.*}} -> tensor<5x2x4xf32>
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}, %{{.*}}) : (tensor<5x24xf32>, tensor<3xi32>) -> tensor<5x3xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.gather
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}) : (tensor<5x24xf32>) -> tensor<5x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.slice
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}) : (tensor<5x8xf32>) -> tensor<40xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.reshape
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @heads(%y: tensor<5x24xf32>, %i: tensor<3xi32>) -> (tensor<2x5x4xf32>, tensor<5x3xf32>, tensor<40xf32>) {
  %q = jeet.slice %y {starts = array<i64: 0, 8>, stops = array<i64: 5, 16>, steps = array<i64: 1, 1>} : tensor<5x24xf32> -> tensor<5x8xf32>
  %h = jeet.reshape %q : tensor<5x8xf32> -> tensor<5x2x4xf32>
  %t = jeet.transpose %h {permutation = array<i64: 1, 0, 2>} : tensor<5x2x4xf32> -> tensor<2x5x4xf32>
  %v = jeet.slice %y {starts = array<i64: 0, 16>, stops = array<i64: 5, 24>, steps = array<i64: 1, 1>} : tensor<5x24xf32> -> tensor<5x8xf32>
  %g = jeet.gather %v, %i {axis = 1 : i64} : tensor<5x8xf32>, tensor<3xi32> -> tensor<5x3xf32>
  %k = jeet.slice %y {starts = array<i64: 0, 0>, stops = array<i64: 5, 8>, steps = array<i64: 1, 1>} : tensor<5x24xf32> -> tensor<5x8xf32>
  %f = jeet.reshape %k : tensor<5x8xf32> -> tensor<40xf32>
  return %t, %g, %f : tensor<2x5x4xf32>, tensor<5x3xf32>, tensor<40xf32>
}
