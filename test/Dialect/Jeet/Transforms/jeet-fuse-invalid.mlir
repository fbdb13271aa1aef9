// RUN: not jeet-opt %s --jeet-fuse=max-ops=0 2>&1 | FileCheck %s

// max-ops below 1 is rejected with a clear error.
// CHECK: error: jeet-fuse: max-ops must be at least 1, got 0
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
