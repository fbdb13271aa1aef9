// Every way jeet-runner can be given bad input fails with a clear message and
// a non-zero exit code.
// RUN: rm -rf %t && mkdir -p %t
// RUN: jeet-compile %s -o %t/g.so

// Too few inputs: names the expected count.
// RUN: not jeet-runner %t/g.so --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: jeet-runner: error: 'main' takes 2 arguments but 1 --input given

// A shape that does not match the argument: names the index and both types.
// RUN: not jeet-runner %t/g.so --input=3xf32=1,2,3 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: jeet-runner: error: argument #0 of 'main' expects 2xf32, given 3xf32

// A dtype that does not match.
// RUN: not jeet-runner %t/g.so --input=2xf32=1,2 --input=2xi32=1,2 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: jeet-runner: error: argument #1 of 'main' expects 2xf32, given 2xi32

// An inline literal with the wrong number of values.
// RUN: not jeet-runner %t/g.so --input=2xf32=1,2,3 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=LITERAL
// LITERAL: jeet-runner: error: --input #0: {{.*}}2{{.*}}3

// A .npy that does not exist, one that is not a .npy file, and one of the
// wrong shape.
// RUN: not jeet-runner %t/g.so --input=@%t/missing.npy --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: jeet-runner: error: --input #0: {{.*}}missing.npy
// RUN: echo garbage > %t/bad.npy
// RUN: not jeet-runner %t/g.so --input=@%t/bad.npy --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: jeet-runner: error: --input #0: {{.*}}bad.npy{{.*}}magic
// RUN: %python -c "import numpy as np; np.save('%t/big.npy', np.zeros((2, 2), np.float32))"
// RUN: not jeet-runner %t/g.so --input=2xf32=1,2 --input=@%t/big.npy 2>&1 | FileCheck %s --check-prefix=NPYSHAPE
// NPYSHAPE: jeet-runner: error: argument #1 of 'main' expects 2xf32, given 2x2xf32

// Outputs: too many, and one that is not @path.
// RUN: not jeet-runner %t/g.so --input=2xf32=1,2 --input=2xf32=1,2 --output=@%t/1.npy --output=@%t/2.npy 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: jeet-runner: error: 'main' returns 1 results but 2 --output given
// RUN: not jeet-runner %t/g.so --input=2xf32=1,2 --input=2xf32=1,2 --output=out.npy 2>&1 | FileCheck %s --check-prefix=OUTPATH
// OUTPATH: jeet-runner: error: --output 'out.npy': expected @path.npy

// Devices: an unknown one, and one the artifact was not compiled for.
// RUN: not jeet-runner %t/g.so --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: jeet-runner: error: unknown device 'tpu' (expected cpu, gpu or auto)
// RUN: not jeet-runner %t/g.so --device=gpu --input=2xf32=1,2 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=WRONGDEV
// WRONGDEV: jeet-runner: error: {{.*}}g.so was compiled for device 'cpu', not 'gpu' (compile it again with jeet-compile --device=gpu)

// Options and arguments.
// RUN: not jeet-runner %t/g.so --bogus 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: jeet-runner: error: unknown option '--bogus' (see --help)
// RUN: not jeet-runner 2>&1 | FileCheck %s --check-prefix=NOARG
// NOARG: jeet-runner: error: no artifact given
// RUN: not jeet-runner %t/g.so --benchmark=x 2>&1 | FileCheck %s --check-prefix=BENCH
// BENCH: jeet-runner: error: --benchmark: expected a count, given 'x'
// RUN: jeet-runner --help | FileCheck %s --check-prefix=HELP
// HELP: usage: jeet-runner <graph.so>

func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jeet.add %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
