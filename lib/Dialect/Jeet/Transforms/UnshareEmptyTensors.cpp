//===- UnshareEmptyTensors.cpp - One tensor.empty per user ----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/Transforms/Passes.h"

namespace jeet {
#define GEN_PASS_DEF_JEETUNSHAREEMPTYTENSORSPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

struct JeetUnshareEmptyTensorsPass
    : jeet::impl::JeetUnshareEmptyTensorsPassBase<JeetUnshareEmptyTensorsPass> {
  void runOnOperation() override {
    llvm::SmallVector<tensor::EmptyOp> shared;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        shared.push_back(empty);
    });
    for (tensor::EmptyOp empty : shared) {
      Block *block = empty->getBlock();
      // The uses are collected first: each one is rewritten in the loop.
      llvm::SmallVector<OpOperand *> uses = llvm::map_to_vector(
          empty->getUses(), [](OpOperand &use) { return &use; });
      // Each use gets a clone just before the user's ancestor in the
      // original's block, where the original's operands (the dynamic sizes)
      // dominate it, as the lowering placed it before CSE merged it.
      for (OpOperand *use : uses) {
        Operation *anchor = block->findAncestorOpInBlock(*use->getOwner());
        OpBuilder builder(anchor);
        use->set(builder.clone(*empty)->getResult(0));
      }
      empty->erase();
    }
  }
};

} // namespace
