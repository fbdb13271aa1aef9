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

#endif // JEET_DIALECT_JEET_TRANSFORMS_PASSES_TD
