//===- JeetOps.h - Operations of the jeet dialect ---------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_IR_JEETOPS_H
#define JEET_DIALECT_JEET_IR_JEETOPS_H

#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/Dialect/Jeet/IR/JeetInterfaces.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#define GET_OP_CLASSES
#include "jeet/Dialect/Jeet/IR/JeetOps.h.inc"

namespace jeet {

/// Returns the numpy broadcast of two static shapes, or std::nullopt when they
/// are not broadcast-compatible.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Returns true when `from` broadcasts to `to` with numpy's rules.
bool isBroadcastableTo(llvm::ArrayRef<int64_t> from,
                       llvm::ArrayRef<int64_t> to);

/// Returns the number of elements of a static shape, or std::nullopt when the
/// count does not fit in an int64_t (or a dimension is dynamic).
std::optional<int64_t> getNumElements(llvm::ArrayRef<int64_t> shape);

/// Returns the shape of a reduction of `shape` over `axes`.
llvm::SmallVector<int64_t> reducedShape(llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<int64_t> axes,
                                        bool keepdims);

/// The elements a slice `start:stop:step` of a dimension of `size` takes
/// (Python's and numpy's semantics): the first one and how many.
struct SliceBounds {
  int64_t start;
  int64_t count;
};
SliceBounds getSliceBounds(int64_t size, int64_t start, int64_t stop,
                           int64_t step);

/// The shape a matmul operand of `type` is multiplied as: a 1-D lhs `(K)` is
/// the row `(1, K)`, a 1-D rhs the column `(K, 1)`, as numpy promotes them;
/// other shapes as they are.
llvm::SmallVector<int64_t> promoteMatmulOperand(mlir::RankedTensorType type,
                                                bool isLhs);

/// Whether `op` transposes the matrices of a tensor: it swaps the two
/// innermost dimensions and keeps any leading (batch) dimensions in place. A
/// matmul can read such a transpose's input through a transposed indexing
/// map instead of a materialised copy.
bool isMatrixTranspose(TransposeOp op);

/// Whether every use of `op`'s result is an operand of a jeet.matmul of
/// matrices (both operands of rank 2 or more), so that the matmuls can read
/// the transpose's input directly (see isMatrixTranspose).
bool foldsIntoMatmuls(TransposeOp op);

/// Whether `op` selects a strided box (every step positive) of its input, so
/// that the ops of a group that read it can read that box of the input in
/// place (a tensor.extract_slice, a view once bufferized: of a constant's
/// global too) instead of a copy.
bool isViewSlice(SliceOp op);

/// The dimensions of size other than 1 that a reshape from `from` to `to`
/// maps onto each other: consecutive runs of each shape with equal products
/// (a dimension split in two is one group of one `from` and two `to`
/// dimensions), as indices into the shapes.
struct ReshapeGroup {
  llvm::SmallVector<int64_t, 2> from, to;
};

/// The groups of a reshape between two static shapes of the same number of
/// elements, in order; none when a dimension is dynamic or 0 or the
/// element counts differ.
std::optional<llvm::SmallVector<ReshapeGroup>>
getReshapeGroups(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Whether a reshape from `from` to `to` only splits dimensions and adds or
/// removes dimensions of size 1, keeping at least one that is not 1 (so
/// that a strided view reshaped by it stays a view: the lowering drops the
/// unit dimensions of a slice and expands the others; merging dimensions of
/// a strided view would copy it).
bool isSplittingReshape(llvm::ArrayRef<int64_t> from,
                        llvm::ArrayRef<int64_t> to);
bool isSplittingReshape(ReshapeOp op);

} // namespace jeet

#endif // JEET_DIALECT_JEET_IR_JEETOPS_H
