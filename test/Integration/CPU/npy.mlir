// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.arange(6, dtype=np.float32).reshape(2, 3))"
// RUN: jeet-run %s --input=@%t/a.npy --output=@%t/out.npy
// RUN: %python -c "import numpy as np; print(np.load('%t/out.npy').tolist())" | FileCheck %s

// .npy in and out.
// CHECK: {{\[\[}}-0.0, -1.0, -2.0], [-3.0, -4.0, -5.0]]
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jeet.neg %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
