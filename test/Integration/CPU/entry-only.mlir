// Only the entry (and what it calls) is compiled: another graph of the same
// file adds no kernels to the entry's count, for the JIT and for artifacts.
// RUN: jeet-run %s --device=cpu --print-stats --input=4xf32=0,0,0,0 | FileCheck %s --check-prefix=MAIN
// RUN: jeet-run %s --device=cpu --print-stats --entry=other --input=4xf32=0,0,0,0 | FileCheck %s --check-prefix=OTHER
// RUN: jeet-compile %s -o %t.so --print-signature | FileCheck %s --check-prefix=SIG

// MAIN: 4xf32=[1 1 1 1]
// MAIN: kernels per execution: 1
// OTHER: 4xf32=[-3 -3 -3 -3]
// OTHER: kernels per execution: 2
// SIG: kernels=1{{$}}

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @other(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.exp %a : tensor<4xf32>
  %1 = jeet.reduce_sum %0 {axes = array<i64: 0>, keepdims = true} : tensor<4xf32> -> tensor<1xf32>
  %2 = jeet.sub %0, %1 : tensor<4xf32>, tensor<1xf32> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
