// RUN: jeet-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(jeet-gpu-map-kernels{block-size=0}))'
// RUN: jeet-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(jeet-gpu-map-kernels{block-size=2048}))'

// A block size that no chip can launch (1 to 1024 threads).
// expected-error-re @+1 {{jeet-gpu-map-kernels: block-size must be between 1 and 1024, got {{0|2048}}}}
func.func @f(%a: memref<4xf32>) {
  return
}
