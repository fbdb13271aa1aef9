//===- CpuSequentializeNestedParallel.cpp - One parallel loop per nest ----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <algorithm>
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

/// Whether `op` reads or writes memory (a load or a store, scalar or
/// vector; an op that does not say what it does is taken not to).
static bool accessesMemory(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && (effects.hasEffect<MemoryEffects::Read>() ||
                     effects.hasEffect<MemoryEffects::Write>());
}

/// The loads and stores of `op`'s regions outside the loops they hold (in
/// the branches of an scf.if too) and the loops they hold (see loopsWork).
static void countWork(Operation *op, int64_t &accesses, int64_t &loops) {
  for (Region &region : op->getRegions())
    for (Operation &inner : region.getOps()) {
      if (isa<scf::ParallelOp, scf::ForOp>(inner)) {
        int64_t innerWork = staticIterations(&inner, /*withBody=*/true);
        loops = innerWork == kUnknown || loops > kUnknown - innerWork
                    ? kUnknown
                    : loops + innerWork;
        continue;
      }
      if (accessesMemory(&inner))
        ++accesses;
      if (inner.getNumRegions() > 0)
        countWork(&inner, accesses, loops);
    }
}

/// The work of one iteration of `op`: its loads and stores outside inner
/// loops (at least 1) plus the work of each loop that its regions hold,
/// directly or inside other operations (the branches of an scf.if: a
/// matmul's row blocks and its remainder rows in one parallel loop). A body
/// of straight-line vector code counts its accesses: the depthwise
/// convolution of a mobile network on a 6 x 6 image is one iteration per
/// image and channel (192 for 2 x 96), each a few dozen vector loads, and
/// counted as 1 an iteration it ran on one thread while the other waited.
static int64_t loopsWork(Operation *op) {
  int64_t accesses = 0, loops = 0;
  countWork(op, accesses, loops);
  int64_t own = std::max<int64_t>(1, accesses);
  return loops == kUnknown || loops > kUnknown - own ? kUnknown : own + loops;
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
