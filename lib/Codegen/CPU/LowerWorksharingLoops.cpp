//===- LowerWorksharingLoops.cpp - A thread's share of a loop, inline -----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// An OpenMP worksharing loop becomes calls into the OpenMP runtime:
// `__kmpc_for_static_init` once per thread for a static schedule,
// `__kmpc_dispatch_init` and then `__kmpc_dispatch_next` per chunk for a
// dynamic one. The libomp that LLVM's packages ship (and that Jeet's wheel
// carries) is built with its debug code in, and these calls format their
// trace messages into fresh strings whether tracing is on or not: about a
// microsecond a call, measured at 0.8 us per chunk handed out, ~4% of the
// example MLP's samples in `vfprintf` and the allocator. This pass gives each
// thread its share itself: the thread number and team size from
// `omp_get_thread_num` / `omp_get_num_threads` (a thread-local read), a
// contiguous block of the iterations for a static schedule, and for a
// dynamic one the next iteration from a counter in the function's frame,
// zeroed before the region, taken with an atomic add. The loop's barrier
// stays as `omp.barrier` (a loop without `nowait`). Loops with other
// clauses, in nested regions, or whose body allocates on the heap (see
// lowerableNest) are left to libomp.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPULOWERWORKSHARINGLOOPSPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kThreadNum = "omp_get_thread_num";
constexpr llvm::StringLiteral kNumThreads = "omp_get_num_threads";

/// The loop nest of `loop` when this pass can hand out its iterations: a
/// worksharing loop directly in an `omp.parallel` region (every thread of
/// the team reaches it) that is not nested in another, without clauses other
/// than a static or dynamic schedule without chunk and `nowait`, around an
/// exclusive loop nest with index bounds and a one-block body that allocates
/// nothing on the heap.
static omp::LoopNestOp lowerableNest(omp::WsloopOp loop) {
  auto region = dyn_cast_or_null<omp::ParallelOp>(loop->getParentOp());
  // The counters of dynamic loops live in the enclosing function's frame:
  // a region outside any function has none, and one inside another region
  // (which the pipeline does not make) would share them between the outer
  // team's threads.
  if (!region || region->getParentOfType<omp::ParallelOp>() ||
      !region->getParentOfType<FunctionOpInterface>() ||
      loop->getNumOperands() != 0 || loop.getOrderedAttr() || loop.getOrder() ||
      loop.getScheduleMod() || loop.getScheduleSimd())
    return nullptr;
  std::optional<omp::ClauseScheduleKind> kind = loop.getScheduleKind();
  if (kind && *kind != omp::ClauseScheduleKind::Static &&
      *kind != omp::ClauseScheduleKind::Dynamic)
    return nullptr;
  auto nest = dyn_cast_or_null<omp::LoopNestOp>(loop.getWrappedLoop());
  if (!nest || nest->getParentOp() != loop || nest.getLoopInclusive() ||
      !nest.getRegion().hasOneBlock())
    return nullptr;
  if (!llvm::all_of(nest->getOperandTypes(),
                    [](Type type) { return type.isIndex(); }))
    return nullptr;
  // jeet-cpu-check-allocations ends an iteration whose allocation fails at
  // the terminator of the region it is in: for a loop handed out here that
  // is the end of the `omp.parallel` region, past the barrier that the
  // other threads would wait at for ever. Such loops stay with libomp.
  bool allocates = nest.getRegion()
                       .walk([](Operation *op) {
                         return isa<memref::AllocOp, memref::ReallocOp>(op)
                                    ? WalkResult::interrupt()
                                    : WalkResult::advance();
                       })
                       .wasInterrupted();
  if (allocates)
    return nullptr;
  return nest;
}

struct JeetCpuLowerWorksharingLoopsPass
    : public jeet::impl::JeetCpuLowerWorksharingLoopsPassBase<
          JeetCpuLowerWorksharingLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<omp::WsloopOp, omp::LoopNestOp>> loops;
    module.walk([&](omp::WsloopOp loop) {
      if (omp::LoopNestOp nest = lowerableNest(loop))
        loops.push_back({loop, nest});
    });
    if (loops.empty())
      return;
    declare(module, kThreadNum);
    declare(module, kNumThreads);
    // The thread number and team size, read once per region.
    llvm::DenseMap<Operation *, std::pair<Value, Value>> teams;
    for (auto [loop, nest] : loops) {
      auto region = cast<omp::ParallelOp>(loop->getParentOp());
      auto [it, inserted] = teams.try_emplace(region);
      if (inserted)
        it->second = readTeam(region);
      lower(loop, nest, it->second.first, it->second.second);
    }
  }

  static void declare(ModuleOp module, StringRef name) {
    if (module.lookupSymbol(name))
      return;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto type = b.getFunctionType({}, {b.getI32Type()});
    auto function = func::FuncOp::create(b, module.getLoc(), name, type);
    function.setPrivate();
  }

  /// `omp_get_thread_num()` and `omp_get_num_threads()` as indices at the
  /// start of `region`.
  static std::pair<Value, Value> readTeam(omp::ParallelOp region) {
    Block &entry = region.getRegion().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = region.getLoc();
    auto read = [&](StringRef name) -> Value {
      Value value =
          func::CallOp::create(b, loc, name, b.getI32Type(), ValueRange{})
              .getResult(0);
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
    };
    Value thread = read(kThreadNum);
    Value threads = read(kNumThreads);
    return {thread, threads};
  }

  /// Replaces `loop` (around `nest`) by the iterations of the calling
  /// thread.
  void lower(omp::WsloopOp loop, omp::LoopNestOp nest, Value thread,
             Value threads) {
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    // Trip counts per dimension (scf.parallel's steps are positive) and
    // their product, the iterations numbered in row-major order.
    SmallVector<Value> trips;
    Value total = one;
    for (auto [lb, ub, step] :
         llvm::zip(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                   nest.getLoopSteps())) {
      Value span = arith::SubIOp::create(b, loc, ub, lb);
      span = arith::MaxSIOp::create(b, loc, span, zero);
      Value trip = arith::CeilDivSIOp::create(b, loc, span, step);
      trips.push_back(trip);
      total = arith::MulIOp::create(b, loc, total, trip);
    }
    auto emitBody = [&](OpBuilder &inner, Value linear) {
      // Row-major: the last dimension varies fastest.
      SmallVector<Value> ivs(trips.size());
      Value rest = linear;
      for (int64_t dim = trips.size() - 1; dim >= 0; --dim) {
        Value index = rest;
        if (dim > 0) {
          index = arith::RemUIOp::create(inner, loc, rest, trips[dim]);
          rest = arith::DivUIOp::create(inner, loc, rest, trips[dim]);
        }
        Value offset =
            arith::MulIOp::create(inner, loc, index, nest.getLoopSteps()[dim]);
        ivs[dim] = arith::AddIOp::create(
            inner, loc, nest.getLoopLowerBounds()[dim], offset);
      }
      Block &body = nest.getRegion().front();
      Operation *yield = body.getTerminator();
      assert(isa<omp::YieldOp>(yield) && yield->getNumOperands() == 0);
      yield->erase();
      Block *into = inner.getInsertionBlock();
      into->getOperations().splice(inner.getInsertionPoint(),
                                   body.getOperations());
      for (auto [arg, iv] : llvm::zip(body.getArguments(), ivs))
        arg.replaceAllUsesWith(iv);
    };

    if (loop.getScheduleKind() == omp::ClauseScheduleKind::Dynamic) {
      Value counter = zeroedCounter(loop);
      auto whileOp =
          scf::WhileOp::create(b, loc, b.getIndexType(), ValueRange{});
      {
        Block *before = b.createBlock(&whileOp.getBefore());
        OpBuilder inner = OpBuilder::atBlockBegin(before);
        Value step = arith::ConstantIntOp::create(inner, loc, 1, 64);
        Value taken =
            memref::AtomicRMWOp::create(inner, loc, arith::AtomicRMWKind::addi,
                                        step, counter, ValueRange{});
        Value index =
            arith::IndexCastOp::create(inner, loc, inner.getIndexType(), taken);
        Value more = arith::CmpIOp::create(
            inner, loc, arith::CmpIPredicate::slt, index, total);
        scf::ConditionOp::create(inner, loc, more, ValueRange{index});
      }
      {
        Block *after =
            b.createBlock(&whileOp.getAfter(), {}, {b.getIndexType()}, {loc});
        OpBuilder inner = OpBuilder::atBlockBegin(after);
        auto yield = scf::YieldOp::create(inner, loc);
        inner.setInsertionPoint(yield);
        emitBody(inner, after->getArgument(0));
      }
      b.setInsertionPointAfter(whileOp);
    } else {
      // Static: contiguous blocks of ceil(total / threads) iterations, as
      // libomp's static schedule without chunk gives them.
      Value chunk = arith::CeilDivSIOp::create(b, loc, total, threads);
      Value begin = arith::MulIOp::create(b, loc, thread, chunk);
      begin = arith::MinSIOp::create(b, loc, begin, total);
      Value end = arith::AddIOp::create(b, loc, begin, chunk);
      end = arith::MinSIOp::create(b, loc, end, total);
      auto forOp = scf::ForOp::create(b, loc, begin, end, one);
      OpBuilder inner = OpBuilder::atBlockBegin(forOp.getBody());
      inner.setInsertionPoint(forOp.getBody()->getTerminator());
      emitBody(inner, forOp.getInductionVar());
      b.setInsertionPointAfter(forOp);
    }
    if (!loop.getNowait())
      omp::BarrierOp::create(b, loc);
    loop->erase();
  }

  /// A counter of taken iterations for the dynamic `loop`: an i64 slot in
  /// the frame of the enclosing function, zeroed just before the region (so
  /// a region run again, in a loop, starts from zero).
  static Value zeroedCounter(omp::WsloopOp loop) {
    Operation *region = loop->getParentOp();
    auto function = region->getParentOfType<FunctionOpInterface>();
    Location loc = loop.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&function.getFunctionBody().front());
    auto type = MemRefType::get({}, b.getI64Type());
    Value counter = memref::AllocaOp::create(b, loc, type);
    b.setInsertionPoint(region);
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
    memref::StoreOp::create(b, loc, zero, counter, ValueRange{});
    return counter;
  }
};

} // namespace
