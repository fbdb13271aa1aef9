//===- ReshapedResultsInPlace.cpp - Reshaped results in the out-params ----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A graph result returned through a reshape of the buffer that computes it
// is copied into its out-parameter after buffer-results-to-out-params; it
// is computed in the out-parameter instead, through the inverse reshape.
// See the pass description.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

namespace jeet {
#define GEN_PASS_DEF_JEETRESHAPEDRESULTSINPLACEPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// Whether every use of `buffer` and of the views made of it (other than
/// `copy` and `reshape`) lies before `copy` in its block and neither
/// returns the buffer nor copies it into an argument (a second result).
bool usedBeforeOnly(Value buffer, memref::CopyOp copy, Operation *reshape) {
  Block *block = copy->getBlock();
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user == copy || user == reshape)
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock || !inBlock->isBeforeInBlock(copy) ||
          isa<func::ReturnOp>(user))
        return false;
      if (auto other = dyn_cast<memref::CopyOp>(user))
        if (isa<BlockArgument>(other.getTarget()))
          return false;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == value)
          llvm::append_range(worklist, user->getResults());
    }
  }
  return true;
}

/// Computes the result that `copy` copies out of a reshape of its buffer
/// in the copy's out-parameter, where that is safe; returns whether it did.
bool computeInPlace(func::FuncOp func, memref::CopyOp copy) {
  Block &entry = func.getBody().front();
  auto out = dyn_cast<BlockArgument>(copy.getTarget());
  if (!out || out.getOwner() != &entry || !out.hasOneUse() ||
      copy->getBlock() != &entry)
    return false;
  auto outType = cast<MemRefType>(out.getType());
  Operation *reshape = copy.getSource().getDefiningOp();
  if (!isa_and_present<memref::ExpandShapeOp, memref::CollapseShapeOp>(
          reshape) ||
      !reshape->hasOneUse() || !outType.getLayout().isIdentity())
    return false;
  Value buffer = reshape->getOperand(0);
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != &entry ||
      !alloc.getDynamicSizes().empty() || !alloc.getSymbolOperands().empty())
    return false;
  MemRefType bufferType = alloc.getType();
  if (!bufferType.getLayout().isIdentity() ||
      bufferType.getMemorySpace() != outType.getMemorySpace() ||
      !usedBeforeOnly(buffer, copy, reshape))
    return false;

  // The out-parameter seen with the buffer's shape: the inverse reshape.
  OpBuilder builder(alloc);
  Location loc = alloc.getLoc();
  Value view;
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
    view = memref::CollapseShapeOp::create(builder, loc, out,
                                           expand.getReassociationIndices());
  else
    view = memref::ExpandShapeOp::create(
        builder, loc, bufferType.getShape(), out,
        cast<memref::CollapseShapeOp>(reshape).getReassociationIndices());
  if (view.getType() != bufferType) {
    view.getDefiningOp()->erase();
    return false;
  }
  copy.erase();
  reshape->erase();
  alloc.replaceAllUsesWith(view);
  alloc.erase();
  return true;
}

struct JeetReshapedResultsInPlacePass
    : jeet::impl::JeetReshapedResultsInPlacePassBase<
          JeetReshapedResultsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<memref::CopyOp> copies;
    for (Operation &op : func.getBody().front())
      if (auto copy = dyn_cast<memref::CopyOp>(op))
        copies.push_back(copy);
    for (memref::CopyOp copy : copies)
      computeInPlace(func, copy);
  }
};

} // namespace
