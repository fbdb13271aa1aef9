// Every way jeet-run can be given bad input fails with a clear message and a
// non-zero exit code.

// Too few inputs: names the expected count.
// RUN: not jeet-run %s --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: 'main' takes 2 arguments but 1 --input given

// A shape that does not match the argument: names the index and both types.
// RUN: not jeet-run %s --input=3xf32=1,2,3 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: argument #0 of 'main' expects 2xf32, given 3xf32

// A dtype that does not match.
// RUN: not jeet-run %s --input=2xi32=1,2 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: argument #0 of 'main' expects 2xf32, given 2xi32

// An inline literal with the wrong number of values.
// RUN: not jeet-run %s --input=2xf32=1,2,3 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=LITERAL
// LITERAL: error: --input #0: {{.*}}2{{.*}}3

// A .npy that does not exist, and one that is not a .npy file.
// RUN: not jeet-run %s --input=@%t.missing.npy --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: --input #0: {{.*}}missing.npy
// RUN: echo garbage > %t.bad.npy
// RUN: not jeet-run %s --input=@%t.bad.npy --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: error: --input #0: {{.*}}bad.npy{{.*}}magic

// Too many outputs.
// RUN: not jeet-run %s --input=2xf32=1,2 --input=2xf32=1,2 --output=@%t.1.npy --output=@%t.2.npy 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: error: 'main' returns 1 results but 2 --output given

// No GPU here: the reason is given (lit runs this only without a driver).
// RUN: %if !cuda-driver %{ not jeet-run %s --device=gpu --input=2xf32=1,2 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=GPU %}
// GPU: error: device 'gpu' is unavailable: {{.+}}

// An unknown device.
// RUN: not jeet-run %s --device=tpu --input=2xf32=1,2 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: unknown device 'tpu' (expected cpu, gpu or auto)

// An unknown GPU target.
// RUN: not jeet-run %s --gpu-target=sass --input=2xf32=1,2 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=GPU-TARGET
// GPU-TARGET: error: unknown GPU target 'sass' (expected auto, ptx or emulator)

// A missing entry function.
// RUN: not jeet-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: no function named 'nope'

func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jeet.add %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
