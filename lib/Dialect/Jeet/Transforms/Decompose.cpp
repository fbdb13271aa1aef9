//===- Decompose.cpp - Composite ops into primitive jeet ops --------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetOps.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jeet {
#define GEN_PASS_DEF_JEETDECOMPOSEPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

namespace {

/// Replaces a composite op by the ops of its decomposition (defined by the
/// op, see CompositeOpInterface).
struct DecomposeComposite : OpInterfaceRewritePattern<CompositeOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(CompositeOpInterface op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Value> result = op.decompose(rewriter, op->getOperands());
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "no decomposition");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

struct JeetDecomposePass
    : jeet::impl::JeetDecomposePassBase<JeetDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeComposite>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
