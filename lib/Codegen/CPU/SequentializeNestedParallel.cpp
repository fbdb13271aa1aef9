//===- CpuSequentializeNestedParallel.cpp - One parallel loop per nest ----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

#include <limits>

namespace jeet {
#define GEN_PASS_DEF_JEETCPUSEQUENTIALIZENESTEDPARALLELPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// Work that is not known (bounds that are not constants) or overflows.
constexpr int64_t kUnknown = std::numeric_limits<int64_t>::max();

static int64_t loopsWork(Operation *op);

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

/// The iterations of `loop` (and, `withBody`, of the loops it holds), when
/// every bound is a constant; INT64_MAX otherwise (or on overflow). A loop of
/// one iteration (a kernel whose elements fit one chunk) has no parallelism.
static int64_t staticIterations(Operation *loop, bool withBody) {
  int64_t trips = 1;
  auto multiply = [&](int64_t factor) {
    if (factor < 0 || (factor && trips > kUnknown / factor))
      trips = kUnknown;
    else
      trips *= factor;
  };
  auto tripCount = [](Value lb, Value ub, Value step) -> int64_t {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return -1;
    return *u > *l ? (*u - *l + *s - 1) / *s : 0;
  };
  if (auto parallel = dyn_cast<scf::ParallelOp>(loop)) {
    for (auto [lb, ub, step] :
         llvm::zip(parallel.getLowerBound(), parallel.getUpperBound(),
                   parallel.getStep()))
      multiply(tripCount(lb, ub, step));
  } else if (auto forOp = dyn_cast<scf::ForOp>(loop)) {
    multiply(tripCount(forOp.getLowerBound(), forOp.getUpperBound(),
                       forOp.getStep()));
  }
  if (trips == kUnknown || !withBody)
    return trips;
  int64_t body = loopsWork(loop);
  if (body == kUnknown)
    return kUnknown;
  multiply(body);
  return trips;
}

/// One iteration of work plus that of each loop that `op`'s regions hold,
/// directly or inside other operations (the branches of an scf.if: a
/// matmul's row blocks and its remainder rows in one parallel loop).
static int64_t loopsWork(Operation *op) {
  int64_t work = 1;
  for (Region &region : op->getRegions())
    for (Operation &inner : region.getOps()) {
      int64_t innerWork = 0;
      if (isa<scf::ParallelOp, scf::ForOp>(inner))
        innerWork = staticIterations(&inner, /*withBody=*/true);
      else if (inner.getNumRegions() > 0)
        innerWork = loopsWork(&inner);
      if (innerWork == kUnknown || work > kUnknown - innerWork)
        return kUnknown;
      work += innerWork;
    }
  return work;
}

struct JeetCpuSequentializeNestedParallelPass
    : public jeet::impl::JeetCpuSequentializeNestedParallelPassBase<
          JeetCpuSequentializeNestedParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    // Post-order: inner loops first, so each clone carries converted loops.
    SmallVector<scf::ParallelOp> nested;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop.getInitVals().empty())
        return;
      if (loop->getParentOfType<scf::ParallelOp>() ||
          staticIterations(loop, /*withBody=*/false) <= 1 ||
          staticIterations(loop, /*withBody=*/true) < minParallelIterations)
        nested.push_back(loop);
    });
    for (scf::ParallelOp loop : nested)
      sequentialize(loop);
  }
};

} // namespace
