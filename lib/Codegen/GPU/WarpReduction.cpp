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
// tile, a warp each. Where the row's buffers allow vector accesses (as for
// elementwise ops, VectorAccess.cpp), a lane reads 4 floats (or 8 halves) of
// each at a time instead of one, `l` taking the vectors `l, l + kWarpSize,
// ...`, and folds them in order.
//
// A tile of fewer rows than the block has warps (the long rows of softmax
// and layernorm, one, two or four per tile of 8 warps) shares each row among
// warps/rows warps instead, so that no warp idles: thread t of a row's
// threads folds the elements t, t + threads, ..., the butterfly combines
// each warp's lanes, lane 0 of each warp leaves its value in workgroup
// memory (a slot per warp), and after a barrier the row's first thread folds
// its warps' values into the output.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
  SmallVector<Value> counts;
  for (unsigned dim : parallel)
    counts.push_back(sizes[dim]);
  Value neutral = arith::ConstantOp::create(
      rewriter, loc, type, *arith::getNeutralElement(combiner));

  // The payload of `op` for the row `row` (a linear index of its parallel
  // dimensions), folding the elements first, first + stride, ... of the
  // row into one value.
  SmallVector<Value> ivs(iterators.size(), zero);
  auto setRow = [&](Value row) {
    if (parallel.empty())
      return;
    SmallVector<OpFoldResult> zeros(counts.size(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(counts.size(), rewriter.getIndexAttr(1));
    SmallVector<Value> indices =
        delinearize(rewriter, loc, row, counts, zeros, ones);
    for (auto [dim, index] : llvm::zip_equal(parallel, indices))
      ivs[dim] = index;
  };
  // Where every input allows it (see getVectorWidthAlong), a thread reads
  // `width` consecutive elements of the row with one access per input and
  // folds them in order; not where the payload reads its indices (an iota
  // fused in, which jeet-fuse leaves to a kernel of its own).
  SmallVector<OpOperand *> inputs = op.getDpsInputOperands();
  SmallVector<VectorAccess> accesses;
  int64_t width = 1;
  if (body->getOps<linalg::IndexOp>().empty())
    width = getVectorWidthAlong(op, inputs, reductionDim, sizes[reductionDim],
                                accesses)
                .value_or(1);
  auto foldRow = [&](Value first, Value stride) -> Value {
    Value start = first, step = stride;
    if (width > 1) {
      Value vector = arith::ConstantIndexOp::create(rewriter, loc, width);
      start = arith::MulIOp::create(rewriter, loc, first, vector);
      step = arith::MulIOp::create(rewriter, loc, stride, vector);
    }
    auto loop = scf::ForOp::create(rewriter, loc, start, sizes[reductionDim],
                                   step, ValueRange{neutral});
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    Value column = loop.getInductionVar();
    ivs[reductionDim] = column;
    // What each input holds for the `width` elements: a vector, or one value.
    SmallVector<Value> values;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      Value value = input->get();
      auto type = dyn_cast<MemRefType>(value.getType());
      if (type) {
        SmallVector<Value> indices = applyIndexingMap(
            rewriter, loc, op.getMatchingIndexingMap(input), ivs);
        if (width > 1 && accesses[i] == VectorAccess::Vector)
          value = vector::LoadOp::create(
              rewriter, loc, VectorType::get({width}, type.getElementType()),
              value, indices, /*nontemporal=*/false,
              getVectorAlignment(type.getElementType(), width));
        else
          value = memref::LoadOp::create(rewriter, loc, value, indices);
      }
      values.push_back(value);
    }
    Value accumulator = loop.getRegionIterArgs().front();
    for (int64_t element = 0; element < width; ++element) {
      IRMapping mapping;
      for (auto [input, value] : llvm::zip_equal(inputs, values)) {
        Value elementValue = value;
        if (isa<VectorType>(value.getType()))
          elementValue =
              vector::ExtractOp::create(rewriter, loc, value, element);
        mapping.map(op.getMatchingBlockArgument(input), elementValue);
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
      accumulator = combine(accumulator, mapping.lookupOrDefault(stepValue));
    }
    scf::YieldOp::create(rewriter, loc, accumulator);
    ivs[reductionDim] = zero;
    return loop.getResult(0);
  };
  // A butterfly across the warp: every lane ends with the warp's value.
  auto reduceWarp = [&](Value partial) {
    for (int64_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
      auto shuffle = gpu::ShuffleOp::create(rewriter, loc, partial, offset,
                                            kWarpSize, gpu::ShuffleMode::XOR);
      partial = combine(partial, shuffle.getShuffleResult());
    }
    return partial;
  };
  // Folds `value` into the output of the current row.
  auto foldIntoOutput = [&](Value value) {
    SmallVector<Value> outIndices =
        applyIndexingMap(rewriter, loc, initMap, ivs);
    Value out = memref::LoadOp::create(rewriter, loc, init.get(), outIndices);
    memref::StoreOp::create(rewriter, loc, combine(out, value), init.get(),
                            outIndices);
  };

  // Fewer rows than warps, both known: warps/rows warps a row.
  int64_t rows = 1; // 0 when not known
  for (Value count : counts)
    rows *= getConstantIntValue(count).value_or(0);
  auto launch = op->getParentOfType<gpu::LaunchOp>();
  std::optional<int64_t> blockSize =
      launch ? getConstantIntValue(launch.getBlockSizeX()) : std::nullopt;
  int64_t blockWarps = blockSize ? *blockSize / kWarpSize : 0;
  if (rows > 0 && blockWarps >= 2 * rows) {
    int64_t warpsPerRow = blockWarps / rows;
    Value rowThreads =
        arith::ConstantIndexOp::create(rewriter, loc, warpsPerRow * kWarpSize);
    Value row = arith::DivUIOp::create(rewriter, loc, thread, rowThreads);
    Value first = arith::RemUIOp::create(rewriter, loc, thread, rowThreads);
    Value active = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, row,
        arith::ConstantIndexOp::create(rewriter, loc, rows));
    // The row's indices, used by its threads only (the others' are past the
    // rows).
    setRow(row);
    // Each thread of a row folds its elements; the other warps' threads
    // (blockWarps not a multiple of the rows) the neutral element.
    auto fold = scf::IfOp::create(rewriter, loc, TypeRange{type}, active,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(fold.thenBlock());
      scf::YieldOp::create(rewriter, loc, foldRow(first, rowThreads));
      rewriter.setInsertionPointToStart(fold.elseBlock());
      scf::YieldOp::create(rewriter, loc, neutral);
    }
    Value partial = reduceWarp(fold.getResult(0));
    // A slot per warp of the block in workgroup memory.
    auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Value slots = launch.addWorkgroupAttribution(
        MemRefType::get({blockWarps}, type, MemRefLayoutAttrInterface(),
                        workgroup),
        loc);
    Value isFirstLane = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, lane, zero);
    auto store = scf::IfOp::create(rewriter, loc, isFirstLane,
                                   /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(store.thenBlock()->getTerminator());
      memref::StoreOp::create(rewriter, loc, partial, slots, warp);
    }
    gpu::BarrierOp::create(rewriter, loc);
    // The row's first thread folds its warps' values into the output.
    Value isFirst = arith::AndIOp::create(
        rewriter, loc, active,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, first,
                              zero));
    auto last = scf::IfOp::create(rewriter, loc, isFirst,
                                  /*withElseRegion=*/false);
    rewriter.setInsertionPoint(last.thenBlock()->getTerminator());
    Value perRow = arith::ConstantIndexOp::create(rewriter, loc, warpsPerRow);
    Value base = arith::MulIOp::create(rewriter, loc, row, perRow);
    auto gather = scf::ForOp::create(
        rewriter, loc, zero, perRow,
        arith::ConstantIndexOp::create(rewriter, loc, 1), ValueRange{neutral});
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(gather.getBody());
      Value slot =
          arith::AddIOp::create(rewriter, loc, base, gather.getInductionVar());
      Value value = memref::LoadOp::create(rewriter, loc, slots, slot);
      scf::YieldOp::create(rewriter, loc,
                           combine(gather.getRegionIterArgs().front(), value));
    }
    foldIntoOutput(gather.getResult(0));
    rewriter.eraseOp(op);
    return last;
  }

  // A warp per row: warp w takes rows w, w + warps, ...
  Value warps = arith::DivUIOp::create(
      rewriter, loc, gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x),
      warpSize);
  Value total = product(rewriter, loc, counts);
  auto rowLoop = scf::ForOp::create(rewriter, loc, warp, total, warps);
  rewriter.setInsertionPoint(rowLoop.getBody()->getTerminator());
  setRow(rowLoop.getInductionVar());
  Value partial = reduceWarp(foldRow(lane, warpSize));
  Value isFirst = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        lane, zero);
  auto ifOp = scf::IfOp::create(rewriter, loc, isFirst,
                                /*withElseRegion=*/false);
  rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  foldIntoOutput(partial);
  rewriter.eraseOp(op);
  return rowLoop;
}

} // namespace jeet::gpu_codegen
