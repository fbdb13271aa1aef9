//===- Passes.td - Conversions out of the jeet dialect -----*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CONVERSION_PASSES_TD
#define JEET_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// JeetToLinalg
//===----------------------------------------------------------------------===//

def JeetLowerToLinalgPass : Pass<"jeet-lower-to-linalg"> {
  let summary = "Lowers jeet ops to linalg on tensors";
  let description = [{
    Rewrites every jeet op into linalg named or generic ops on tensors (with
    the tensor, arith and math dialects). Broadcast operands are read through
    indexing maps rather than expanded. Each `jeet.fusion` region becomes one
    loop nest: its elementwise ops, broadcasts and casts are folded into a
    single `linalg.generic`, a matmul's epilogue is applied to the
    accumulator, and a reduction computes its prologue inside the reduction
    loop. A transpose of matrices in a region that only its matmuls read is
    not materialised: they read its input through transposed indexing maps
    (`linalg.matmul` / `linalg.batch_matmul` with `indexing_maps`, or the
    maps of a contraction generic). An operand that a reduction and a matmul
    of the region both read is materialised once, for the matmul, and the
    reduction reduces that tensor.

    A multi-reduction region (softmax, layernorm) is tiled over blocks of
    rows of about 256 KiB, and an attention region (`jeet-fuse` with
    `attention-block-bytes`) over its batch and blocks of rows, with the
    first matmul and the softmax fused into each block. In an attention
    region the softmax's division by the row sums moves after the second
    matmul, `(E / s) @ V` = `(E @ V) / s`: it divides the rows of the
    result instead of the longer rows of the scores, and the sum reads the
    exponentials that the second matmul reads.

    Before:
    ```mlir
    %r = jeet.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<4x3xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : tensor<4x3xf32>, tensor<3xf32>) outs(%e : tensor<4x3xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<4x3xf32>
    ```
  }];
  let options = [
    Option<"epilogueTileSize", "epilogue-tile-size", "int64_t",
           /*default=*/"64",
           "Tile size of the two innermost dimensions of a matmul epilogue, "
           "into whose tiles the matmul is fused (scf.forall), and of the "
           "columns of a matmul of 8 to 127 rows yielded alone; 0 leaves "
           "the matmul and its epilogue untiled">,
    Option<"hoistBroadcastWork", "hoist-broadcast-work", "bool",
           /*default=*/"true",
           "In a group of elementwise ops alone, compute an operand that is "
           "broadcast into the loop nest and costs a division or a "
           "transcendental (a squeeze-and-excitation gate, sigmoid(s + b) "
           "per channel) by a generic of its own shape first, and read it "
           "as an input; and a reduction whose operand the group also "
           "yields reads that result instead of computing it again; false "
           "computes both in the loop nests (the GPU's kernel formation)">,
    Option<"concatAsCopies", "concat-as-copies", "bool", /*default=*/"true",
           "A jeet.concat as each input inserted into its slice of the "
           "result (tensor.insert_slice: copies of whole runs into views once "
           "bufferized, which the CPU's code copies by vectors); false, one "
           "generic that selects each element's input (a loop nest the GPU's "
           "kernel formation tiles)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // JEET_CONVERSION_PASSES_TD
