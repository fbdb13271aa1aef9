//===- Fuse.cpp - Group jeet ops into jeet.fusion regions -----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetOps.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace jeet {
#define GEN_PASS_DEF_JEETFUSEPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

namespace {

/// Wraps `op` alone in a jeet.fusion region.
void wrapInFusion(Operation *op) {
  OpBuilder builder(op);
  auto fusion = FusionOp::create(builder, op->getLoc(), op->getResultTypes(),
                                 op->getOperands());
  Block &body = fusion.getBody().front();
  builder.setInsertionPointToStart(&body);
  IRMapping mapping;
  mapping.map(op->getOperands(), body.getArguments());
  Operation *clone = builder.clone(*op, mapping);
  YieldOp::create(builder, op->getLoc(), clone->getResults());
  op->replaceAllUsesWith(fusion.getResults());
  op->erase();
}

struct JeetFusePass : jeet::impl::JeetFusePassBase<JeetFusePass> {
  using Base::Base;
  void runOnOperation() override {
    if (maxOps < 1) {
      getOperation().emitError("jeet-fuse: max-ops must be at least 1, got ")
          << maxOps;
      return signalPassFailure();
    }
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<JeetDialect>(op->getDialect()) &&
          !isa<ConstantOp, FusionOp, YieldOp>(op) &&
          !op->getParentOfType<FusionOp>())
        ops.push_back(op);
    });
    for (Operation *op : ops)
      wrapInFusion(op);
  }
};

} // namespace
