// An artifact whose code generation is split over threads
// (JEET_COMPILE_THREADS=2): its objects are generated in parallel and linked
// into one shared object, which gives the answers of the artifact compiled
// as one object and of a float64 reference on fresh random inputs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(); [np.save('%t/' + n + '.npy', (r.standard_normal(s) * c).astype(np.float32)) for n, s, c in [('x', (32, 256), 1), ('w1', (256, 256), 0.1), ('b1', (256,), 1), ('w2', (256, 96), 0.1)]]"
// RUN: env JEET_COMPILE_THREADS=2 JEET_DEBUG=1 jeet-compile %s -o %t/split.so --parallel 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: env JEET_COMPILE_THREADS=1 JEET_DEBUG=1 jeet-compile %s -o %t/whole.so --parallel 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: jeet-runner %t/split.so --input=@%t/x.npy --input=@%t/w1.npy --input=@%t/b1.npy --input=@%t/w2.npy --output=@%t/split.npy
// RUN: jeet-runner %t/whole.so --input=@%t/x.npy --input=@%t/w1.npy --input=@%t/b1.npy --input=@%t/w2.npy --output=@%t/whole.npy
// RUN: %python -c "import numpy as np; s, w = (np.load('%t/' + n + '.npy') for n in ('split', 'whole')); x, w1, b1, w2 = (np.load('%t/' + n + '.npy').astype(np.float64) for n in ('x', 'w1', 'b1', 'w2')); ref = np.maximum(x @ w1 + b1, 0) @ w2; assert np.array_equal(s, w), abs(s - w).max(); assert np.allclose(s, ref, rtol=1e-5, atol=1e-5), abs(s - ref).max(); print('ok')" | FileCheck %s

// SPLIT: jeet:      object {{.*}}   2 objects in parallel ({{[0-9]+}} + {{[0-9]+}} instructions), split in {{[0-9.]+}} ms, other threads' cpu {{[0-9.]+}} ms
// WHOLE: jeet:      object
// WHOLE-NOT: objects in parallel
// CHECK: ok
// Two layers of different widths: each gets a tile kernel of its own, so
// that there is code enough for two objects whatever the register tile.
func.func @main(%x: tensor<32x256xf32>, %w1: tensor<256x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x96xf32>) -> tensor<32x96xf32> {
  %0 = jeet.matmul %x, %w1 : tensor<32x256xf32>, tensor<256x256xf32> -> tensor<32x256xf32>
  %1 = jeet.add %0, %b1 : tensor<32x256xf32>, tensor<256xf32> -> tensor<32x256xf32>
  %2 = jeet.relu %1 : tensor<32x256xf32>
  %3 = jeet.matmul %2, %w2 : tensor<32x256xf32>, tensor<256x96xf32> -> tensor<32x96xf32>
  return %3 : tensor<32x96xf32>
}
