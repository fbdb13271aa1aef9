//===- MergeParallelRegions.cpp - One OpenMP region for adjacent kernels --===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Each kernel's parallel loop becomes an OpenMP region of its own: the
// runtime wakes its threads at the region's start and joins them at its end.
// Under a passive wait policy (the threads sleep between regions) each start
// costs a wake-up of every worker, tens of microseconds on a loaded machine,
// as much as a small layer's work. Kernels that follow each other with
// nothing between them that has an effect (constants, views) run in one
// region instead: their worksharing loops one after the other, each ending
// with the barrier that keeps the next from reading what the previous one
// has not written yet. The last loop of a region needs no barrier of its
// own (the region's end joins the threads); dropping it is an option, off
// by default (LeakSanitizer's exit-time scan of a process that ran such a
// loop through a dlopen'ed libomp crashes on a thread-local block, and the
// barrier costs little next to the region's start). A loop whose
// iterations are few and coarse (the tiles of a matmul) hands them out one
// at a time: a thread that wakes late then takes fewer of them instead of
// holding the others up at the next barrier.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUMERGEPARALLELREGIONSPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// A region this pass may merge: no clauses (threads, binding, private or
/// reduction variables), one block of effect-free ops, worksharing loops,
/// and the terminator. Anything else (code that every thread would run)
/// keeps its region.
static bool isMergeable(omp::ParallelOp region) {
  if (region->getNumOperands() != 0 || region.getProcBindKind() ||
      !region.getRegion().hasOneBlock())
    return false;
  return llvm::all_of(region.getRegion().front(), [](Operation &op) {
    return isa<omp::WsloopOp, omp::TerminatorOp>(op) || isMemoryEffectFree(&op);
  });
}

/// The loops of `region` in order.
static SmallVector<omp::WsloopOp> loopsOf(omp::ParallelOp region) {
  return llvm::to_vector(region.getRegion().front().getOps<omp::WsloopOp>());
}

/// Moves the body of `second` to the end of `first`'s and erases `second`.
/// The ops between the two (effect-free) move before `first`.
static void mergeInto(omp::ParallelOp first, omp::ParallelOp second) {
  for (Operation *op = first->getNextNode(); op != second;) {
    Operation *next = op->getNextNode();
    op->moveBefore(first);
    op = next;
  }
  Block &into = first.getRegion().front();
  Block &from = second.getRegion().front();
  Operation *terminator = into.getTerminator();
  // The first region's last loop ends with a barrier (a worksharing loop
  // without nowait): the second region's loops read what it wrote.
  from.getTerminator()->erase();
  into.getOperations().splice(terminator->getIterator(), from.getOperations());
  second->erase();
}

struct JeetCpuMergeParallelRegionsPass
    : public jeet::impl::JeetCpuMergeParallelRegionsPassBase<
          JeetCpuMergeParallelRegionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<omp::ParallelOp> regions;
    getOperation().walk([&](omp::ParallelOp region) {
      if (!region->getParentOfType<omp::ParallelOp>())
        regions.push_back(region);
    });
    // Merge each region into the previous one of its block when only
    // effect-free ops lie between them.
    SmallVector<omp::ParallelOp> kept;
    for (omp::ParallelOp region : regions) {
      omp::ParallelOp previous = kept.empty() ? nullptr : kept.back();
      if (merge && previous && previous->getBlock() == region->getBlock() &&
          previous->isBeforeInBlock(region) && isMergeable(previous) &&
          isMergeable(region) && onlyEffectFreeBetween(previous, region) &&
          llvm::all_of(loopsOf(previous),
                       [](omp::WsloopOp loop) { return !loop.getNowait(); })) {
        mergeInto(previous, region);
        continue;
      }
      kept.push_back(region);
    }
    MLIRContext *context = &getContext();
    for (omp::ParallelOp region : kept) {
      if (!isMergeable(region))
        continue;
      SmallVector<omp::WsloopOp> loops = loopsOf(region);
      for (omp::WsloopOp loop : loops)
        if (isCoarse(loop) && !loop.getScheduleKind())
          loop.setScheduleKindAttr(omp::ClauseScheduleKindAttr::get(
              context, omp::ClauseScheduleKind::Dynamic));
      // The region's end joins the threads: its last loop's barrier would
      // only make them wait twice.
      if (nowaitLastLoop && !loops.empty() &&
          loops.back()->getNextNode() ==
              region.getRegion().front().getTerminator())
        loops.back().setNowait(true);
    }
  }

  static bool onlyEffectFreeBetween(Operation *first, Operation *second) {
    for (Operation *op = first->getNextNode(); op != second;
         op = op->getNextNode())
      if (!isMemoryEffectFree(op))
        return false;
    return true;
  }

  /// Whether the iterations of `loop` are few (a constant trip count of at
  /// most `dynamicScheduleIterations`): handed out one at a time, they cost
  /// one atomic increment each and balance threads that start late.
  bool isCoarse(omp::WsloopOp loop) {
    auto nest = dyn_cast<omp::LoopNestOp>(loop.getWrappedLoop());
    if (!nest || nest.getLoopLowerBounds().size() != 1)
      return false;
    std::optional<int64_t> lb =
        getConstantIntValue(nest.getLoopLowerBounds()[0]);
    std::optional<int64_t> ub =
        getConstantIntValue(nest.getLoopUpperBounds()[0]);
    std::optional<int64_t> step = getConstantIntValue(nest.getLoopSteps()[0]);
    if (!lb || !ub || !step || *step <= 0)
      return false;
    return (*ub - *lb + *step - 1) / *step <= dynamicScheduleIterations;
  }
};

} // namespace
