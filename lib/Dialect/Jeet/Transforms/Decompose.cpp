//===- Decompose.cpp - Composite ops into primitive jeet ops --------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetOps.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace jeet {
#define GEN_PASS_DEF_JEETDECOMPOSEPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

namespace {

/// A rank-0 constant of `elementType`, which broadcasts against anything.
Value scalar(PatternRewriter &rewriter, Location loc, Type elementType,
             double value) {
  auto type = RankedTensorType::get({}, elementType);
  return ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(type, rewriter.getFloatAttr(elementType, value)));
}

/// softmax(x) = exp(x - max(x)) / sum(exp(x - max(x))) along the axis.
struct DecomposeSoftmax : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    SmallVector<int64_t> axes = {op.getAxisAttr().getInt()};
    Value max = ReduceMaxOp::create(rewriter, loc, x, axes, true);
    Value shifted = SubOp::create(rewriter, loc, x, max);
    Value exp = ExpOp::create(rewriter, loc, shifted);
    Value sum = ReduceSumOp::create(rewriter, loc, exp, axes, true);
    rewriter.replaceOpWithNewOp<DivOp>(op, exp, sum);
    return success();
  }
};

/// gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
struct DecomposeGelu : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type elementType = op.getType().getElementType();
    auto c = [&](double v) { return scalar(rewriter, loc, elementType, v); };
    Value x3 =
        MulOp::create(rewriter, loc, MulOp::create(rewriter, loc, x, x), x);
    Value inner = AddOp::create(rewriter, loc, x,
                                MulOp::create(rewriter, loc, c(0.044715), x3));
    Value scaled =
        MulOp::create(rewriter, loc, c(std::sqrt(2.0 / M_PI)), inner);
    Value t = AddOp::create(rewriter, loc, c(1.0),
                            TanhOp::create(rewriter, loc, scaled));
    Value halfX = MulOp::create(rewriter, loc, c(0.5), x);
    rewriter.replaceOpWithNewOp<MulOp>(op, halfX, t);
    return success();
  }
};

/// Is `value` exactly representable in the float type `type`?
bool isExactIn(Type type, int64_t value) {
  APFloat f(cast<FloatType>(type).getFloatSemantics());
  APFloat::opStatus status =
      f.convertFromAPInt(APInt(64, value, /*isSigned=*/true), /*IsSigned=*/true,
                         APFloat::rmNearestTiesToEven);
  return status == APFloat::opOK;
}

/// reduce_mean(x) = reduce_sum(x) / N, N the number of reduced elements.
/// Where N is not exact in the element type (f16 above 2048 is rounded and
/// above 65504 is infinite), the division is done in f32.
struct DecomposeReduceMean : OpRewritePattern<ReduceMeanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceMeanOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = op.getInput().getType();
    SmallVector<int64_t> reduced;
    for (int64_t axis : op.getAxes())
      reduced.push_back(inputType.getDimSize(axis));
    std::optional<int64_t> count = getNumElements(reduced);
    if (!count)
      return rewriter.notifyMatchFailure(op, "element count overflows");
    Type elementType = inputType.getElementType();
    Value sum = ReduceSumOp::create(rewriter, loc, op.getInput(), op.getAxes(),
                                    op.getKeepdims());
    if (isExactIn(elementType, *count)) {
      Value n = scalar(rewriter, loc, elementType, static_cast<double>(*count));
      rewriter.replaceOpWithNewOp<DivOp>(op, sum, n);
      return success();
    }
    auto sumType = cast<RankedTensorType>(sum.getType());
    Type f32 = rewriter.getF32Type();
    Value wide = sum;
    if (elementType != f32)
      wide = CastOp::create(rewriter, loc, sumType.clone(f32), sum);
    Value mean =
        DivOp::create(rewriter, loc, wide,
                      scalar(rewriter, loc, f32, static_cast<double>(*count)));
    if (elementType != f32)
      mean = CastOp::create(rewriter, loc, sumType, mean);
    rewriter.replaceOp(op, mean);
    return success();
  }
};

struct JeetDecomposePass
    : jeet::impl::JeetDecomposePassBase<JeetDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeSoftmax, DecomposeGelu, DecomposeReduceMean>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
