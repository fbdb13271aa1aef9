// CPU artifacts with --parallel run their kernels on all cores with OpenMP:
// they need libomp, found through the RUNPATH recorded at link time, and give
// the JIT's results. The default artifact stays single-threaded and needs
// libc and libm alone. A parallel artifact runs even where a dead process
// with its pid left an empty libomp record (libomp crashed on it, SIGBUS).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(); [np.save('%t/' + n + '.npy', r.standard_normal(s).astype(np.float32)) for n, s in [('x', (96, 40)), ('w', (40, 130)), ('b', (130,))]]"
// RUN: jeet-compile %s -o %t/parallel.so --parallel
// RUN: jeet-compile %s -o %t/single.so
// RUN: llvm-readelf -d %t/parallel.so | FileCheck %s --check-prefix=PARALLEL
// RUN: llvm-readelf -d %t/single.so | FileCheck %s --check-prefix=SINGLE
// RUN: jeet-runner %t/parallel.so --input=@%t/x.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/parallel.npy
// RUN: %python %S/Inputs/stale-openmp-record.py jeet-runner %t/parallel.so --input=@%t/x.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/stale.npy
// RUN: jeet-runner %t/single.so --input=@%t/x.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/single.npy
// RUN: jeet-run %s --device=cpu --input=@%t/x.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/jit.npy
// RUN: %python -c "import numpy as np; j, p, s, t = (np.load('%t/' + n + '.npy') for n in ('jit', 'parallel', 'single', 'stale')); x, w, b = (np.load('%t/' + n + '.npy').astype(np.float64) for n in 'xwb'); ref = np.maximum(x @ w + b, 0); assert np.array_equal(p, j), abs(p - j).max(); assert np.array_equal(t, p); assert np.allclose(s, ref, rtol=1e-5, atol=1e-5) and np.allclose(p, ref, rtol=1e-5, atol=1e-5); print('ok')" | FileCheck %s

// PARALLEL: NEEDED{{.*}}libomp
// PARALLEL: RUNPATH
// SINGLE-NOT: libomp
// SINGLE-NOT: RUNPATH
// CHECK: ok
func.func @main(%x: tensor<96x40xf32>, %w: tensor<40x130xf32>, %b: tensor<130xf32>) -> tensor<96x130xf32> {
  %0 = jeet.matmul %x, %w : tensor<96x40xf32>, tensor<40x130xf32> -> tensor<96x130xf32>
  %1 = jeet.add %0, %b : tensor<96x130xf32>, tensor<130xf32> -> tensor<96x130xf32>
  %2 = jeet.relu %1 : tensor<96x130xf32>
  return %2 : tensor<96x130xf32>
}
