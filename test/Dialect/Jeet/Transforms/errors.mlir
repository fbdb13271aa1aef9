// RUN: jeet-opt %s -split-input-file -verify-diagnostics --jeet-fuse=max-ops=0

// The errors of the graph-level passes. jeet-decompose and
// jeet-distinct-results emit none. jeet-fuse's two internal errors (a
// fused op still used outside its group, groups that form a cycle) guard
// invariants of its grouping (see Fuse.cpp) and cannot be reached from IR.

// max-ops below 1 is rejected with a clear error.
// expected-error @+1 {{jeet-fuse: max-ops must be at least 1, got 0}}
func.func @max_ops_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
