//===- OpSupport.h - Helpers of the jeet ops' definitions -------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Internal to lib/Dialect/Jeet/IR: the shared pieces that the op classes
// generated from JeetOps.td call (type inference of each family, the scalar
// functions named by an op's ODS parameters).
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_DIALECT_JEET_IR_OPSUPPORT_H
#define JEET_LIB_DIALECT_JEET_IR_OPSUPPORT_H

#include "jeet/Dialect/Jeet/IR/JeetInterfaces.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace jeet {
namespace detail {

/// The result type of a binary elementwise op: the numpy broadcast of both
/// operands' shapes, of their (common) element type.
llvm::LogicalResult inferBroadcastResultType(
    llvm::StringRef opName, std::optional<mlir::Location> loc, mlir::Type lhs,
    mlir::Type rhs, llvm::SmallVectorImpl<mlir::Type> &results);

/// The result type of a reduction of `input` over `axes`.
llvm::LogicalResult
inferReductionResultType(llvm::StringRef opName,
                         std::optional<mlir::Location> loc, mlir::Type input,
                         mlir::DenseI64ArrayAttr axes, bool keepdims,
                         llvm::SmallVectorImpl<mlir::Type> &results);

/// f32 for f16 and bf16 (sums of them accumulate in f32); other types as
/// they are.
mlir::Type widenLowPrecisionFloat(mlir::Type type);

/// The scalar function of a binary op that is `FloatOp` on floats and
/// `IntOp` on integers.
template <typename FloatOp, typename IntOp>
mlir::Value buildFloatOrIntOp(mlir::OpBuilder &builder, mlir::Location loc,
                              mlir::ValueRange operands) {
  if (llvm::isa<mlir::FloatType>(operands[0].getType()))
    return FloatOp::create(builder, loc, operands[0], operands[1]);
  return IntOp::create(builder, loc, operands[0], operands[1]);
}

/// The scalar function of a unary op that is the math op `MathOp`, computed
/// in f32 for f16 and bf16.
template <typename MathOp>
mlir::Value buildMathOpInF32(mlir::OpBuilder &builder, mlir::Location loc,
                             mlir::ValueRange operands) {
  return buildInF32(builder, loc, operands, [&](mlir::ValueRange wide) {
    return MathOp::create(builder, loc, wide[0]).getResult();
  });
}

} // namespace detail
} // namespace jeet

#endif // JEET_LIB_DIALECT_JEET_IR_OPSUPPORT_H
