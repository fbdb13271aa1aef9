//===- JeetToLinalg.h - Lower jeet ops to linalg on tensors -----*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The pieces of `jeet-lower-to-linalg` that other passes and drivers reuse:
// the scalar body of a jeet op in a loop nest (the scalar function of an
// elementwise op, see ElementwiseOpInterface, or a splat constant), the
// lowering of a single op, and the lowering of a `jeet.fusion` group into
// one loop nest.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CONVERSION_JEETTOLINALG_JEETTOLINALG_H
#define JEET_CONVERSION_JEETTOLINALG_JEETTOLINALG_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"

namespace jeet {

class FusionOp;

/// Returns true when `op` is lowered as a scalar computation inside a
/// `linalg.generic` body: the elementwise ops (ElementwiseOpInterface: the
/// arithmetic ops, `jeet.cast`, `jeet.broadcast_to`) and `jeet.constant`.
bool isScalarizableJeetOp(mlir::Operation *op);

/// Emits the scalar computation of the elementwise jeet op `op` on the scalar
/// `operands` (one per tensor operand of `op`, of its element type) and
/// returns the scalar result, of the element type of `op`'s result: the op's
/// own scalar function (ElementwiseOpInterface::buildScalar). A splat
/// `jeet.constant` takes no operands and gives its splat value. Returns
/// failure, without a diagnostic, for ops that have no scalar form.
mlir::FailureOr<mlir::Value> emitScalarJeetOp(mlir::OpBuilder &builder,
                                              mlir::Location loc,
                                              mlir::Operation *op,
                                              mlir::ValueRange operands);

/// Lowers the jeet op `op` (not `jeet.fusion`) at the builder's insertion
/// point, reading `operands` in place of its operands, and returns the values
/// that replace its results. Emits a diagnostic on `op` and returns failure
/// when the op cannot be lowered.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
lowerJeetOpToLinalg(mlir::OpBuilder &builder, mlir::Operation *op,
                    mlir::ValueRange operands);

/// Lowers `fusion` into one loop nest where its shape allows and replaces
/// it: elementwise groups become one `linalg.generic`, a reduction computes
/// its elementwise prologue in its own body, and a matmul's elementwise
/// epilogue is tiled by `epilogueTileSize` (0: not tiled) with the matmul
/// fused into each tile (a transpose of its result yielded alone is such an
/// epilogue; a matmul of 8 to 127 rows yielded alone is tiled over its
/// columns the same way); a multi-reduction group (reductions of the same
/// trailing dimensions and row ops that read them) is tiled over blocks of
/// rows of about `rowBlockBytes` (0: not tiled) with the reductions fused
/// into each block. With `hoistBroadcastWork`, a group of elementwise ops
/// alone computes the operands broadcast into its loop nest that cost a
/// division or a transcendental by generics of their own shape first, and a
/// reduction whose operand the group yields reads that result. Any other
/// group is lowered op by op; with `concatAsCopies`, a jeet.concat as its
/// inputs inserted into slices of its result (copies into views once
/// bufferized), else as one generic that selects each element's input.
mlir::LogicalResult lowerFusionOpToLinalg(mlir::RewriterBase &rewriter,
                                          FusionOp fusion,
                                          int64_t epilogueTileSize = 64,
                                          int64_t rowBlockBytes = 0,
                                          bool hoistBroadcastWork = false,
                                          bool concatAsCopies = false);

/// The number of leading (row) dimensions of a multi-reduction group: its
/// one result and the input of every reduction have the same static shape,
/// and every reduction reduces the same trailing dimensions. 0 when `fusion`
/// is no such group.
unsigned getRowGroupLeadingDims(FusionOp fusion);

/// Lowers every jeet op nested in `root`: fusion groups first, then the ops
/// outside any group. Stops at the first op that cannot be lowered, with a
/// diagnostic naming it.
mlir::LogicalResult lowerJeetToLinalg(mlir::Operation *root,
                                      int64_t epilogueTileSize = 64,
                                      int64_t rowBlockBytes = 0,
                                      bool hoistBroadcastWork = false,
                                      bool concatAsCopies = false);

} // namespace jeet

#endif // JEET_CONVERSION_JEETTOLINALG_JEETTOLINALG_H
