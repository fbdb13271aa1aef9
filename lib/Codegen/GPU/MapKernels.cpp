//===- MapKernels.cpp - One gpu.launch per kernel, device buffers ---------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The pass `jeet-gpu-map-kernels` (on buffers, after bufferization) turns
// each kernel that jeet-gpu-form-kernels formed (the foralls that share one
// kKernelAttr value) into one `gpu.launch`: a block per iteration of the
// forall, and the linalg ops of the tile lowered by the strategies of this
// folder, chosen here per op:
//
//   a matmul with its fill (and epilogue)  TiledMatmul.cpp (blocks of
//                                          kMatmulThreads threads)
//   a row reduction                        WarpReduction.cpp (blocks of
//                                          whole warps)
//   any other linalg op                    ThreadLoops.cpp (+ VectorAccess.cpp)
//   buffers allocated in the tile          WorkgroupMemory.cpp
//
// A kernel's forall that may access what an earlier one of it accesses on
// another block (LaunchHazards.cpp) starts a launch of its own.
//
// with a `gpu.barrier` between consecutive ops of a tile, and between the
// tiles of a kernel's foralls (they may share a buffer). Compute left on the
// host becomes a kernel of one block. On the host, buffers become
// `gpu.alloc`/`gpu.dealloc` (the runtime's caching allocator), contiguous
// copies `gpu.memcpy` (the globals a kernel reads move into it later, in
// jeet-gpu-sink-globals, after the CSE that would undo it here).
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "jeet/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace jeet {
#define GEN_PASS_DEF_JEETGPUMAPKERNELSPASS
#include "jeet/Codegen/GPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;
using namespace jeet::gpu_codegen;

static_assert(JeetGpuMapKernelsPassOptions().blockSize == kDefaultBlockSize,
              "the block size that jeet-gpu-form-kernels sizes tiles for");

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// Lowers the linalg ops of `body` (a kernel's body, or the part of it that
/// one tile runs) to loops shared by the block's threads, separated by
/// barriers.
/// `premapped` are the ops that already hold phases (tiled matmuls); with
/// `warpReductions` (blocks of whole warps), row reductions take a warp per
/// row.
static LogicalResult
mapBlockToThreads(RewriterBase &rewriter, Block &body,
                  const llvm::SmallPtrSetImpl<Operation *> &premapped,
                  bool warpReductions) {
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
  // Each linalg op is one phase of the kernel.
  Value thread;
  SmallVector<Operation *> phases;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (premapped.contains(&op)) {
      phases.push_back(&op);
      continue;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      continue;
    if (warpReductions) {
      if (Operation *loops = emitWarpReduction(rewriter, linalgOp, thread)) {
        phases.push_back(loops);
        continue;
      }
    }
    FailureOr<Operation *> loops = emitThreadLoops(rewriter, linalgOp, thread);
    if (failed(loops))
      return failure();
    phases.push_back(*loops);
  }
  // A barrier between consecutive phases: the next one may read what any
  // thread of the block wrote.
  for (Operation *phase : ArrayRef(phases).drop_back()) {
    rewriter.setInsertionPointAfter(phase);
    gpu::BarrierOp::create(rewriter, phase->getLoc());
  }
  return success();
}

/// One `gpu.launch` for the foralls of one kernel (bufferized, in program
/// order): a block per iteration of the forall with the most iterations;
/// the others run on the blocks of their iterations.
static LogicalResult convertKernelToLaunch(RewriterBase &rewriter,
                                           ArrayRef<scf::ForallOp> foralls,
                                           int64_t blockSize) {
  for (scf::ForallOp forall : foralls)
    if (forall.getNumResults() != 0)
      return forall.emitOpError(
          "must be bufferized before it becomes a kernel");
  scf::ForallOp last = foralls.back();
  // Frees between the foralls of one kernel move after it.
  Operation *first = foralls.front();
  for (Operation *op = first; op != last;) {
    Operation *next = op->getNextNode();
    if (isa<memref::DeallocOp>(op))
      rewriter.moveOpAfter(op, last);
    op = next;
  }

  Location loc = last.getLoc();
  rewriter.setInsertionPoint(last);
  Value grid;
  for (scf::ForallOp forall : foralls) {
    Value count =
        product(rewriter, loc,
                tripCounts(rewriter, loc, forall.getMixedLowerBound(),
                           forall.getMixedUpperBound(), forall.getMixedStep()));
    grid =
        grid ? rewriter.createOrFold<arith::MaxUIOp>(loc, grid, count) : count;
  }
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value threads = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
  auto launch =
      gpu::LaunchOp::create(rewriter, loc, grid, one, one, threads, one, one);
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(rewriter, loc);

  SmallVector<Block *> tiles;
  for (scf::ForallOp forall : foralls) {
    rewriter.setInsertionPoint(body.getTerminator());
    SmallVector<OpFoldResult> lbs = forall.getMixedLowerBound();
    SmallVector<OpFoldResult> ubs = forall.getMixedUpperBound();
    SmallVector<OpFoldResult> steps = forall.getMixedStep();
    // The counts are recomputed inside (sinking keeps them out of the
    // kernel's arguments).
    SmallVector<Value> counts = tripCounts(rewriter, loc, lbs, ubs, steps);
    Value blockId = launch.getBlockIds().x;
    Block *tile = &body;
    if (foralls.size() > 1) {
      Value inRange =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                blockId, product(rewriter, loc, counts));
      auto ifOp = scf::IfOp::create(rewriter, loc, inRange,
                                    /*withElseRegion=*/false);
      tile = ifOp.thenBlock();
      rewriter.setInsertionPoint(tile->getTerminator());
    }
    SmallVector<Value> ivs =
        delinearize(rewriter, loc, blockId, counts, lbs, steps);
    IRMapping mapping;
    mapping.map(forall.getInductionVars(), ivs);
    for (Operation &op : forall.getBody()->without_terminator())
      rewriter.clone(op, mapping);
    tiles.push_back(tile);
    // The next forall's tile may write what this one reads (a buffer of the
    // group that both fill, one tile each: the f32 accumulator of two f16
    // reductions): its threads wait until this tile is done.
    if (forall != foralls.back()) {
      rewriter.setInsertionPoint(body.getTerminator());
      gpu::BarrierOp::create(rewriter, loc);
    }
  }
  for (scf::ForallOp forall : foralls)
    rewriter.eraseOp(forall);

  // Matmuls with a block of the threads that their register tiles need.
  llvm::SmallPtrSet<Operation *, 4> premapped;
  if (blockSize == kMatmulThreads) {
    for (Block *tile : tiles) {
      SmallVector<TiledMatmul> plans;
      for (Operation &op : *tile)
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
          if (std::optional<TiledMatmul> plan = planTiledMatmul(linalgOp))
            plans.push_back(*plan);
      for (TiledMatmul &plan : plans)
        premapped.insert(emitTiledMatmul(rewriter, launch, plan));
    }
  }

  if (failed(promoteAllocsToWorkgroup(rewriter, launch)))
    return failure();
  for (Block *tile : tiles)
    if (failed(
            mapBlockToThreads(rewriter, *tile, premapped,
                              /*warpReductions=*/blockSize % kWarpSize == 0)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Host memory
//===----------------------------------------------------------------------===//

/// Host buffers become device buffers of the runtime's allocator.
static LogicalResult convertHostMemory(RewriterBase &rewriter,
                                       func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp>(op))
      ops.push_back(op);
    return WalkResult::advance();
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::AllocOp>(
          alloc, alloc.getType(), /*asyncToken=*/Type(), ValueRange(),
          alloc.getDynamicSizes(), alloc.getSymbolOperands());
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
          dealloc, /*asyncToken=*/Type(), ValueRange(), dealloc.getMemref());
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::MemcpyOp>(copy, /*asyncToken=*/Type(),
                                                 ValueRange(), copy.getTarget(),
                                                 copy.getSource());
    }
  }
  return success();
}

/// Whether `copy` can be a device-to-device memcpy: same contiguous type.
static bool isContiguousCopy(memref::CopyOp copy) {
  auto source = cast<MemRefType>(copy.getSource().getType());
  auto target = cast<MemRefType>(copy.getTarget().getType());
  return source.getShape() == target.getShape() &&
         source.getLayout().isIdentity() && target.getLayout().isIdentity();
}

/// Compute left on the host (a linalg op outside any kernel forall, a
/// strided copy) becomes a forall of one iteration: a kernel of one block.
static void wrapStraysInKernels(RewriterBase &rewriter, func::FuncOp func) {
  MLIRContext *context = rewriter.getContext();
  SmallVector<Operation *> strays;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ForallOp, gpu::LaunchOp>(op))
      return WalkResult::skip();
    auto copy = dyn_cast<memref::CopyOp>(op);
    if (isa<linalg::LinalgOp>(op) || (copy && !isContiguousCopy(copy)))
      strays.push_back(op);
    return WalkResult::advance();
  });
  for (Operation *op : strays) {
    rewriter.setInsertionPoint(op);
    OpFoldResult zero = rewriter.getIndexAttr(0);
    OpFoldResult one = rewriter.getIndexAttr(1);
    auto forall = scf::ForallOp::create(
        rewriter, op->getLoc(), ArrayRef<OpFoldResult>{zero},
        ArrayRef<OpFoldResult>{one}, ArrayRef<OpFoldResult>{one}, ValueRange(),
        blockMapping(context, 1));
    rewriter.moveOpBefore(op, forall.getBody()->getTerminator());
  }
}

/// The top-level foralls of `func`, grouped by kernel (the same kKernelAttr)
/// in program order: each group becomes one launch.
static SmallVector<SmallVector<scf::ForallOp>>
groupForallsByKernel(func::FuncOp func) {
  SmallVector<scf::ForallOp> kernels;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto forall = dyn_cast<scf::ForallOp>(op)) {
      kernels.push_back(forall);
      return WalkResult::skip();
    }
    return isa<gpu::LaunchOp>(op) ? WalkResult::skip() : WalkResult::advance();
  });
  SmallVector<SmallVector<scf::ForallOp>> launches;
  llvm::DenseMap<Attribute, unsigned> byKernel;
  for (scf::ForallOp forall : kernels) {
    Attribute id = forall->getAttr(kKernelAttr);
    if (!id) {
      launches.push_back({forall});
      continue;
    }
    auto [it, inserted] = byKernel.try_emplace(id, launches.size());
    if (inserted)
      launches.push_back({});
    launches[it->second].push_back(forall);
  }
  return launches;
}

namespace {
struct JeetGpuMapKernelsPass
    : jeet::impl::JeetGpuMapKernelsPassBase<JeetGpuMapKernelsPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registry.insert<vector::VectorDialect>();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (blockSize < 1 || blockSize > kMaxBlockSize) {
      func.emitError("jeet-gpu-map-kernels: block-size must be between 1 and ")
          << kMaxBlockSize << ", got " << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    if (func.isExternal())
      return;
    IRRewriter rewriter(&getContext());
    wrapStraysInKernels(rewriter, func);
    SmallVector<SmallVector<scf::ForallOp>> launches =
        groupForallsByKernel(func);
    splitLaunchesAtHazards(launches);
    for (ArrayRef<scf::ForallOp> foralls : launches)
      if (failed(convertKernelToLaunch(rewriter, foralls, blockSize)))
        return signalPassFailure();

    if (failed(convertHostMemory(rewriter, func)))
      return signalPassFailure();
  }
};
} // namespace
