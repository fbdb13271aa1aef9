// Chips other than the supported ones are rejected, naming the supported ones.
// RUN: not jeet-opt %s --jeet-gpu-pipeline=chip=sm_70 2>&1 | FileCheck %s
// RUN: not jeet-opt %s --jeet-gpu-pipeline=format=cubin 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not jeet-opt %s --jeet-gpu-pipeline=block-size=100 2>&1 | FileCheck %s --check-prefix=BLOCK

// CHECK: error: unsupported GPU chip 'sm_70'; supported chips: sm_80, sm_86, sm_89, sm_90
// FORMAT: error: unsupported GPU binary format 'cubin'; supported formats: isa, bin, fatbin
// BLOCK: error: block-size must be a multiple of 32 between 32 and 1024, got 100
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "jeet.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
