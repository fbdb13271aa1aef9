// RUN: jeet-opt %s -split-input-file -verify-diagnostics --jeet-cpu-approximate-math=functions=exp,sin

// The errors of the CPU code generation passes: only
// jeet-cpu-approximate-math and jeet-cpu-vectorize-transpose have one, for
// their options (jeet-cpu-vectorize-transpose-errors.mlir); the others leave
// alone what they cannot rewrite.

// An unknown function in 'functions' is named, with the supported ones.
// expected-error@unknown {{jeet-cpu-approximate-math: unknown function 'sin' in 'functions' (supported: exp, log, tanh, erf)}}
func.func @unknown_function(%x: memref<4xf32>) {
  return
}
