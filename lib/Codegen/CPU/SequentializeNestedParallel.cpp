//===- CpuSequentializeNestedParallel.cpp - One parallel loop per nest ----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUSEQUENTIALIZENESTEDPARALLELPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// Replaces `loop` by a nest of scf.for loops running its body.
static void sequentialize(scf::ParallelOp loop) {
  OpBuilder b(loop);
  Block *body = loop.getBody();
  scf::buildLoopNest(b, loop.getLoc(), loop.getLowerBound(),
                     loop.getUpperBound(), loop.getStep(),
                     [&](OpBuilder &nested, Location, ValueRange ivs) {
                       IRMapping mapping;
                       mapping.map(loop.getInductionVars(), ivs);
                       for (Operation &op : body->without_terminator())
                         nested.clone(op, mapping);
                     });
  loop->erase();
}

struct JeetCpuSequentializeNestedParallelPass
    : public jeet::impl::JeetCpuSequentializeNestedParallelPassBase<
          JeetCpuSequentializeNestedParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    // Post-order: inner loops first, so each clone carries converted loops.
    SmallVector<scf::ParallelOp> nested;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getInitVals().empty() &&
          loop->getParentOfType<scf::ParallelOp>())
        nested.push_back(loop);
    });
    for (scf::ParallelOp loop : nested)
      sequentialize(loop);
  }
};

} // namespace
