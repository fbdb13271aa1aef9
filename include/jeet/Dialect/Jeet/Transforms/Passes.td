//===- Passes.td - Passes on the jeet dialect --------------*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_TRANSFORMS_PASSES_TD
#define JEET_DIALECT_JEET_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Graph simplification
//===----------------------------------------------------------------------===//

def JeetDecomposePass : Pass<"jeet-decompose"> {
  let summary = "Rewrites composite ops into primitive jeet ops";
  let description = [{
    Rewrites `jeet.softmax`, `jeet.gelu` and `jeet.reduce_mean` into
    primitive jeet ops so that fusion and lowering see only primitives.
    Softmax subtracts the maximum along its axis before exponentiating, so it
    does not overflow.

    Before:
    ```mlir
    %s = jeet.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
    ```
    After:
    ```mlir
    %m = jeet.reduce_max %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
    %d = jeet.sub %x, %m : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    %e = jeet.exp %d : tensor<4x8xf32>
    %z = jeet.reduce_sum %e {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
    %s = jeet.div %e, %z : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["::jeet::JeetDialect"];
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def JeetFusePass : Pass<"jeet-fuse", "::mlir::func::FuncOp"> {
  let summary = "Groups jeet ops into jeet.fusion regions, one per kernel";
  let description = [{
    Forms fusion groups with these rules, in order: elementwise ops,
    broadcasts and casts chain into one group; a matmul absorbs its
    elementwise consumers as an epilogue; a reduction absorbs its elementwise
    producers as a prologue; a value used by two groups is materialised once,
    unless it is cheap elementwise work on graph inputs that is cheaper to
    recompute; a group never holds two matmuls. Each group is wrapped in a
    `jeet.fusion` region, which later becomes exactly one kernel.

    Before:
    ```mlir
    %0 = jeet.add %a, %b : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
    %1 = jeet.relu %0 : tensor<16xf32>
    ```
    After:
    ```mlir
    %1 = jeet.fusion (%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> {
    ^bb0(%x: tensor<16xf32>, %y: tensor<16xf32>):
      %0 = jeet.add %x, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
      %1 = jeet.relu %0 : tensor<16xf32>
      jeet.yield %1 : tensor<16xf32>
    }
    ```
  }];
  let options = [
    Option<"enable", "enable", "bool", /*default=*/"true",
           "Fuse ops into groups; when false every op is a group of its own">,
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"64",
           "The largest number of ops in one group (at least 1)">,
  ];
  let dependentDialects = ["::jeet::JeetDialect"];
}

#endif // JEET_DIALECT_JEET_TRANSFORMS_PASSES_TD
