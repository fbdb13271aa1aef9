//===- WarpReduction.cpp - A warp per row of a row reduction --------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A row reduction (one reduced dimension, innermost in every input that it
// indexes, a combiner with a neutral element on 32-bit values) takes a warp
// per row rather than a thread: warp `w` takes rows `w, w + warps, ...`,
// lane `l` folds the row's elements `l, l + kWarpSize, ...` (consecutive
// lanes read consecutive elements, so the loads coalesce), a butterfly of
// `gpu.shuffle xor` combines the lanes, and lane 0 folds the result into the
// output. jeet-gpu-form-kernels gives such reductions kRowsPerTile rows per
// tile, a warp each.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace jeet::gpu_codegen {

/// Whether `op` reduces one dimension that is the innermost one of every
/// input that it indexes (a reduction of rows, which a warp can share).
bool isRowReduction(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() != 1)
    return false;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  unsigned dim = reductions.front();
  AffineExpr expr = getAffineDimExpr(dim, op.getContext());
  bool readsRows = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<ShapedType>(input->get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(dim))
      continue;
    if (map.getNumResults() == 0 || map.getResults().back() != expr)
      return false;
    readsRows = true;
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.getMatchingIndexingMap(&init).isFunctionOfDim(dim))
      return false;
  return readsRows;
}

/// The op of the payload of `op` (one output) that folds one reduction step
/// into the accumulator, `combiner(out, x)` where `out` is used nowhere
/// else, when it has a neutral element; null otherwise.
static Operation *getCombiner(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return nullptr;
  Block *body = op.getBlock();
  BlockArgument out = op.getMatchingBlockArgument(&op.getDpsInitsMutable()[0]);
  if (!out.hasOneUse())
    return nullptr;
  Operation *combiner = *out.getUsers().begin();
  if (combiner->getBlock() != body || combiner->getNumOperands() != 2 ||
      combiner->getNumResults() != 1 ||
      combiner->getOperand(0) == combiner->getOperand(1) ||
      body->getTerminator()->getOperand(0) != combiner->getResult(0) ||
      !combiner->getResult(0).hasOneUse() ||
      !arith::getNeutralElement(combiner))
    return nullptr;
  return combiner;
}

/// Replaces `op` by a reduction of each row by one warp when it reduces one
/// dimension that is the innermost one of every input that it indexes, with
/// a combiner (see getCombiner) on 32-bit values: warp w of the block takes
/// rows w, w + warps, ...; lane l folds the row's elements l, l + 32, ...
/// (consecutive lanes read consecutive elements), a butterfly of
/// `gpu.shuffle xor` combines the lanes, and lane 0 folds the result into
/// the output. Returns the op that holds the loops, or null (nothing done)
/// when `op` is not such a reduction.
Operation *emitWarpReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                             Value &thread) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 1)
    return nullptr;
  Operation *combiner = getCombiner(op);
  if (!combiner)
    return nullptr;
  // One `shfl.sync` moves one 32-bit register: values of i32 or f32.
  Type type = combiner->getResult(0).getType();
  if (!type.isInteger(32) && !type.isF32())
    return nullptr;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel;
  unsigned reductionDim = 0;
  for (auto [i, iterator] : llvm::enumerate(iterators)) {
    if (iterator == utils::IteratorType::parallel)
      parallel.push_back(i);
    else
      reductionDim = i;
  }
  if (!isRowReduction(op))
    return nullptr;
  OpOperand &init = op.getDpsInitsMutable()[0];
  AffineMap initMap = op.getMatchingIndexingMap(&init);

  Location loc = op.getLoc();
  Block *body = op.getBlock();
  BlockArgument outArg = op.getMatchingBlockArgument(&init);
  Value stepValue = combiner->getOperand(0) == outArg ? combiner->getOperand(1)
                                                      : combiner->getOperand(0);
  auto combine = [&](Value accumulator, Value step) -> Value {
    IRMapping mapping;
    mapping.map(outArg, accumulator);
    mapping.map(stepValue, step);
    return rewriter.clone(*combiner, mapping)->getResult(0);
  };

  rewriter.setInsertionPoint(op);
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value warpSize = arith::ConstantIndexOp::create(rewriter, loc, kWarpSize);
  if (!thread) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(op->getBlock());
    thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  }
  Value lane = arith::RemUIOp::create(rewriter, loc, thread, warpSize);
  Value warp = arith::DivUIOp::create(rewriter, loc, thread, warpSize);
  Value warps = arith::DivUIOp::create(
      rewriter, loc, gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x),
      warpSize);
  SmallVector<Value> counts;
  for (unsigned dim : parallel)
    counts.push_back(sizes[dim]);
  Value total = product(rewriter, loc, counts);
  auto rowLoop = scf::ForOp::create(rewriter, loc, warp, total, warps);
  rewriter.setInsertionPoint(rowLoop.getBody()->getTerminator());
  SmallVector<Value> ivs(iterators.size(), zero);
  if (!parallel.empty()) {
    SmallVector<OpFoldResult> zeros(counts.size(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(counts.size(), rewriter.getIndexAttr(1));
    SmallVector<Value> indices = delinearize(
        rewriter, loc, rowLoop.getInductionVar(), counts, zeros, ones);
    for (auto [dim, index] : llvm::zip_equal(parallel, indices))
      ivs[dim] = index;
  }

  // Each lane folds its elements of the row.
  Value neutral = arith::ConstantOp::create(
      rewriter, loc, type, *arith::getNeutralElement(combiner));
  auto laneLoop = scf::ForOp::create(rewriter, loc, lane, sizes[reductionDim],
                                     warpSize, ValueRange{neutral});
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(laneLoop.getBody());
    ivs[reductionDim] = laneLoop.getInductionVar();
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      if (isa<MemRefType>(value.getType()))
        value = memref::LoadOp::create(
            rewriter, loc, value,
            applyIndexingMap(rewriter, loc, op.getMatchingIndexingMap(input),
                             ivs));
      mapping.map(op.getMatchingBlockArgument(input), value);
    }
    for (Operation &payload : body->without_terminator()) {
      if (&payload == combiner)
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(payload)) {
        mapping.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      rewriter.clone(payload, mapping);
    }
    Value step = mapping.lookupOrDefault(stepValue);
    scf::YieldOp::create(rewriter, loc,
                         combine(laneLoop.getRegionIterArgs().front(), step));
  }
  ivs[reductionDim] = zero;

  // A butterfly across the warp: every lane ends with the row's value.
  Value partial = laneLoop.getResult(0);
  for (int64_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
    auto shuffle = gpu::ShuffleOp::create(rewriter, loc, partial, offset,
                                          kWarpSize, gpu::ShuffleMode::XOR);
    partial = combine(partial, shuffle.getShuffleResult());
  }
  Value isFirst = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        lane, zero);
  auto ifOp = scf::IfOp::create(rewriter, loc, isFirst,
                                /*withElseRegion=*/false);
  rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  SmallVector<Value> outIndices = applyIndexingMap(rewriter, loc, initMap, ivs);
  Value out = memref::LoadOp::create(rewriter, loc, init.get(), outIndices);
  memref::StoreOp::create(rewriter, loc, combine(out, partial), init.get(),
                          outIndices);
  rewriter.eraseOp(op);
  return rowLoop;
}

} // namespace jeet::gpu_codegen
