// DEFINE: %{inputs} = --input=1x2x2xf32=0,200,-200,0 --input=1x2x2xf32=1,0,1,1 --input=1x2x2xf32=1,2,3,4
// RUN: jeet-run %s --print-stats %{inputs} | FileCheck %s
// RUN: jeet-run %s --print-stats --fuse-attention=false %{inputs} | FileCheck %s --check-prefix=THREE
// RUN: jeet-run %s --print-stats --fuse=false %{inputs} | FileCheck %s --check-prefix=UNFUSED

// Attention, softmax(Q @ K^T * 0.5) @ V, is one kernel on the CPU (three
// with --fuse-attention=false: the first matmul, the softmax, the second
// matmul): the transpose of K is read by the first matmul through its
// indexing maps, not materialised by a kernel of its own. The scores are
// [0, 100] and [-100, -100] (with K for K^T, [100, 100] and [-100, 0]):
// softmax picks V's second row, then averages both rows.
// CHECK: 1x2x2xf32={{\[\[\[}}3 4][2 3]]]
// CHECK: kernels per execution: 1
// THREE: 1x2x2xf32={{\[\[\[}}3 4][2 3]]]
// THREE: kernels per execution: 3
// UNFUSED: 1x2x2xf32={{\[\[\[}}3 4][2 3]]]
// UNFUSED: kernels per execution: 9
func.func @main(%q: tensor<1x2x2xf32>, %k: tensor<1x2x2xf32>, %v: tensor<1x2x2xf32>) -> tensor<1x2x2xf32> {
  %kt = jeet.transpose %k {permutation = array<i64: 0, 2, 1>} : tensor<1x2x2xf32> -> tensor<1x2x2xf32>
  %s = jeet.matmul %q, %kt : tensor<1x2x2xf32>, tensor<1x2x2xf32> -> tensor<1x2x2xf32>
  %c = jeet.constant dense<0.5> : tensor<f32>
  %ss = jeet.mul %s, %c : tensor<1x2x2xf32>, tensor<f32> -> tensor<1x2x2xf32>
  %p = jeet.softmax %ss {axis = 2 : i64} : tensor<1x2x2xf32>
  %o = jeet.matmul %p, %v : tensor<1x2x2xf32>, tensor<1x2x2xf32> -> tensor<1x2x2xf32>
  return %o : tensor<1x2x2xf32>
}
