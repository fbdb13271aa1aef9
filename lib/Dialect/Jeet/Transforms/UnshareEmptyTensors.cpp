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
      if (static_cast<size_t>(llvm::range_size(empty->getUses())) > groupSize)
        shared.push_back(empty);
    });
    for (tensor::EmptyOp empty : shared)
      unshare(empty, groupSize);
  }

  /// Gives each run of `groupSize` consecutive users of `empty` after the
  /// first a clone of it, created before the first user of the run (or that
  /// user's ancestor in the block of `empty`, where the operands of `empty`,
  /// the dynamic sizes, dominate it).
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
    for (size_t first = groupSize; first < uses.size(); first += groupSize) {
      OpBuilder builder(uses[first].first);
      Value clone = builder.clone(*empty)->getResult(0);
      size_t end = std::min(first + groupSize, uses.size());
      for (size_t i = first; i < end; ++i)
        uses[i].second->set(clone);
    }
  }
};

} // namespace
