//===- DataMovement.h - concat, slice, gather and pad as linalg -*- C++ -*-===//
//
// Part of the Jeet project.
//
// Internal to lib/Conversion/JeetToLinalg: the lowering of the ops that move
// elements, given the tensors of their operands.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_CONVERSION_JEETTOLINALG_DATAMOVEMENT_H
#define JEET_LIB_CONVERSION_JEETTOLINALG_DATAMOVEMENT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace jeet {
class ConcatOp;
class GatherOp;
class Im2colOp;
class PadOp;
class SliceOp;

mlir::Value emitSlice(mlir::OpBuilder &b, SliceOp op, mlir::Value input);

/// The slice (isViewSlice: every step positive) as a tensor.extract_slice of
/// `input`: no loop, a view of the input's buffer once bufferized. With
/// `type`, the slice reshaped to it by a splitting reshape
/// (isSplittingReshape): the extract_slice drops its unit dimensions and a
/// tensor.expand_shape splits the others and adds the type's unit ones, both
/// views of any strided buffer (a collapse of the strided slice would have
/// been copied).
mlir::Value emitSliceView(mlir::OpBuilder &b, SliceOp op, mlir::Value input,
                          mlir::RankedTensorType type = {});
/// The concat as one parallel generic that reads each element from the
/// input its position along the axis falls in (a select between the inputs'
/// elements): a loop nest that the GPU's kernel formation tiles.
mlir::Value emitConcat(mlir::OpBuilder &b, ConcatOp op,
                       mlir::ValueRange inputs);
/// The concat as each input inserted into its slice of an empty tensor
/// (tensor.insert_slice): once bufferized, a copy of each input into a view
/// of the result, contiguous runs that the CPU's code copies by vectors.
mlir::Value emitConcatAsCopies(mlir::OpBuilder &b, ConcatOp op,
                               mlir::ValueRange inputs);
mlir::Value emitGather(mlir::OpBuilder &b, GatherOp op, mlir::Value data,
                       mlir::Value indices);
mlir::Value emitPad(mlir::OpBuilder &b, PadOp op, mlir::Value input,
                    mlir::Value value);
mlir::Value emitIm2col(mlir::OpBuilder &b, Im2colOp op, mlir::Value input);
} // namespace jeet

#endif // JEET_LIB_CONVERSION_JEETTOLINALG_DATAMOVEMENT_H
