// Larger graphs compiled ahead of time, checked against float64 numpy.
// RUN: rm -rf %t && mkdir -p %t/mlp %t/softmax %t/bmm

// RUN: jeet-compile %s --entry=mlp -o %t/mlp.so --print-signature | FileCheck %s --check-prefix=MLP
// RUN: %python %S/Inputs/reference.py gen %t/mlp mlp
// RUN: jeet-runner %t/mlp.so --input=@%t/mlp/in0.npy --input=@%t/mlp/in1.npy --input=@%t/mlp/in2.npy --input=@%t/mlp/in3.npy --output=@%t/mlp/out.npy
// RUN: %python %S/Inputs/reference.py check %t/mlp/out.npy %t/mlp/ref.npy | FileCheck %s
// Intermediates live in the arena the runtime passes (its size is in the
// signature): the artifact allocates nothing itself.
// RUN: llvm-nm -D --undefined-only %t/mlp.so | FileCheck %s --check-prefix=IMPORTS
// IMPORTS-NOT: _mlir_memref_to_llvm_alloc
// MLP: v2 entry=mlp device=cpu inputs=8x16xf32,16x32xf32,32xf32,32x4xf32 outputs=8x4xf32 kernels={{[2-4]}} arena={{[1-9][0-9]*}}

// RUN: jeet-compile %s --entry=softmax -o %t/softmax.so
// RUN: %python %S/Inputs/reference.py gen %t/softmax softmax
// RUN: jeet-runner %t/softmax.so --input=@%t/softmax/in0.npy --output=@%t/softmax/out.npy --benchmark=3 | FileCheck %s --check-prefix=BENCH
// RUN: %python %S/Inputs/reference.py check %t/softmax/out.npy %t/softmax/ref.npy | FileCheck %s
// BENCH: benchmark: 3 runs, median {{[0-9.]+}} ms, min {{[0-9.]+}} ms

// RUN: jeet-compile %s --entry=bmm -o %t/bmm.so
// RUN: %python %S/Inputs/reference.py gen %t/bmm bmm
// RUN: jeet-runner %t/bmm.so --input=@%t/bmm/in0.npy --input=@%t/bmm/in1.npy --output=@%t/bmm/out.npy
// RUN: %python %S/Inputs/reference.py check %t/bmm/out.npy %t/bmm/ref.npy | FileCheck %s

// Two results.
// RUN: jeet-compile %s --entry=two -o %t/two.so --print-signature | FileCheck %s --check-prefix=TWO
// RUN: jeet-runner %t/two.so --input=2x2xf32=1,2,3,4 | FileCheck %s --check-prefix=PAIR
// TWO: v2 entry=two device=cpu inputs=2x2xf32 outputs=2xf32,2x2xf32 kernels=2 arena={{[0-9]+}}
// PAIR: 2xf32=[3 7]
// PAIR-NEXT: 2x2xf32={{\[\[}}1 3][2 4]]

// CHECK: max error {{.*}}: OK

func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
               %w2: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %0 = jeet.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = jeet.add %0, %b1 : tensor<8x32xf32>, tensor<32xf32> -> tensor<8x32xf32>
  %2 = jeet.relu %1 : tensor<8x32xf32>
  %3 = jeet.matmul %2, %w2 : tensor<8x32xf32>, tensor<32x4xf32> -> tensor<8x4xf32>
  return %3 : tensor<8x4xf32>
}

func.func @softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = jeet.softmax %x {axis = 1 : i64} : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

func.func @bmm(%a: tensor<3x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<3x4x6xf32> {
  %0 = jeet.matmul %a, %b : tensor<3x4x5xf32>, tensor<3x5x6xf32> -> tensor<3x4x6xf32>
  return %0 : tensor<3x4x6xf32>
}

func.func @two(%x: tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>) {
  %0 = jeet.reduce_sum %x {axes = array<i64: 1>} : tensor<2x2xf32> -> tensor<2xf32>
  %1 = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x2xf32> -> tensor<2x2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2x2xf32>
}
