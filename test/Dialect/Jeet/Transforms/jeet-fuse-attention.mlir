// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse="multi-reduction=true attention-block-bytes=262144" | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse="multi-reduction=true" | FileCheck %s --check-prefix=OFF
// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse="multi-reduction=true attention-block-bytes=262144 max-ops=7" | FileCheck %s --check-prefix=CAP

// Attention with an attention block budget (the CPU pipeline's 256 KiB) is
// one group: Q @ K^T * scale, the softmax and P @ V, the transpose of K read
// by the first matmul. A block of 64 rows of the scores and 64 of the
// softmax (128 KiB each) fits. Without the budget, three groups; with room
// for fewer ops (max-ops=7) than the matmuls and the softmax (eight, the
// transpose not counted), three groups too.
// CHECK-LABEL: func.func @attention
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.constant
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.mul
// CHECK-NEXT: jeet.reduce_max
// CHECK-NEXT: jeet.sub
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: jeet.reduce_sum
// CHECK-NEXT: jeet.div
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
// OFF-LABEL: func.func @attention
// OFF-COUNT-3: jeet.fusion
// OFF-NOT: jeet.fusion
// OFF: return
// CAP-LABEL: func.func @attention
// CAP-COUNT-3: jeet.fusion
// CAP-NOT: jeet.fusion
// CAP: return
func.func @attention(%q: tensor<8x512x64xf32>, %k: tensor<8x512x64xf32>, %v: tensor<8x512x64xf32>) -> tensor<8x512x64xf32> {
  %kt = jeet.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<8x512x64xf32> -> tensor<8x64x512xf32>
  %s = jeet.matmul %q, %kt : tensor<8x512x64xf32>, tensor<8x64x512xf32> -> tensor<8x512x512xf32>
  %c = jeet.constant dense<0.125> : tensor<f32>
  %ss = jeet.mul %s, %c : tensor<8x512x512xf32>, tensor<f32> -> tensor<8x512x512xf32>
  %p = jeet.softmax %ss {axis = 2 : i64} : tensor<8x512x512xf32>
  %o = jeet.matmul %p, %v : tensor<8x512x512xf32>, tensor<8x512x64xf32> -> tensor<8x512x64xf32>
  return %o : tensor<8x512x64xf32>
}

// -----

// Rows of 1000 (not a multiple of 64): blocks of 25 rows divide them; one
// group.
// CHECK-LABEL: func.func @odd_rows
// CHECK: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @odd_rows(%q: tensor<2x1000x24xf32>, %k: tensor<2x1000x24xf32>, %v: tensor<2x1000x24xf32>) -> tensor<2x1000x24xf32> {
  %kt = jeet.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<2x1000x24xf32> -> tensor<2x24x1000xf32>
  %s = jeet.matmul %q, %kt : tensor<2x1000x24xf32>, tensor<2x24x1000xf32> -> tensor<2x1000x1000xf32>
  %c = jeet.constant dense<0.125> : tensor<f32>
  %ss = jeet.mul %s, %c : tensor<2x1000x1000xf32>, tensor<f32> -> tensor<2x1000x1000xf32>
  %p = jeet.softmax %ss {axis = 2 : i64} : tensor<2x1000x1000xf32>
  %o = jeet.matmul %p, %v : tensor<2x1000x1000xf32>, tensor<2x1000x24xf32> -> tensor<2x1000x24xf32>
  return %o : tensor<2x1000x24xf32>
}

// -----

// Rows of 4096 f32 (16 KiB): a block of 16 rows of the scores and 16 of the
// softmax is 512 KiB, over the budget; three groups.
// CHECK-LABEL: func.func @long_rows
// CHECK-COUNT-3: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @long_rows(%q: tensor<1x4096x16xf32>, %k: tensor<1x4096x16xf32>, %v: tensor<1x4096x16xf32>) -> tensor<1x4096x16xf32> {
  %kt = jeet.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<1x4096x16xf32> -> tensor<1x16x4096xf32>
  %s = jeet.matmul %q, %kt : tensor<1x4096x16xf32>, tensor<1x16x4096xf32> -> tensor<1x4096x4096xf32>
  %c = jeet.constant dense<0.125> : tensor<f32>
  %ss = jeet.mul %s, %c : tensor<1x4096x4096xf32>, tensor<f32> -> tensor<1x4096x4096xf32>
  %p = jeet.softmax %ss {axis = 2 : i64} : tensor<1x4096x4096xf32>
  %o = jeet.matmul %p, %v : tensor<1x4096x4096xf32>, tensor<1x4096x16xf32> -> tensor<1x4096x16xf32>
  return %o : tensor<1x4096x16xf32>
}

// -----

// 1031 rows (a prime) have no divisor near the block of 31 rows, and all of
// them are over the budget: three groups.
// CHECK-LABEL: func.func @prime_rows
// CHECK-COUNT-3: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @prime_rows(%q: tensor<1x1031x16xf32>, %k: tensor<1x1031x16xf32>, %v: tensor<1x1031x16xf32>) -> tensor<1x1031x16xf32> {
  %kt = jeet.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<1x1031x16xf32> -> tensor<1x16x1031xf32>
  %s = jeet.matmul %q, %kt : tensor<1x1031x16xf32>, tensor<1x16x1031xf32> -> tensor<1x1031x1031xf32>
  %c = jeet.constant dense<0.125> : tensor<f32>
  %ss = jeet.mul %s, %c : tensor<1x1031x1031xf32>, tensor<f32> -> tensor<1x1031x1031xf32>
  %p = jeet.softmax %ss {axis = 2 : i64} : tensor<1x1031x1031xf32>
  %o = jeet.matmul %p, %v : tensor<1x1031x1031xf32>, tensor<1x1031x16xf32> -> tensor<1x1031x16xf32>
  return %o : tensor<1x1031x16xf32>
}

// -----

// The scores are a result too: they are materialised, so the softmax and
// the first matmul stay groups of their own; three groups.
// CHECK-LABEL: func.func @scores_returned
// CHECK-COUNT-3: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @scores_returned(%q: tensor<2x64x16xf32>, %k: tensor<2x64x16xf32>, %v: tensor<2x64x16xf32>) -> (tensor<2x64x16xf32>, tensor<2x64x64xf32>) {
  %kt = jeet.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<2x64x16xf32> -> tensor<2x16x64xf32>
  %s = jeet.matmul %q, %kt : tensor<2x64x16xf32>, tensor<2x16x64xf32> -> tensor<2x64x64xf32>
  %c = jeet.constant dense<0.125> : tensor<f32>
  %ss = jeet.mul %s, %c : tensor<2x64x64xf32>, tensor<f32> -> tensor<2x64x64xf32>
  %p = jeet.softmax %ss {axis = 2 : i64} : tensor<2x64x64xf32>
  %o = jeet.matmul %p, %v : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
  return %o, %ss : tensor<2x64x16xf32>, tensor<2x64x64xf32>
}

// -----

// A softmax of a graph input (no first matmul) stays two groups: the softmax
// and the matmul.
// CHECK-LABEL: func.func @no_scores_matmul
// CHECK-COUNT-2: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @no_scores_matmul(%s: tensor<2x64x64xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  %p = jeet.softmax %s {axis = 2 : i64} : tensor<2x64x64xf32>
  %o = jeet.matmul %p, %v : tensor<2x64x64xf32>, tensor<2x64x16xf32> -> tensor<2x64x16xf32>
  return %o : tensor<2x64x16xf32>
}

// -----

// Multi-head attention as the ONNX and torch exports of a transformer have
// it: (batch, heads, seq, head) operands, two batch dimensions that both
// operands share. One group, as with one batch dimension.
// CHECK-LABEL: func.func @heads
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.constant
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.matmul
// CHECK-SAME: tensor<8x4x64x32xf32>, tensor<8x4x32x64xf32> -> tensor<8x4x64x64xf32>
// CHECK-NEXT: jeet.mul
// CHECK-NEXT: jeet.reduce_max
// CHECK-NEXT: jeet.sub
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: jeet.reduce_sum
// CHECK-NEXT: jeet.div
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
// OFF-LABEL: func.func @heads
// OFF-COUNT-3: jeet.fusion
// OFF-NOT: jeet.fusion
// OFF: return
func.func @heads(%q: tensor<8x4x64x32xf32>, %k: tensor<8x4x64x32xf32>, %v: tensor<8x4x64x32xf32>) -> tensor<8x4x64x32xf32> {
  %kt = jeet.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : tensor<8x4x64x32xf32> -> tensor<8x4x32x64xf32>
  %s = jeet.matmul %q, %kt : tensor<8x4x64x32xf32>, tensor<8x4x32x64xf32> -> tensor<8x4x64x64xf32>
  %c = jeet.constant dense<0.17677669> : tensor<f32>
  %ss = jeet.mul %s, %c : tensor<8x4x64x64xf32>, tensor<f32> -> tensor<8x4x64x64xf32>
  %p = jeet.softmax %ss {axis = 3 : i64} : tensor<8x4x64x64xf32>
  %o = jeet.matmul %p, %v : tensor<8x4x64x64xf32>, tensor<8x4x64x32xf32> -> tensor<8x4x64x32xf32>
  return %o : tensor<8x4x64x32xf32>
}

// -----

// Keys and values shared by the heads (one head of K and V broadcast over
// four of Q, as grouped-query attention has it): the matmuls broadcast a
// batch dimension, which the attention lowering does not take; three
// groups.
// CHECK-LABEL: func.func @broadcast_heads
// CHECK-COUNT-3: jeet.fusion
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @broadcast_heads(%q: tensor<8x4x64x32xf32>, %k: tensor<8x1x64x32xf32>, %v: tensor<8x1x64x32xf32>) -> tensor<8x4x64x32xf32> {
  %kt = jeet.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : tensor<8x1x64x32xf32> -> tensor<8x1x32x64xf32>
  %s = jeet.matmul %q, %kt : tensor<8x4x64x32xf32>, tensor<8x1x32x64xf32> -> tensor<8x4x64x64xf32>
  %c = jeet.constant dense<0.17677669> : tensor<f32>
  %ss = jeet.mul %s, %c : tensor<8x4x64x64xf32>, tensor<f32> -> tensor<8x4x64x64xf32>
  %p = jeet.softmax %ss {axis = 3 : i64} : tensor<8x4x64x64xf32>
  %o = jeet.matmul %p, %v : tensor<8x4x64x64xf32>, tensor<8x1x64x32xf32> -> tensor<8x4x64x32xf32>
  return %o : tensor<8x4x64x32xf32>
}
