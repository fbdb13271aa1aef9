//===- UnshareFills.cpp - A fill per kernel that accumulates into it ------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// CSE merges the equal `linalg.fill`s of equal `tensor.empty`s that the
// lowering makes, one per matmul or reduction: the kernels' accumulators.
// Each kernel writes over its accumulator, so one-shot bufferization gives
// every writer but the last a copy of the shared fill. A kernel then reads
// a copied buffer of zeros where the CPU's matmul pass folds a fill right
// before it into its tiles, and the shared fill's buffer lives until its
// last writer. See the pass description.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace jeet {
#define GEN_PASS_DEF_JEETUNSHAREFILLSPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// Whether `use` is an operand that its op writes over: the init of a
/// destination-style op (a kernel's accumulator, an insert's destination).
bool writesOver(OpOperand &use) {
  auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
  return dps && dps.isDpsInit(&use);
}

/// Gives each op that writes over the result of `fill` (a fill of an empty
/// tensor) a fill of its own, created with its empty tensor right before
/// that op (or its ancestor in the block of `fill`). Uses that only read
/// keep the original, which is erased when none are left.
void unshare(linalg::FillOp fill, tensor::EmptyOp empty) {
  Value filled = fill.getResult(0);
  SmallVector<OpOperand *> writes;
  for (OpOperand &use : filled.getUses())
    if (writesOver(use))
      writes.push_back(&use);
  // One writer alone keeps the original: bufferization writes it in place
  // when nothing reads the fill after it.
  if (writes.empty() || llvm::hasSingleElement(filled.getUses()))
    return;
  Block *block = fill->getBlock();
  for (OpOperand *use : writes) {
    Operation *before = block->findAncestorOpInBlock(*use->getOwner());
    OpBuilder builder(before);
    IRMapping mapping;
    mapping.map(empty.getResult(), builder.clone(*empty)->getResult(0));
    use->set(builder.clone(*fill, mapping)->getResult(0));
  }
  if (fill->use_empty()) {
    fill->erase();
    if (empty->use_empty())
      empty->erase();
  }
}

struct JeetUnshareFillsPass
    : jeet::impl::JeetUnshareFillsPassBase<JeetUnshareFillsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::FillOp, tensor::EmptyOp>> fills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (!fill.hasPureTensorSemantics() || fill->getNumResults() != 1)
        return;
      auto empty =
          fill.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>();
      // The clones must see what the original sees: the fill's value and
      // the empty tensor's sizes (in the fill's block) dominate the
      // original, and so each writer's ancestor there.
      if (empty && empty->getBlock() == fill->getBlock())
        fills.push_back({fill, empty});
    });
    for (auto [fill, empty] : fills)
      unshare(fill, empty);
  }
};

} // namespace
