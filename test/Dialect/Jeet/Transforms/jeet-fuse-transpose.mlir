// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse=multi-reduction=true | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse=enable=false | FileCheck %s --check-prefix=NOFUSE
// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse=max-ops=2 | FileCheck %s --check-prefix=CAP
// RUN: jeet-opt %s --split-input-file --jeet-decompose --jeet-fuse=transposed-epilogues=true | FileCheck %s --check-prefix=TE

// A transpose of matrices whose every use is a matmul operand joins the
// matmul's group: the matmul reads the transpose's input through its
// indexing maps, and no kernel materialises the transpose.

// Attention (Q @ K^T * scale, softmax, @ V), the CPU pipeline's fusion: three
// groups; the transpose of K is in the first matmul's. Unfused, every op is
// a kernel of its own (the transpose too).
// CHECK-LABEL: func.func @attention
// CHECK: %[[S:.*]] = jeet.fusion(%{{.*}}, %{{.*}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.constant
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.matmul
// CHECK: jeet.mul
// CHECK-NEXT: jeet.yield
// CHECK: %[[P:.*]] = jeet.fusion(%[[S]])
// CHECK: jeet.fusion(%[[P]], %{{.*}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
// NOFUSE-LABEL: func.func @attention
// NOFUSE: jeet.fusion
// NOFUSE-NEXT: ^bb0
// NOFUSE-NEXT: jeet.transpose
// NOFUSE-NEXT: jeet.yield
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

// Both operands transposed (A^T @ B^T), 2-D: one group. With max-ops=2 the
// matmul and its epilogue fill the group, and both transposes are groups of
// their own.
// CHECK-LABEL: func.func @both_transposed
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.relu
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
// CAP-LABEL: func.func @both_transposed
// CAP-COUNT-2: jeet.transpose
// CAP: jeet.fusion
// CAP-NEXT: ^bb0
// CAP-NEXT: jeet.matmul
// CAP-NEXT: jeet.relu
// CAP-NEXT: jeet.yield
// CAP-NOT: jeet.fusion
// CAP: return
func.func @both_transposed(%a: tensor<16x8xf32>, %b: tensor<4x16xf32>) -> tensor<8x4xf32> {
  %at = jeet.transpose %a {permutation = array<i64: 1, 0>} : tensor<16x8xf32> -> tensor<8x16xf32>
  %bt = jeet.transpose %b {permutation = array<i64: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
  %0 = jeet.matmul %at, %bt : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = jeet.relu %0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// A transpose read by two matmuls is in both groups (a member of the
// first, recomputed in the second) and yielded by neither.
// CHECK-LABEL: func.func @two_readers
// CHECK: %[[M1:.*]] = jeet.fusion(%{{.*}}, %{{.*}}) : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}, %{{.*}}, %[[M1]]) : (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @two_readers(%w: tensor<4x16xf32>, %x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> tensor<8x4xf32> {
  %wt = jeet.transpose %w {permutation = array<i64: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
  %0 = jeet.matmul %x, %wt : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = jeet.matmul %y, %wt : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %2 = jeet.add %1, %0 : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}

// -----

// A transpose that an elementwise op reads too is materialised once, by a
// group of its own, for the matmul; the exp reads the transpose's input in
// place, the transpose cloned into its group (readsTransposeInPlace).
// CHECK-LABEL: func.func @other_reader
// CHECK-SAME: (%[[W:[^:]*]]: tensor<4x16xf32>
// CHECK: %[[T:.*]] = jeet.fusion(%[[W]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%{{.*}}, %[[T]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%[[W]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @other_reader(%w: tensor<4x16xf32>, %x: tensor<8x16xf32>) -> (tensor<8x4xf32>, tensor<16x4xf32>) {
  %wt = jeet.transpose %w {permutation = array<i64: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
  %0 = jeet.matmul %x, %wt : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %1 = jeet.exp %wt : tensor<16x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<16x4xf32>
}

// -----

// Only a transpose of the two innermost dimensions folds: one that moves a
// batch dimension stays a group of its own.
// CHECK-LABEL: func.func @batch_transpose
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @batch_transpose(%a: tensor<4x3x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<3x4x5xf32> {
  %at = jeet.transpose %a {permutation = array<i64: 1, 0, 2>} : tensor<4x3x8xf32> -> tensor<3x4x8xf32>
  %0 = jeet.matmul %at, %b : tensor<3x4x8xf32>, tensor<3x8x5xf32> -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

// -----

// Transposes past 64K elements that move the innermost dimension: read in
// place by a group of elementwise ops alone where both dimensions that
// trade places span 16 or more (the CPU reads them in blocks transposed in
// registers); a reduction's group, or rows of 3, get the transpose as a
// group of its own.
// CHECK-LABEL: func.func @large_transposes
// CHECK-SAME: (%[[X:[^:]*]]: tensor<512x256xf32>, %[[N:[^:]*]]: tensor<3x30000xf32>
// CHECK: %[[E:.*]] = jeet.fusion(%[[X]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: jeet.yield
// CHECK: %[[T:.*]] = jeet.fusion(%[[X]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%[[T]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: jeet.reduce_sum
// CHECK: %[[NT:.*]] = jeet.fusion(%[[N]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.yield
// CHECK: jeet.fusion(%[[NT]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.exp
// CHECK-NEXT: jeet.yield
func.func @large_transposes(%x: tensor<512x256xf32>, %n: tensor<3x30000xf32>) -> (tensor<256x512xf32>, tensor<256x1xf32>, tensor<30000x3xf32>) {
  %xt = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<512x256xf32> -> tensor<256x512xf32>
  %e = jeet.exp %xt : tensor<256x512xf32>
  %xt2 = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<512x256xf32> -> tensor<256x512xf32>
  %e2 = jeet.exp %xt2 : tensor<256x512xf32>
  %s = jeet.reduce_sum %e2 {axes = array<i64: 1>, keepdims = true} : tensor<256x512xf32> -> tensor<256x1xf32>
  %nt = jeet.transpose %n {permutation = array<i64: 1, 0>} : tensor<3x30000xf32> -> tensor<30000x3xf32>
  %en = jeet.exp %nt : tensor<30000x3xf32>
  return %e, %s, %en : tensor<256x512xf32>, tensor<256x1xf32>, tensor<30000x3xf32>
}

// -----

// A matmul of fewer than 16 rows reading its A through a transpose (a
// convolution computed transposed, reading NCHW as (positions, channels))
// takes no epilogue with transposed-epilogues (the CPU's epilogue tiles)
// where its result spans two tiles of columns or more: the bias and ReLU
// of 9 x 1152 are a kernel of their own. With 16 rows the epilogue joins;
// without the option (the GPU's pipeline) it joins either way.
// TE-LABEL: func.func @few_rows_of_transposed_a
// TE: %[[M:.*]] = jeet.fusion
// TE-NEXT: ^bb0
// TE-NEXT: jeet.transpose
// TE-NEXT: jeet.matmul
// TE-NEXT: jeet.yield
// TE: jeet.fusion(%[[M]]
// TE-NEXT: ^bb0
// TE-NEXT: jeet.add
// TE-NEXT: jeet.relu
// TE-NEXT: jeet.yield
// TE-LABEL: func.func @sixteen_rows_of_transposed_a
// TE: jeet.fusion
// TE-NEXT: ^bb0
// TE-NEXT: jeet.transpose
// TE-NEXT: jeet.matmul
// TE-NEXT: jeet.add
// TE-NEXT: jeet.relu
// TE-NEXT: jeet.yield
// TE-NOT: jeet.fusion
// TE: return
// CHECK-LABEL: func.func @few_rows_of_transposed_a
// CHECK: jeet.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: jeet.transpose
// CHECK-NEXT: jeet.matmul
// CHECK-NEXT: jeet.add
// CHECK-NEXT: jeet.relu
// CHECK-NEXT: jeet.yield
// CHECK-NOT: jeet.fusion
// CHECK: return
func.func @few_rows_of_transposed_a(%x: tensor<1x192x9xf32>, %w: tensor<192x1152xf32>, %b: tensor<1x1x1152xf32>) -> tensor<1x9x1152xf32> {
  %t = jeet.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<1x192x9xf32> -> tensor<1x9x192xf32>
  %m = jeet.matmul %t, %w : tensor<1x9x192xf32>, tensor<192x1152xf32> -> tensor<1x9x1152xf32>
  %a = jeet.add %m, %b : tensor<1x9x1152xf32>, tensor<1x1x1152xf32> -> tensor<1x9x1152xf32>
  %r = jeet.relu %a : tensor<1x9x1152xf32>
  return %r : tensor<1x9x1152xf32>
}
func.func @sixteen_rows_of_transposed_a(%x: tensor<1x192x16xf32>, %w: tensor<192x1152xf32>, %b: tensor<1x1x1152xf32>) -> tensor<1x16x1152xf32> {
  %t = jeet.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<1x192x16xf32> -> tensor<1x16x192xf32>
  %m = jeet.matmul %t, %w : tensor<1x16x192xf32>, tensor<192x1152xf32> -> tensor<1x16x1152xf32>
  %a = jeet.add %m, %b : tensor<1x16x1152xf32>, tensor<1x1x1152xf32> -> tensor<1x16x1152xf32>
  %r = jeet.relu %a : tensor<1x16x1152xf32>
  return %r : tensor<1x16x1152xf32>
}
