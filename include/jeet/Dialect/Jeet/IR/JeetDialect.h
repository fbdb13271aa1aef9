//===- JeetDialect.h - The jeet dialect -------------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_IR_JEETDIALECT_H
#define JEET_DIALECT_JEET_IR_JEETDIALECT_H

#include "jeet/Limits.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"

#include "jeet/Dialect/Jeet/IR/JeetOpsDialect.h.inc"

namespace jeet {

/// Whether a shaped type is within Jeet's size limits (jeet/Limits.h): rank
/// at most kMaxTensorRank, static, and at most kMaxTensorElements elements
/// counting the non-zero dimensions.
inline bool isWithinSizeLimits(mlir::ShapedType type) {
  return type.hasRank() && type.hasStaticShape() &&
         checkedElementCount(type.getShape()) >= 0;
}

/// Checks the types of `op`'s operands, results and region arguments against
/// Jeet's size limits, with an error naming the offending type.
mlir::LogicalResult verifyWithinSizeLimits(mlir::Operation *op);

/// An op trait: every tensor the op takes, returns or holds is within Jeet's
/// size limits.
template <typename ConcreteType>
class WithinSizeLimits
    : public mlir::OpTrait::TraitBase<ConcreteType, WithinSizeLimits> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyWithinSizeLimits(op);
  }
};

/// An op trait: the op's scalar function is one cheap instruction or about
/// that (an add, a compare, a select, a conversion), so that a loop nest
/// computes short chains of such ops again rather than reading their result
/// (see kMaxRecomputedOps).
template <typename ConcreteType>
class CheapScalar : public mlir::OpTrait::TraitBase<ConcreteType, CheapScalar> {
};

/// Patterns that fold ops on tensors with no elements, which run as part of
/// the dialect's canonicalization and before the lowering to linalg: an op
/// whose results have no elements becomes an empty jeet.constant; a matmul
/// whose contracted dimension is 0 becomes a constant 0; a reduction over an
/// axis of extent 0 becomes a constant of its identity (sum 0, max -inf or
/// INT_MIN, mean NaN or, for i32, 0 / 0 = -1 as jeet.div defines it).
void populateEmptyTensorFoldPatterns(mlir::RewritePatternSet &patterns);

} // namespace jeet

#endif // JEET_DIALECT_JEET_IR_JEETDIALECT_H
