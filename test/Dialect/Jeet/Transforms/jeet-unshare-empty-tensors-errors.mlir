// RUN: jeet-opt %s -verify-diagnostics --jeet-unshare-empty-tensors=max-uses=0

// max-uses below 1 is rejected with a clear error.
// expected-error @+1 {{jeet-unshare-empty-tensors: max-uses must be at least 1, got 0}}
func.func @max_uses_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
