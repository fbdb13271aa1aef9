// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; v = np.array([1.5, -2.25, 3.0078125], np.float32); np.save('%t/f32.npy', v); np.save('%t/v2.npy', (v.view(np.uint32) >> 16).astype(np.uint16).view('V2'))"
// RUN: jeet-run %s --input=@%t/f32.npy | FileCheck %s
// RUN: jeet-run %s --input=@%t/v2.npy | FileCheck %s

// A bf16 argument from .npy: float32 data (rounded to nearest even: 3.0078125
// is a tie between 3 and 3.015625), or raw bfloat16 bits as 2-byte void
// elements, as ml_dtypes saves bfloat16 arrays (truncated here: 3).
// CHECK: 3xf32={{\[}}3 -4.5 6]
func.func @main(%a: tensor<3xbf16>) -> tensor<3xf32> {
  %0 = jeet.add %a, %a : tensor<3xbf16>, tensor<3xbf16> -> tensor<3xbf16>
  %1 = jeet.cast %0 : tensor<3xbf16> -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
