// jeet-compile's errors name the file and the problem.
// RUN: rm -rf %t && mkdir -p %t

// A missing entry function.
// RUN: not jeet-compile %s -o %t/g.so --entry=nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: compile-errors.mlir: no function named 'nope'
// ENTRY: jeet-compile: error: compilation of '{{.*}}compile-errors.mlir' into '{{.*}}g.so' failed

// An output directory that does not exist.
// RUN: not jeet-compile %s -o %t/nodir/g.so 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: jeet-compile: error: cannot write '{{.*}}nodir/g.so': directory '{{.*}}nodir' does not exist

// An input that does not exist.
// RUN: not jeet-compile %t/missing.mlir -o %t/g.so 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: jeet-compile: error: cannot read '{{.*}}missing.mlir': {{.*}}

// An unknown device and an unknown target CPU.
// RUN: not jeet-compile %s -o %t/g.so --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: jeet-compile: error: unknown device 'tpu' (expected cpu or gpu)
// RUN: not jeet-compile %s -o %t/g.so --target-cpu=pentium9000 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: unknown target CPU 'pentium9000'

// A graph that does not verify: the diagnostic with its location; no
// artifact is left behind.
// RUN: not jeet-compile %S/Inputs/invalid.mlir -o %t/bad.so 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
// INVALID: jeet-compile: error: compilation of
// RUN: not ls %t/bad.so %t/bad.so.partial

// A signature Jeet cannot run (a dynamic shape).
// RUN: not jeet-compile %s -o %t/g.so --entry=dynamic 2>&1 | FileCheck %s --check-prefix=SIGNATURE
// SIGNATURE: compile-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: argument #0 of 'dynamic' has type 'tensor<?xf32>'

// A function named as a symbol of the artifact ABI, the entry or one it
// calls: reported where the graph defines it, before compiling.
// RUN: not jeet-compile %s -o %t/g.so --entry=reserved 2>&1 | FileCheck %s --check-prefix=RESERVED
// RESERVED: compile-errors.mlir:[[@LINE+20]]:1: error: a function of the graph is named 'jeet_artifact_init', a name reserved for the artifact ABI (jeet_artifact_run, jeet_artifact_init, jeet_artifact_fini, jeet_artifact_signature); rename it
// RESERVED-NOT: see current operation
// RUN: not jeet-compile %s -o %t/g.so --entry=jeet_artifact_run 2>&1 | FileCheck %s --check-prefix=RESERVED-ENTRY
// RESERVED-ENTRY: compile-errors.mlir:[[@LINE+22]]:1: error: a function of the graph is named 'jeet_artifact_run'
// RUN: not ls %t/g.so

func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jeet.neg %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

func.func @reserved(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @jeet_artifact_init(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func private @jeet_artifact_init(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = jeet.neg %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func @jeet_artifact_run(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
