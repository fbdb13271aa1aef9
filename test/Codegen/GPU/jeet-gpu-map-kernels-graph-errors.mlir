// RUN: jeet-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(jeet-gpu-form-kernels,jeet-bufferize-pipeline,func.func(jeet-gpu-map-kernels))'

// The errors of jeet-gpu-map-kernels that a jeet graph reaches.

// A reduction to a scalar is one tile: the transposed tensor that the group
// reduces is a temporary of that tile, 256 KiB of workgroup memory.
func.func @transpose_then_sum(%x: tensor<256x256xf32>) -> tensor<f32> {
  %r = jeet.fusion(%x) : (tensor<256x256xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<256x256xf32>):
    // expected-error @+1 {{'memref.alloc' op needs 262144 bytes of workgroup memory in one kernel, more than the 49152 available}}
    %t = jeet.transpose %a {permutation = array<i64: 1, 0>} : tensor<256x256xf32> -> tensor<256x256xf32>
    %s = jeet.reduce_sum %t {axes = array<i64: 0, 1>} : tensor<256x256xf32> -> tensor<f32>
    jeet.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}
