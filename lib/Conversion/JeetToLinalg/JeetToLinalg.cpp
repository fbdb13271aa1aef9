//===- JeetToLinalg.cpp - Lower jeet ops to linalg on tensors -------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Conversion/Passes.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "mlir/Transforms/DialectConversion.h"

namespace jeet {
#define GEN_PASS_DEF_JEETLOWERTOLINALGPASS
#include "jeet/Conversion/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

namespace {

struct JeetLowerToLinalgPass
    : jeet::impl::JeetLowerToLinalgPassBase<JeetLowerToLinalgPass> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalDialect<JeetDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
