// Chips other than sm_80, sm_86, sm_89 and sm_90 are an error that names
// the supported ones.
// RUN: not jeet-translate --jeet-to-ptx %s --jeet-gpu-chip=sm_75 2>&1 | FileCheck %s

// CHECK: error: unsupported GPU chip 'sm_75'; supported chips: sm_80, sm_86, sm_89, sm_90
// CHECK-NOT: .entry
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "jeet.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
