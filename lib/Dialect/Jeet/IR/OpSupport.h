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

/// The result type of an argmax/argmin of `input` along `axis`: the
/// reduction's shape, of i64 indices.
llvm::LogicalResult
inferArgReductionResultType(llvm::StringRef opName,
                            std::optional<mlir::Location> loc, mlir::Type input,
                            mlir::IntegerAttr axis, bool keepdims,
                            llvm::SmallVectorImpl<mlir::Type> &results);

/// The decomposition of argmax (`maximum`) or argmin of `input` along `axis`:
/// m = reduce_max/min(x, keepdims); the least iota index where x == m (or x
/// is NaN), the axis size elsewhere (reduce_min of a select).
mlir::FailureOr<mlir::Value> decomposeArgReduction(mlir::OpBuilder &builder,
                                                   mlir::Location loc,
                                                   mlir::Value input,
                                                   int64_t axis, bool keepdims,
                                                   bool maximum);

/// f32 for f16 and bf16 (sums of them accumulate in f32); other types as
/// they are.
mlir::Type widenLowPrecisionFloat(mlir::Type type);

/// `compute` built on `input` in f32 where its element type is f16 or bf16:
/// the input widened, and the result (of any shape) rounded back to that
/// type once, as the scalar functions and PyTorch compute (rounded op by op,
/// a decomposition loses bits between its ops, and its sums overflow past
/// 65504). Other element types: compute(input) as it is.
mlir::Value
buildInWideFloat(mlir::OpBuilder &builder, mlir::Location loc,
                 mlir::Value input,
                 llvm::function_ref<mlir::Value(mlir::Value)> compute);

/// The scalar function of a comparison: `floatPredicate` on floats (f16 and
/// bf16 widened to f32, which is exact), `intPredicate` on integers,
/// `boolPredicate` on booleans (i1, whose true is 1: unsigned).
mlir::Value buildComparison(mlir::OpBuilder &builder, mlir::Location loc,
                            mlir::ValueRange operands,
                            mlir::arith::CmpFPredicate floatPredicate,
                            mlir::arith::CmpIPredicate intPredicate,
                            mlir::arith::CmpIPredicate boolPredicate);

/// Folds a comparison of two constants (small ones, or splats) into a
/// constant of booleans of `resultType`, with the predicates of
/// buildComparison.
mlir::OpFoldResult foldComparison(mlir::Attribute lhs, mlir::Attribute rhs,
                                  mlir::Type resultType,
                                  mlir::arith::CmpFPredicate floatPredicate,
                                  mlir::arith::CmpIPredicate intPredicate,
                                  mlir::arith::CmpIPredicate boolPredicate);

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
