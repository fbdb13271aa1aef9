// The JIT with code generation split over threads (JEET_COMPILE_THREADS=2):
// the graph's objects are generated in parallel and linked together, and
// give the answers of the graph compiled as one object and of a float64
// reference on fresh random inputs. With LLVM's pass timing on
// (JEET_DEBUG=2) the same partitions are generated one after the other. A
// graph too small to gain stays one object.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(); [np.save('%t/' + n + '.npy', (r.standard_normal(s) * c).astype(np.float32)) for n, s, c in [('x', (32, 256), 1), ('w1', (256, 256), 0.1), ('b1', (256,), 1), ('w2', (256, 96), 0.1)]]"
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=2 JEET_DEBUG=1 jeet-run %s --device=cpu --input=@%t/x.npy --input=@%t/w1.npy --input=@%t/b1.npy --input=@%t/w2.npy --output=@%t/split.npy 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=1 JEET_DEBUG=1 jeet-run %s --device=cpu --input=@%t/x.npy --input=@%t/w1.npy --input=@%t/b1.npy --input=@%t/w2.npy --output=@%t/whole.npy 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=2 JEET_DEBUG=2 jeet-run %s --device=cpu --input=@%t/x.npy --input=@%t/w1.npy --input=@%t/b1.npy --input=@%t/w2.npy --output=@%t/timed.npy 2>&1 | FileCheck %s --check-prefix=TIMED
// RUN: %python -c "import numpy as np; s, w, t = (np.load('%t/' + n + '.npy') for n in ('split', 'whole', 'timed')); assert np.array_equal(s, t); x, w1, b1, w2 = (np.load('%t/' + n + '.npy').astype(np.float64) for n in ('x', 'w1', 'b1', 'w2')); ref = np.maximum(x @ w1 + b1, 0) @ w2; assert np.array_equal(s, w), abs(s - w).max(); assert np.allclose(s, ref, rtol=1e-5, atol=1e-5), abs(s - ref).max(); print('ok')" | FileCheck %s
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=2 JEET_DEBUG=1 jeet-run %s --entry=small --device=cpu --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=SMALL

// SPLIT: jeet:      codegen {{.*}}   2 objects in parallel ({{[0-9]+}} + {{[0-9]+}} instructions), split in {{[0-9.]+}} ms, other threads' cpu {{[0-9.]+}} ms
// TIMED: X86 DAG->DAG Instruction Selection
// TIMED: jeet:      codegen {{.*}}   2 objects one after the other ({{[0-9]+}} + {{[0-9]+}} instructions), split in {{[0-9.]+}} ms{{$}}
// WHOLE: jeet:      codegen
// WHOLE-NOT: objects in parallel
// CHECK: ok
// A value that is not a positive number is named in a warning and the
// compilation goes on with the host's cores.
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=two jeet-run %s --entry=small --device=cpu --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: jeet: warning: ignoring JEET_COMPILE_THREADS='two': expected a positive number of threads; using the host's cores
// BAD: 4xf32=[2 4 6 8]
// SMALL: jeet:      codegen
// SMALL-NOT: objects in parallel
// SMALL: 4xf32=[2 4 6 8]
// Two layers of different widths: each gets a tile kernel of its own, so
// that there is code enough for two objects whatever the register tile.
func.func @main(%x: tensor<32x256xf32>, %w1: tensor<256x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x96xf32>) -> tensor<32x96xf32> {
  %0 = jeet.matmul %x, %w1 : tensor<32x256xf32>, tensor<256x256xf32> -> tensor<32x256xf32>
  %1 = jeet.add %0, %b1 : tensor<32x256xf32>, tensor<256xf32> -> tensor<32x256xf32>
  %2 = jeet.relu %1 : tensor<32x256xf32>
  %3 = jeet.matmul %2, %w2 : tensor<32x256xf32>, tensor<256x96xf32> -> tensor<32x96xf32>
  return %3 : tensor<32x96xf32>
}

func.func @small(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.add %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
