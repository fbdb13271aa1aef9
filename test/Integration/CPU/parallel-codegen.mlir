// The JIT with code generation split over threads (JEET_COMPILE_THREADS=2):
// the graph's objects are generated in parallel and linked together, and
// give the answers of the graph compiled as one object and of a float64
// reference on fresh random inputs. Its partitions (the tile kernels, the
// entry with its parallel regions) are of similar size before optimisation,
// so the module is cut first and each partition is optimised on its thread
// too. With LLVM's pass timing on (JEET_DEBUG=2) the module is optimised
// whole and the same partitions are generated one after the other. A graph
// of many small outputs and a matmul is one long entry and a small kernel
// before optimisation, too unequal to optimise apart: it is optimised
// whole, then cut between the pieces of that entry that optimisation
// outlined. A graph too small to gain stays one object. The second layer
// reads its weights transposed, so the two layers' tiles call two kernels
// (one per layout): with AVX2's 6x16 register tiles one tile kernel alone
// is under the smallest partition's size.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(); [np.save('%t/' + n + '.npy', (r.standard_normal(s) * c).astype(np.float32)) for n, s, c in [('x', (32, 256), 1), ('w1', (256, 256), 0.1), ('b1', (256,), 1), ('w2', (256, 256), 0.1)]]"
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=2 JEET_DEBUG=1 jeet-run %s --device=cpu --input=@%t/x.npy --input=@%t/w1.npy --input=@%t/b1.npy --input=@%t/w2.npy --output=@%t/split.npy 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=1 JEET_DEBUG=1 jeet-run %s --device=cpu --input=@%t/x.npy --input=@%t/w1.npy --input=@%t/b1.npy --input=@%t/w2.npy --output=@%t/whole.npy 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=2 JEET_DEBUG=2 jeet-run %s --device=cpu --input=@%t/x.npy --input=@%t/w1.npy --input=@%t/b1.npy --input=@%t/w2.npy --output=@%t/timed.npy 2>&1 | FileCheck %s --check-prefix=TIMED
// RUN: %python -c "import numpy as np; s, w, t = (np.load('%t/' + n + '.npy') for n in ('split', 'whole', 'timed')); assert np.array_equal(s, t); x, w1, b1, w2 = (np.load('%t/' + n + '.npy').astype(np.float64) for n in ('x', 'w1', 'b1', 'w2')); ref = np.maximum(x @ w1 + b1, 0) @ w2.T; assert np.array_equal(s, w), abs(s - w).max(); assert np.allclose(s, ref, rtol=1e-5, atol=1e-5), abs(s - ref).max(); print('ok')" | FileCheck %s
// RUN: %python %S/Inputs/many_outputs.py 100 matmul > %t/many.mlir
// RUN: %python -c "import numpy as np; r = np.random.default_rng(); [np.save('%t/' + n + '.npy', r.standard_normal(s).astype(np.float32)) for n, s in [('mx', (64, 256)), ('mw', (256, 64))]]"
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=2 JEET_DEBUG=1 jeet-run %t/many.mlir --entry=many --device=cpu --input=16xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --input=16xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --input=@%t/mx.npy --input=@%t/mw.npy 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: env JEET_CACHE_DIR= JEET_COMPILE_THREADS=2 JEET_DEBUG=1 jeet-run %s --entry=small --device=cpu --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=SMALL

// SPLIT: jeet:      codegen {{.*}}   2 objects in parallel ({{[0-9]+}} + {{[0-9]+}} instructions), split in {{[0-9.]+}} ms, other threads' cpu {{[0-9.]+}} ms, each partition optimised on its thread{{$}}
// MANY: jeet:      codegen {{.*}}   2 objects in parallel ({{[0-9]+}} + {{[0-9]+}} instructions), split in {{[0-9.]+}} ms, other threads' cpu {{[0-9.]+}} ms{{$}}
// MANY-NEXT: jeet:      link
// MANY: 16xf32=[1.5 5 10.5 18 27.5 39 52.5 68 85.5 105 126.5 150 175.5 203 232.5 264]
// MANY-NEXT: 16xf32=[1.5 6 13.5 24 37.5 54 73.5 96 121.5 150 181.5 216 253.5 294 337.5 384]
// MANY-NEXT: 16xf32=[-1.5 -1 1.5 6 12.5 21 31.5 44 58.5 75 93.5 114 136.5 161 187.5 216]
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
func.func @main(%x: tensor<32x256xf32>, %w1: tensor<256x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x256xf32>) -> tensor<32x256xf32> {
  %0 = jeet.matmul %x, %w1 : tensor<32x256xf32>, tensor<256x256xf32> -> tensor<32x256xf32>
  %1 = jeet.add %0, %b1 : tensor<32x256xf32>, tensor<256xf32> -> tensor<32x256xf32>
  %2 = jeet.relu %1 : tensor<32x256xf32>
  %t = jeet.transpose %w2 {permutation = array<i64: 1, 0>} : tensor<256x256xf32> -> tensor<256x256xf32>
  %3 = jeet.matmul %2, %t : tensor<32x256xf32>, tensor<256x256xf32> -> tensor<32x256xf32>
  return %3 : tensor<32x256xf32>
}

func.func @small(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.add %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
