//===- ThreadLoops.cpp - A linalg op's loops shared by a block's threads --===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The general strategy of jeet-gpu-map-kernels, for any linalg op of a tile
// that no special strategy takes: the op's parallel dimensions are
// linearized and shared by the block's threads, thread `t` taking the
// iterations `t, t + blockDim, ...` (consecutive threads touch consecutive
// elements of the innermost dimension, so accesses coalesce; the loop bound
// is the check for partial tiles). Reduction dimensions stay sequential
// inside a thread, which keeps its outputs in registers across them and
// stores them once. An op with no parallel dimension runs on thread 0.
// Elementwise ops whose buffers allow it take a vector of kVectorBytes per
// iteration (VectorAccess.cpp).
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;

namespace jeet::gpu_codegen {

/// Replaces the linalg op `op` (on buffers) by loops: its parallel
/// dimensions are linearized and shared by the block's threads (thread t
/// takes t, t + blockDim, ...; consecutive threads get consecutive indices
/// of the innermost dimension), or run by thread 0 alone when it has none.
/// Each thread keeps its outputs in registers across the reduction loops and
/// stores them once. Returns the op that holds the loops.
FailureOr<Operation *> emitThreadLoops(RewriterBase &rewriter,
                                       linalg::LinalgOp op, Value &thread) {
  Location loc = op.getLoc();
  if (!op.hasPureBufferSemantics())
    return op->emitOpError("in a GPU kernel is not bufferized");
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel, reduction;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    (iterator == utils::IteratorType::parallel ? parallel : reduction)
        .push_back(i);
  for (OpOperand &init : op.getDpsInitsMutable())
    for (unsigned dim : reduction)
      if (op.getMatchingIndexingMap(&init).isFunctionOfDim(dim))
        return op->emitOpError("writes along a reduction dimension");

  rewriter.setInsertionPoint(op);
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  if (!thread) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(op->getBlock());
    thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  }

  // Elementwise ops whose buffers allow it take vectors of 16 bytes: each
  // thread its own, consecutive threads consecutive vectors of the innermost
  // dimension; the innermost size is a multiple of the vector, so the loop
  // bound keeps whole vectors in bounds.
  SmallVector<VectorAccess> accesses;
  std::optional<int64_t> vectorWidth = getVectorWidth(op, sizes, accesses);

  SmallVector<Value> ivs(iterators.size(), zero);
  Operation *root;
  if (parallel.empty()) {
    Value isFirst = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, thread, zero);
    auto ifOp = scf::IfOp::create(rewriter, loc, isFirst,
                                  /*withElseRegion=*/false);
    rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    root = ifOp;
  } else {
    SmallVector<Value> counts;
    for (unsigned dim : parallel)
      counts.push_back(sizes[dim]);
    Value width;
    if (vectorWidth) {
      width = arith::ConstantIndexOp::create(rewriter, loc, *vectorWidth);
      counts.back() =
          rewriter.createOrFold<arith::DivUIOp>(loc, counts.back(), width);
    }
    Value total = product(rewriter, loc, counts);
    Value threads = gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x);
    auto loop = scf::ForOp::create(rewriter, loc, thread, total, threads);
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    SmallVector<OpFoldResult> zeros(counts.size(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(counts.size(), rewriter.getIndexAttr(1));
    SmallVector<Value> indices =
        delinearize(rewriter, loc, loop.getInductionVar(), counts, zeros, ones);
    for (auto [dim, index] : llvm::zip_equal(parallel, indices))
      ivs[dim] = index;
    if (vectorWidth)
      ivs[parallel.back()] = rewriter.createOrFold<arith::MulIOp>(
          loc, ivs[parallel.back()], width);
    root = loop;
  }
  if (vectorWidth) {
    emitVectorPayload(rewriter, loc, op, ivs, *vectorWidth, accesses);
    rewriter.eraseOp(op);
    return root;
  }

  // The outputs at these parallel indices, read once.
  SmallVector<SmallVector<Value>> outIndices;
  SmallVector<Value> outs;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    outIndices.push_back(
        applyIndexingMap(rewriter, loc, op.getMatchingIndexingMap(&init), ivs));
    Type elementType = getElementTypeOrSelf(init.get().getType());
    if (reduction.empty() && !op.payloadUsesValueFromOperand(&init))
      outs.push_back(ub::PoisonOp::create(rewriter, loc, elementType));
    else
      outs.push_back(
          memref::LoadOp::create(rewriter, loc, init.get(), outIndices.back()));
  }
  SmallVector<Value> results;
  if (reduction.empty()) {
    results = emitPayload(rewriter, loc, op, ivs, outs);
  } else {
    SmallVector<Value> lbs(reduction.size(), zero),
        steps(reduction.size(), one);
    SmallVector<Value> ubs;
    for (unsigned dim : reduction)
      ubs.push_back(sizes[dim]);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, outs,
        [&](OpBuilder &b, Location bodyLoc, ValueRange loopIvs,
            ValueRange accumulators) -> scf::ValueVector {
          for (auto [dim, iv] : llvm::zip_equal(reduction, loopIvs))
            ivs[dim] = iv;
          return emitPayload(b, bodyLoc, op, ivs, accumulators);
        });
    results = llvm::to_vector(nest.results);
  }
  for (auto [init, result, indices] :
       llvm::zip_equal(op.getDpsInitsMutable(), results, outIndices))
    memref::StoreOp::create(rewriter, loc, result, init.get(), indices);
  rewriter.eraseOp(op);
  return root;
}

} // namespace jeet::gpu_codegen
