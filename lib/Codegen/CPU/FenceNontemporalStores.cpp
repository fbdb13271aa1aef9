//===- CpuFenceNontemporalStores.cpp - Order non-temporal stores ----------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Non-temporal stores bypass the caches through write-combining buffers and
// are not ordered with other stores; a fence after each loop that issues them
// makes them visible before anyone else reads the buffer.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUFENCENONTEMPORALSTORESPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// Whether `op` is a store with the non-temporal hint.
static bool isNontemporalStore(Operation *op) {
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return store.getNontemporal();
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return store.getNontemporal();
  return false;
}

struct JeetCpuFenceNontemporalStoresPass
    : public jeet::impl::JeetCpuFenceNontemporalStoresPassBase<
          JeetCpuFenceNontemporalStoresPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (llvm::any_of(loop.getBody()->getOperations(),
                       [](Operation &op) { return isNontemporalStore(&op); }))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      Operation *next = loop->getNextNode();
      if (auto fence = dyn_cast_or_null<LLVM::FenceOp>(next);
          fence && fence.getOrdering() == LLVM::AtomicOrdering::seq_cst)
        continue;
      OpBuilder b(loop->getContext());
      b.setInsertionPointAfter(loop);
      LLVM::FenceOp::create(b, loop.getLoc(), LLVM::AtomicOrdering::seq_cst);
    }
  }
};

} // namespace
