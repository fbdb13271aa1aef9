//===- EmptyTensors.cpp - Ops on tensors with no elements -----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A tensor with a 0-sized dimension has no elements, so every op on it has a
// value known at compile time: an empty result, or, where the op reduces the
// empty dimension away, a tensor filled with the identity of the reduction
// (a sum of nothing is 0, a maximum of nothing -inf or INT_MIN, a mean of
// nothing 0 / 0). These patterns replace such ops by jeet.constant, so that no
// kernel is ever generated for an empty iteration space (tiling and
// vectorisation are not defined for it).
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/Dialect/Jeet/IR/JeetInterfaces.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace jeet;

/// Whether `type` is a static tensor with no elements.
static bool hasNoElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isWithinSizeLimits(tensor) &&
         checkedElementCount(tensor.getShape()) == 0;
}

/// `value` (an element of some type) converted to `elementType`.
static Attribute convertElement(Attribute value, Type elementType) {
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    APFloat v = cast<FloatAttr>(value).getValue();
    bool losesInfo = false;
    v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &losesInfo);
    return FloatAttr::get(floatType, v);
  }
  APInt v = cast<IntegerAttr>(value).getValue();
  return IntegerAttr::get(elementType,
                          v.sextOrTrunc(elementType.getIntOrFloatBitWidth()));
}

/// A jeet.constant of `type` with every element `element`.
static Value splat(PatternRewriter &rewriter, Location loc,
                   RankedTensorType type, Attribute element) {
  return ConstantOp::create(rewriter, loc,
                            DenseElementsAttr::get(type, element));
}

namespace {

/// An op whose every result has no elements becomes empty constants.
struct FoldEmptyResults : RewritePattern {
  FoldEmptyResults(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<JeetDialect>(op->getDialect()) ||
        isa<ConstantOp, YieldOp>(op) || op->getNumResults() == 0 ||
        !llvm::all_of(op->getResultTypes(), hasNoElements))
      return failure();
    SmallVector<Value> constants;
    for (Type type : op->getResultTypes())
      constants.push_back(ConstantOp::create(
          rewriter, op->getLoc(),
          DenseElementsAttr::get(cast<RankedTensorType>(type),
                                 ArrayRef<Attribute>())));
    rewriter.replaceOp(op, constants);
    return success();
  }
};

/// A matmul that contracts a dimension of size 0 (with a result that has
/// elements) is a tensor of zeros.
struct FoldEmptyContraction : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = cast<RankedTensorType>(op.getLhs().getType());
    auto type = cast<RankedTensorType>(op.getType());
    if (lhs.getRank() < 1 || lhs.getShape().back() != 0 ||
        hasNoElements(type) || !isWithinSizeLimits(type))
      return failure();
    rewriter.replaceOp(op, splat(rewriter, op.getLoc(), type,
                                 rewriter.getZeroAttr(type.getElementType())));
    return success();
  }
};

/// A reduction over an axis of extent 0 (with a result that has elements) is
/// a tensor of the combiner's identity; a mean divides it by 0 (NaN).
struct FoldEmptyReduction : OpInterfaceRewritePattern<ReductionOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(ReductionOpInterface op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType input = op.getInput().getType();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    bool emptyAxis = llvm::any_of(op.getAxes(), [&](int64_t axis) {
      return axis >= 0 && axis < input.getRank() && input.getShape()[axis] == 0;
    });
    if (!emptyAxis || hasNoElements(type) || !isWithinSizeLimits(type))
      return failure();
    Type elementType = type.getElementType();
    Attribute value;
    if (op.isMean() && isa<FloatType>(elementType)) {
      value = FloatAttr::get(
          elementType,
          APFloat::getNaN(cast<FloatType>(elementType).getFloatSemantics()));
    } else {
      Type accumulator = op.getAccumulatorType(elementType);
      value = convertElement(op.getIdentity(accumulator), elementType);
    }
    rewriter.replaceOp(op, splat(rewriter, op.getLoc(), type, value));
    return success();
  }
};

} // namespace

void jeet::populateEmptyTensorFoldPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldEmptyResults, FoldEmptyContraction, FoldEmptyReduction>(
      patterns.getContext());
}

void JeetDialect::getCanonicalizationPatterns(
    RewritePatternSet &patterns) const {
  populateEmptyTensorFoldPatterns(patterns);
}
