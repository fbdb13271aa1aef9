// RUN: jeet-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-transpose{block=12}))'

// A block's side that is not a power of two (or is under 4) is refused.
// expected-error@unknown {{jeet-cpu-vectorize-transpose: block must be 0 or a power of two of at least 4, not 12}}
func.func @any(%x: memref<16x16xf32>, %y: memref<16x16xf32>) {
  return
}
