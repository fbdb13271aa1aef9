//===- UnshareEmptyTensors.cpp - A tensor.empty per group of users --------===//
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
  using Base::Base;

  void runOnOperation() override {
    if (maxUses < 1) {
      getOperation().emitError()
          << "jeet-unshare-empty-tensors: max-uses must be at least 1, got "
          << static_cast<int64_t>(maxUses);
      return signalPassFailure();
    }
    size_t groupSize = static_cast<size_t>(maxUses);
    llvm::SmallVector<tensor::EmptyOp> shared;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->use_empty() && !empty->hasOneUse())
        shared.push_back(empty);
    });
    for (tensor::EmptyOp empty : shared)
      unshare(empty, groupSize);
  }

  /// Gives each chain of users of `empty` after the first a clone of it,
  /// created before the first user of the chain (or that user's ancestor in
  /// the block of `empty`, where the operands of `empty`, the dynamic sizes,
  /// dominate it). A chain is a run of at most `groupSize` consecutive users
  /// in the block's order, each reading a result of the one before (an
  /// unfused chain of elementwise kernels, which one-shot bufferization can
  /// then write over each other).
  static void unshare(tensor::EmptyOp empty, size_t groupSize) {
    Block *block = empty->getBlock();
    // (the user's ancestor in `block`, the use), in the order of the block;
    // sorted before any insertion, so the block's order is computed once.
    llvm::SmallVector<std::pair<Operation *, OpOperand *>> uses;
    for (OpOperand &use : empty->getUses())
      uses.push_back({block->findAncestorOpInBlock(*use.getOwner()), &use});
    llvm::stable_sort(uses, [](const auto &a, const auto &b) {
      return a.first != b.first && a.first->isBeforeInBlock(b.first);
    });
    Value current = empty.getResult();
    size_t chainStart = 0;
    for (size_t i = 1; i < uses.size(); ++i) {
      Operation *user = uses[i].first, *before = uses[i - 1].first;
      bool continues =
          i - chainStart < groupSize &&
          (user == before || llvm::any_of(user->getOperands(), [&](Value v) {
             return v.getDefiningOp() == before;
           }));
      if (!continues) {
        OpBuilder builder(user);
        current = builder.clone(*empty)->getResult(0);
        chainStart = i;
      }
      uses[i].second->set(current);
    }
  }
};

} // namespace
