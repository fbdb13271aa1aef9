//===- GroupSharedReads.cpp - An alias per group of readers ---------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// One-shot bufferization's conflict analysis of an operand visits the uses of
// every tensor that aliases the operand's value. A tensor that N kernels read
// made that N squared (a graph whose N outputs all read one input). Each group
// of readers now reads a `tensor.cast` of its own; see the pass description.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include <algorithm>
#include <cmath>

namespace jeet {
#define GEN_PASS_DEF_JEETGROUPSHAREDREADSPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// The operands that only read `value` (inputs of linalg ops) in the block
/// that defines it, in the block's order. Writes (destinations) and reads in
/// other blocks keep the value itself.
SmallVector<OpOperand *> collectReads(Value value, Block *block) {
  SmallVector<OpOperand *> reads;
  for (OpOperand &use : value.getUses()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (linalgOp && linalgOp->getBlock() == block && linalgOp.isDpsInput(&use))
      reads.push_back(&use);
  }
  llvm::sort(reads, [](OpOperand *a, OpOperand *b) {
    if (a->getOwner() == b->getOwner())
      return a->getOperandNumber() < b->getOperandNumber();
    return a->getOwner()->isBeforeInBlock(b->getOwner());
  });
  return reads;
}

struct JeetGroupSharedReadsPass
    : jeet::impl::JeetGroupSharedReadsPassBase<JeetGroupSharedReadsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Value> tensors;
    auto consider = [&](Value value) {
      if (isa<RankedTensorType>(value.getType()) &&
          value.hasNUsesOrMore(maxReads + 1))
        tensors.push_back(value);
    };
    getOperation().walk([&](Operation *op) {
      for (Value result : op->getResults())
        consider(result);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument argument : block.getArguments())
            consider(argument);
    });
    for (Value value : tensors)
      groupReads(value);
  }

  /// Readers per cast: the larger of `maxReads` and sqrt(N), which balances
  /// the readers' analysis (N times the group) against the casts' (N per
  /// cast, N over the group of them).
  int64_t groupSize(size_t reads) const {
    auto root = static_cast<int64_t>(std::ceil(std::sqrt(double(reads))));
    return std::max<int64_t>({maxReads, root, 1});
  }

  void groupReads(Value value) {
    Block *block;
    OpBuilder builder(&getContext());
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      block = argument.getOwner();
      builder.setInsertionPointToStart(block);
    } else {
      Operation *definition = value.getDefiningOp();
      block = definition->getBlock();
      builder.setInsertionPointAfter(definition);
    }
    SmallVector<OpOperand *> reads = collectReads(value, block);
    if (static_cast<int64_t>(reads.size()) <= maxReads)
      return;
    int64_t size = groupSize(reads.size());
    for (size_t first = 0; first < reads.size(); first += size) {
      // Created without folding: a cast to the same type would fold away.
      Value alias = tensor::CastOp::create(builder, value.getLoc(),
                                           value.getType(), value);
      size_t end = std::min(reads.size(), first + size);
      for (size_t i = first; i < end; ++i)
        reads[i]->set(alias);
    }
  }
};

} // namespace
