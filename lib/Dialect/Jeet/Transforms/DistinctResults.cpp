//===- DistinctResults.cpp - One tensor per graph result ------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace jeet {
#define GEN_PASS_DEF_JEETDISTINCTRESULTSPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

struct JeetDistinctResultsPass
    : jeet::impl::JeetDistinctResultsPassBase<JeetDistinctResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      OpBuilder builder(ret);
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type || seen.insert(value).second)
          continue;
        Value empty = tensor::EmptyOp::create(
            builder, ret.getLoc(), type.getShape(), type.getElementType());
        operand.set(linalg::CopyOp::create(builder, ret.getLoc(), value, empty)
                        .getResult(0));
      }
    });
  }
};

} // namespace
