//===- VectorizeElementwise.cpp - Vector loops for elementwise kernels ----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-vectorize-elementwise: rewrites elementwise `linalg.generic` ops
// on buffers (and reductions over outer loops) into loop nests whose
// innermost loop works on vectors, in chunks that run in parallel, with
// prefetches and non-temporal stores for large buffers. Transposes become
// generics first and are vectorised the same way: those that keep the
// innermost dimension in place (attention's heads split from and merged
// back into the rows) copy contiguous rows, the others gather.
//
//===----------------------------------------------------------------------===//

#include "VectorizeUtils.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUVECTORIZEELEMENTWISEPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet::cpu;

namespace {

/// Whether a generic whose innermost loop is parallel can be vectorised
/// along it, and which values in its body are the same in every lane
/// (uniform). Outer loops may reduce: each step then reads, combines and
/// writes back a vector of the output, in the scalar loop's order.
static bool analyze(linalg::GenericOp op, llvm::DenseSet<Value> &uniform) {
  return op.getNumLoops() > 0 &&
         op.getIteratorTypesArray().back() == utils::IteratorType::parallel &&
         analyzeOperands(op, uniform, /*outputsMayBeUniform=*/false) &&
         analyzeBody(op, uniform);
}

/// A generic whose trailing loops run once (a squeeze-and-excitation
/// block's (N, C, 1, 1) gate and the SiLU before it: rows of one element,
/// computed one lane at a time) and are read, with the loop before them, as
/// one run by every operand: those loops folded into that one, so that the
/// vectors run along it (480 channels in 30 vectors instead of 480 one-lane
/// ones). Rows longer than one but shorter than a vector are left to the
/// joined rows (`join-rows`). Null where there is nothing to fold or an
/// operand's buffer does not collapse; `op` is then unchanged.
static linalg::GenericOp foldUnitTrailingLoops(linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned inner = ranges.size() - 1;
  if (ranges.size() < 2 || ranges[inner] != 1 ||
      iterators[inner] != utils::IteratorType::parallel)
    return nullptr;
  // linalg::areDimSequencesPreserved takes projected permutations only (an
  // im2col's window read, d4 * 2 + d2 * 2, is none: asked anyway, it folded
  // loops that read the windows and the copy read one element).
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return nullptr;
  ReassociationIndices run = {int64_t(inner)};
  for (unsigned dim = inner; dim-- > 0;) {
    if (iterators[dim] != utils::IteratorType::parallel ||
        ShapedType::isDynamic(ranges[dim]))
      break;
    ReassociationIndices longer = {int64_t(dim)};
    llvm::append_range(longer, run);
    if (!linalg::areDimSequencesPreserved(maps, {longer}))
      break;
    run = std::move(longer);
    if (ranges[dim] != 1)
      break;
  }
  if (run.size() < 2 || ranges[run.front()] == 1)
    return nullptr;
  return foldTrailingLoops(op, run.front());
}

/// A generic whose trailing parallel loops run once, where
/// foldUnitTrailingLoops could not fold them (an operand leaves out the loop
/// before them: the normalisation after a softmax over the channels of
/// (N, C, 1, 1) reads the row's sum by (N, 1, 1); or that loop is a
/// reduction's: a sum over the channels) with those loops dropped
/// (linalg::dropUnitDims, the operands' buffers collapsed), so that vectors
/// run along the loop before them. A reduction along its innermost loop is
/// then left to jeet-cpu-vectorize-reductions. Null where there is nothing
/// to drop, an operand's buffer is not contiguous, or it fails; `op` is then
/// unchanged.
static linalg::GenericOp dropUnitTrailingLoops(linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned first = ranges.size();
  while (first > 0 && ranges[first - 1] == 1 &&
         iterators[first - 1] == utils::IteratorType::parallel)
    --first;
  if (first == ranges.size() || first == 0 ||
      ShapedType::isDynamic(ranges[first - 1]))
    return nullptr;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getLayout().isIdentity())
      return nullptr;
  }
  linalg::ControlDropUnitDims control;
  control.controlFn = [&](Operation *) {
    return llvm::to_vector(llvm::seq<unsigned>(first, ranges.size()));
  };
  IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, op, control);
  if (failed(dropped))
    return nullptr;
  return dyn_cast<linalg::GenericOp>(dropped->resultOp.getOperation());
}

/// A generic that copies its one input into its output through identity
/// maps (a generalised linalg.copy), or fills its output with a value from
/// outside (a generalised linalg.fill), whose trailing loops run over
/// dimensions that its buffers hold contiguously, with those loops folded
/// into one: a concat's copy of a (1, 64, 46, 46) input into channels
/// 64-127 of its (1, 128, 46, 46) result is then one run of 135,424
/// elements copied by whole vectors, not 2,944 rows of 46.
/// Null where the innermost loop is all that is contiguous; `op` is then
/// unchanged.
static linalg::GenericOp foldContiguousCopyLoops(linalg::GenericOp op) {
  unsigned rank = op.getNumLoops();
  if (rank < 2 || op.getNumDpsInputs() > 1 || op.getNumDpsInits() != 1 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }) ||
      op.getNumReductionLoops() > 0)
    return nullptr;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  Value yielded = yield.getValues().front();
  bool copy =
      op.getNumDpsInputs() == 1 && yielded == op.getBody()->getArgument(0);
  bool fill = op.getNumDpsInputs() == 0 &&
              !op.getRegion().isAncestor(yielded.getParentRegion());
  if (!copy && !fill)
    return nullptr;
  SmallVector<MemRefType> types;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return nullptr;
    types.push_back(type);
  }
  unsigned first = rank - 1;
  while (first > 0) {
    SmallVector<ReassociationIndices> groups;
    for (unsigned dim = 0; dim + 1 < first; ++dim)
      groups.push_back({int64_t(dim)});
    ReassociationIndices run;
    for (unsigned dim = first - 1; dim < rank; ++dim)
      run.push_back(dim);
    groups.push_back(run);
    if (!llvm::all_of(types, [&](MemRefType type) {
          return memref::CollapseShapeOp::isGuaranteedCollapsible(type, groups);
        }))
      break;
    --first;
  }
  if (first == rank - 1)
    return nullptr;
  return foldTrailingLoops(op, first);
}

/// A generic whose innermost loops reduce elements far apart in memory (a
/// mean over the positions of a transposed matmul's (N, positions, C)
/// result read as NCHW: rows of 3 elements 1,280 apart, gathered a lane or
/// two at a time) while a parallel loop of at least `width` iterations runs
/// along the contiguous dimension of every operand that it indexes (the
/// channels): that loop moved innermost (linalg::interchangeGenericOp), so
/// that the vectors run along it and the reduction steps through the outer
/// loops, each step reading, combining and writing back a vector of the
/// output (every output's terms summed in the same order as before). Null
/// where an input's rows run along the innermost loop (a row reduction, for
/// jeet-cpu-vectorize-reductions) or no loop qualifies; `op` is then
/// unchanged.
static linalg::GenericOp moveContiguousLoopInnermost(linalg::GenericOp op,
                                                     int64_t width) {
  unsigned rank = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (rank < 2 || iterators.back() != utils::IteratorType::reduction ||
      op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() ||
      op.hasIndexSemantics())
    return nullptr;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return nullptr;
  unsigned inner = rank - 1;
  for (OpOperand *input : op.getDpsInputOperands())
    if (contiguousLoop(op, *input) == inner)
      return nullptr;
  std::optional<unsigned> loop = contiguousLoop(op, op.getDpsInitsMutable()[0]);
  if (!loop || iterators[*loop] != utils::IteratorType::parallel ||
      ranges[*loop] < width)
    return nullptr;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isFunctionOfDim(*loop))
      continue;
    if (contiguousLoop(op, operand) != loop ||
        llvm::any_of(map.getResults().drop_back(), [&](AffineExpr expr) {
          return expr.isFunctionOfDim(*loop);
        }))
      return nullptr;
  }
  SmallVector<unsigned> order;
  for (unsigned dim = 0; dim < rank; ++dim)
    if (dim != *loop)
      order.push_back(dim);
  order.push_back(*loop);
  IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> moved =
      linalg::interchangeGenericOp(rewriter, op, order);
  return succeeded(moved) ? *moved : nullptr;
}

/// Bytes of a statically shaped memref.
static int64_t sizeInBytes(MemRefType type) {
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// Whether `memref` is an argument of the function around `op` (which must
/// sit in the function's body) that nothing after `op` uses, directly or
/// through a view: the values `op` writes there leave the function.
static bool leavesFunction(Value memref, Operation *op) {
  auto arg = dyn_cast<BlockArgument>(memref);
  auto func = dyn_cast<func::FuncOp>(op->getParentOp());
  if (!arg || !func || arg.getOwner() != &func.getBody().front() ||
      op->getBlock() != arg.getOwner())
    return false;
  SmallVector<Value> worklist{memref};
  llvm::DenseSet<Value> seen{memref};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
      if (!ancestor)
        return false;
      if (ancestor != op && !ancestor->isBeforeInBlock(op))
        return false;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()) && seen.insert(result).second)
          worklist.push_back(result);
    }
  }
  return true;
}

/// Whether `op` is the only operation that reads or writes `memref` (other
/// users may only free it or look at its descriptor).
static bool onlyAccessedBy(Value memref, Operation *op) {
  for (Operation *user : memref.getUsers()) {
    if (user == op || isa<memref::DeallocOp>(user) || isMemoryEffectFree(user))
      continue;
    if (auto view = dyn_cast<ViewLikeOpInterface>(user);
        view && view.getViewSource() == memref &&
        llvm::all_of(user->getResults(),
                     [&](Value v) { return onlyAccessedBy(v, op); }))
      continue;
    return false;
  }
  return true;
}

/// How a vectorised generic streams its buffers (see the pass description).
struct StreamingPlan {
  /// Inputs read as vectors whose loads are prefetched.
  llvm::SmallDenseSet<unsigned> prefetched;
  /// Outputs (operand numbers) written with non-temporal stores when aligned.
  llvm::SmallDenseSet<unsigned> nontemporal;
  /// Elements ahead of the loads that a prefetch reaches, per operand.
  llvm::SmallDenseMap<unsigned, int64_t> prefetchElements;
};

static StreamingPlan planStreaming(linalg::GenericOp op,
                                   const llvm::DenseSet<Value> &uniform,
                                   int64_t vectorWidth, int64_t minBytes,
                                   int64_t prefetchDistance) {
  StreamingPlan plan;
  if (minBytes < 0)
    return plan;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = cast<MemRefType>(operand.get().getType());
    if (sizeInBytes(type) < minBytes)
      continue;
    int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    if (op.isDpsInput(&operand)) {
      BlockArgument arg = op.getMatchingBlockArgument(&operand);
      if (prefetchDistance > 0 && !arg.use_empty() && !uniform.contains(arg) &&
          onlyAccessedBy(operand.get(), op)) {
        plan.prefetched.insert(operand.getOperandNumber());
        plan.prefetchElements[operand.getOperandNumber()] =
            std::max<int64_t>(1, prefetchDistance / elementBytes);
      }
      continue;
    }
    // A non-temporal store must be aligned to the vector's size: the
    // buffer's start is checked at run time, and every row must start on
    // such a boundary too.
    int64_t vectorBytes = vectorWidth * elementBytes;
    if (!llvm::isPowerOf2_64(vectorBytes) || !type.getLayout().isIdentity() ||
        (type.getRank() > 1 &&
         (type.getShape().back() * elementBytes) % vectorBytes != 0) ||
        !leavesFunction(operand.get(), op))
      continue;
    plan.nontemporal.insert(operand.getOperandNumber());
  }
  return plan;
}

/// The vector datapath (getVectorDatapathBits) from which a row's remainder
/// is one masked vector rather than several narrower ones: AVX-512 cores
/// that run 512-bit instructions whole, whose masked loads and stores cost
/// a plain one's.
constexpr int64_t kMaskedRemainderBits = 512;

class ElementwiseEmitter {
public:
  ElementwiseEmitter(OpBuilder &b, linalg::GenericOp op,
                     const llvm::DenseSet<Value> &uniform,
                     const StreamingPlan &streaming)
      : b(b), op(op), loc(op.getLoc()), uniform(uniform), streaming(streaming) {
  }

  /// With `maskedRemainder`, a row's remainder that would be two vectors
  /// or more of power-of-two widths is one vector with its lanes past the
  /// row masked off.
  void emit(bool parallel, int64_t vectorWidth, int64_t chunkSize,
            bool maskedRemainder) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    int64_t size = ranges.back();
    int64_t fullSize = size / vectorWidth * vectorWidth;
    int64_t remainder = size - fullSize;
    // A reduction over outer loops updates its chunk of the output once per
    // reduction step: smaller chunks stay in L1 and spread over the threads.
    if (op.getNumReductionLoops() > 0)
      chunkSize = std::min<int64_t>(chunkSize, kReductionChunk);
    int64_t chunk =
        std::max(vectorWidth, chunkSize / vectorWidth * vectorWidth);
    // Inputs that every outer iteration reads again in full (a channels-last
    // depthwise sum's filter taps, by the channels alone): where together
    // they outgrow a part of L1, the chunks run outermost, each small enough
    // that its part of those inputs stays in L1 (or in registers) while the
    // outer loops run over it.
    bool chunksOutermost = false;
    if (std::optional<int64_t> rowBytes = invariantRowBytes();
        rowBytes && *rowBytes > kInvariantRowBudget &&
        size >= 2 * vectorWidth) {
      int64_t perElement = *rowBytes / size;
      chunk = std::clamp<int64_t>(kInvariantRowBudget /
                                      std::max<int64_t>(1, perElement) /
                                      vectorWidth * vectorWidth,
                                  vectorWidth, chunk);
      chunksOutermost = true;
    }
    int64_t numChunks = std::max<int64_t>(1, llvm::divideCeil(fullSize, chunk));

    // Non-temporal stores only where every such output is aligned to the
    // vector's size (checked once, before the loops).
    Value aligned = fullSize > 0 ? emitAlignmentCheck(vectorWidth) : Value();
    flattenPrefetched();

    // The outer parallel dimensions and the chunks of the innermost one run
    // in parallel; reduction dimensions (all outer here) run in order inside.
    SmallVector<Value> lbs, ubs, steps;
    SmallVector<unsigned> parallelDims, reductionDims;
    if (chunksOutermost) {
      lbs.push_back(cst(0));
      ubs.push_back(cst(numChunks));
      steps.push_back(cst(1));
    }
    for (unsigned dim = 0; dim + 1 < ranges.size(); ++dim) {
      if (iterators[dim] == utils::IteratorType::reduction) {
        reductionDims.push_back(dim);
        continue;
      }
      parallelDims.push_back(dim);
      lbs.push_back(cst(0));
      ubs.push_back(cst(ranges[dim]));
      steps.push_back(cst(1));
    }
    if (!chunksOutermost) {
      lbs.push_back(cst(0));
      ubs.push_back(cst(numChunks));
      steps.push_back(cst(1));
    }

    auto body = [&](OpBuilder &nested, ValueRange ivs) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nested.getInsertionBlock(),
                          nested.getInsertionPoint());
      Value chunkIv = chunksOutermost ? ivs.front() : ivs.back();
      ValueRange outerIvs =
          chunksOutermost ? ivs.drop_front() : ivs.drop_back();
      SmallVector<Value> outer(ranges.size() - 1);
      for (auto [dim, iv] : llvm::zip(parallelDims, outerIvs))
        outer[dim] = iv;
      for (unsigned dim : reductionDims) {
        auto loop =
            scf::ForOp::create(b, loc, cst(0), cst(ranges[dim]), cst(1));
        b.setInsertionPoint(loop.getBody()->getTerminator());
        outer[dim] = loop.getInductionVar();
      }
      Value start =
          arith::MulIOp::create(b, loc, chunkIv, cst(chunk)).getResult();
      Value end = arith::MinSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, start, cst(chunk)),
          cst(fullSize));
      auto emitLoop = [&](bool nontemporal) {
        auto loop = scf::ForOp::create(b, loc, start, end, cst(vectorWidth));
        OpBuilder::InsertionGuard loopGuard(b);
        b.setInsertionPoint(loop.getBody()->getTerminator());
        emitStep(outer, loop.getInductionVar(), vectorWidth,
                 /*streamed=*/true, nontemporal);
      };
      if (fullSize > 0 && aligned) {
        auto ifOp = scf::IfOp::create(b, loc, aligned, /*withElse=*/true);
        {
          OpBuilder::InsertionGuard ifGuard(b);
          b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
          // jeet-cpu-fence-nontemporal-stores puts a fence after this loop
          // once the parallel loop is an OpenMP region.
          emitLoop(/*nontemporal=*/true);
          b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
          emitLoop(/*nontemporal=*/false);
        }
      } else if (fullSize > 0) {
        emitLoop(/*nontemporal=*/false);
      }
      if (remainder > 0) {
        // Vectors of power-of-two widths (7 elements are 4 + 2 + 1), which
        // LLVM maps onto whole registers; with maskedRemainder, where those
        // are two or more, one vector of 8 with 7 lanes (masked loads and
        // stores: one step where three ran).
        auto emitRemainder = [&] {
          if (maskedRemainder && llvm::popcount(uint64_t(remainder)) > 1) {
            emitStep(outer, cst(fullSize), llvm::PowerOf2Ceil(remainder),
                     /*streamed=*/false, /*nontemporal=*/false, remainder);
            return;
          }
          for (int64_t offset = fullSize, width = llvm::PowerOf2Ceil(remainder);
               offset < size; width /= 2)
            for (; offset + width <= size; offset += width)
              emitStep(outer, cst(offset), width, /*streamed=*/false,
                       /*nontemporal=*/false);
        };
        if (numChunks == 1) {
          emitRemainder();
        } else {
          Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             chunkIv, cst(numChunks - 1));
          auto ifOp = scf::IfOp::create(b, loc, last, /*withElse=*/false);
          OpBuilder::InsertionGuard ifGuard(b);
          b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
          emitRemainder();
        }
      }
    };

    buildLoops(b, loc, lbs, ubs, steps, parallel, body);
  }

private:
  /// The bytes of one innermost row of every input that the outer loops
  /// read again in full: indexed by the innermost loop alone, not uniform
  /// (read as vectors). Nothing where there is none, or where an outer loop
  /// reduces or all outer loops together run once.
  std::optional<int64_t> invariantRowBytes() {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned inner = ranges.size() - 1;
    if (op.getNumReductionLoops() > 0 ||
        llvm::any_of(ranges, ShapedType::isDynamic))
      return std::nullopt;
    int64_t outerIterations = 1;
    for (int64_t range : ArrayRef(ranges).drop_back())
      outerIterations *= range;
    if (outerIterations < 2)
      return std::nullopt;
    int64_t bytes = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (uniform.contains(op.getMatchingBlockArgument(input)))
        continue;
      AffineMap map = op.getMatchingIndexingMap(input);
      bool invariant = map.isFunctionOfDim(inner);
      for (unsigned dim = 0; dim < inner && invariant; ++dim)
        invariant = !map.isFunctionOfDim(dim);
      if (!invariant)
        continue;
      auto type = cast<MemRefType>(input->get().getType());
      bytes +=
          ranges[inner] * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    }
    if (bytes == 0)
      return std::nullopt;
    return bytes;
  }

  Value cst(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// Whether every output of the streaming plan's non-temporal stores is
  /// aligned to the size of a vector of `vectorWidth` elements (null when
  /// there is none).
  Value emitAlignmentCheck(int64_t vectorWidth) {
    Value aligned;
    for (unsigned number : streaming.nontemporal) {
      Value memref = op->getOperand(number);
      int64_t vectorBytes =
          vectorWidth *
          llvm::divideCeil(
              cast<MemRefType>(memref.getType()).getElementTypeBitWidth(), 8);
      Value address =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
      Value isAligned = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(b, loc, address, cst(vectorBytes)), cst(0));
      aligned =
          aligned
              ? arith::AndIOp::create(b, loc, aligned, isAligned).getResult()
              : isAligned;
    }
    return aligned;
  }

  /// One-dimensional views (`flat`) of the contiguous multi-dimensional
  /// buffers that are prefetched.
  void flattenPrefetched() {
    for (unsigned number : streaming.prefetched) {
      Value memref = op->getOperand(number);
      auto type = cast<MemRefType>(memref.getType());
      if (type.getRank() < 2 || !type.getLayout().isIdentity())
        continue;
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      flat[number] = memref::CollapseShapeOp::create(
          b, loc, memref, ArrayRef<ReassociationIndices>{all});
    }
  }

  /// Prefetches the cache lines `distance` elements ahead of the `width`
  /// elements at `at`. A contiguous buffer is prefetched through its
  /// one-dimensional view (`flat`), so the prefetches run on into the next
  /// rows; otherwise along the row. The index is clamped to the last
  /// element either way.
  void emitPrefetch(Value memref, Value flat, SmallVector<Value> at,
                    int64_t width, int64_t distance) {
    auto type = cast<MemRefType>(memref.getType());
    int64_t elementBytes = llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    int64_t lineElements = std::max<int64_t>(1, kCacheLineBytes / elementBytes);
    Value base = at.back();
    int64_t last = type.getShape().back() - 1;
    if (flat) {
      // Row-major strides of the contiguous buffer.
      base = at.back();
      int64_t stride = type.getShape().back();
      for (int64_t dim = type.getRank() - 2; dim >= 0; --dim) {
        base = arith::AddIOp::create(
            b, loc, base, arith::MulIOp::create(b, loc, at[dim], cst(stride)));
        stride *= type.getDimSize(dim);
      }
      at = {base};
      last = type.getNumElements() - 1;
      memref = flat;
    }
    for (int64_t offset = 0; offset < width; offset += lineElements) {
      Value ahead = arith::AddIOp::create(b, loc, base, cst(distance + offset));
      at.back() = arith::MinUIOp::create(b, loc, ahead, cst(last));
      memref::PrefetchOp::create(b, loc, memref, at, /*isWrite=*/false,
                                 /*localityHint=*/3, /*isDataCache=*/true);
    }
  }

  /// Computes `width` elements starting at innermost index `x`. With
  /// `streamed`, inputs of the streaming plan are prefetched; with
  /// `nontemporal`, its outputs are stored non-temporally (the caller has
  /// checked their alignment).
  void emitStep(ArrayRef<Value> outer, Value x, int64_t width, bool streamed,
                bool nontemporal, int64_t activeLanes = 0) {
    SmallVector<Value> ivs(outer);
    ivs.push_back(x);
    Block *block = op.getBlock();
    IRMapping mapping = cloneBodyAt(
        b, loc, op, uniform, ivs, width, /*skip=*/nullptr,
        [&](OpOperand &operand, ArrayRef<Value> at) {
          unsigned number = operand.getOperandNumber();
          if (streamed && streaming.prefetched.contains(number))
            emitPrefetch(operand.get(), flat.lookup(number),
                         llvm::to_vector(at), width,
                         streaming.prefetchElements.lookup(number));
        },
        /*preloaded=*/{}, activeLanes);

    auto yield = cast<linalg::YieldOp>(block->getTerminator());
    for (auto [value, init] :
         llvm::zip_equal(yield.getValues(), op.getDpsInitsMutable())) {
      Value result = splatTo(b, loc, mapping.lookupOrDefault(value), width);
      if (nontemporal &&
          streaming.nontemporal.contains(init.getOperandNumber())) {
        int64_t vectorBytes =
            width *
            llvm::divideCeil(
                cast<MemRefType>(init.get().getType()).getElementTypeBitWidth(),
                8);
        vector::StoreOp::create(b, loc, result, init.get(),
                                indicesAt(op, init, ivs), /*nontemporal=*/true,
                                llvm::MaybeAlign(vectorBytes));
        continue;
      }
      if (activeLanes > 0 && activeLanes < width)
        vector::MaskedStoreOp::create(
            b, loc, init.get(), indicesAt(op, init, ivs),
            laneMask(b, loc, width, activeLanes), result);
      else
        vector::StoreOp::create(b, loc, result, init.get(),
                                indicesAt(op, init, ivs));
    }
  }

  static constexpr int64_t kCacheLineBytes = 64;
  static constexpr int64_t kReductionChunk = 1024;
  /// The bytes of inputs read again by every outer iteration that a chunk
  /// may take (a part of any L1 data cache: 32 KiB or more).
  static constexpr int64_t kInvariantRowBudget = 8 * 1024;

  OpBuilder &b;
  linalg::GenericOp op;
  Location loc;
  const llvm::DenseSet<Value> &uniform;
  const StreamingPlan &streaming;
  /// One-dimensional views of prefetched buffers, by operand number.
  llvm::SmallDenseMap<unsigned, Value> flat;
};

struct JeetCpuVectorizeElementwisePass
    : public jeet::impl::JeetCpuVectorizeElementwisePassBase<
          JeetCpuVectorizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t width = std::max<int64_t>(1, vectorWidth);
    int64_t datapath =
        datapathBits > 0 ? int64_t(datapathBits) : hostVectorDatapathBits();
    // Transposes become generics whose input map is the permutation: one
    // that leaves the innermost dimension where it is copies rows as
    // vectors; one that moves it (where jeet-cpu-vectorize-transpose's
    // blocks did not take it: a small one) gathers each output vector
    // element by element and stores it whole.
    generalizeStaticTransposes(getOperation());
    generalizeStaticCopies(getOperation());
    generalizeStaticFills(getOperation());
    forEachGeneric(getOperation(), [&](linalg::GenericOp op, bool nested) {
      llvm::DenseSet<Value> uniform;
      if (linalg::GenericOp moved = moveContiguousLoopInnermost(op, width))
        op = moved;
      if (!analyze(op, uniform))
        return;
      linalg::GenericOp reshaped = foldUnitTrailingLoops(op);
      if (!reshaped)
        reshaped = dropUnitTrailingLoops(op);
      if (!reshaped)
        reshaped = foldContiguousCopyLoops(op);
      if (reshaped) {
        op->erase();
        op = reshaped;
        uniform.clear();
        // A reduction along its innermost loop now is
        // jeet-cpu-vectorize-reductions' to take.
        if (!analyze(op, uniform))
          return;
      }
      // A reduction reads its output back at every step: no streaming.
      StreamingPlan streaming =
          op.getNumReductionLoops() > 0
              ? StreamingPlan()
              : planStreaming(op, uniform, width, streamMinBytes,
                              prefetchDistance);
      OpBuilder b(op);
      if (!joinRows || !vectorizeJoinedRows(b, op, uniform, width, datapath,
                                            parallel && !nested))
        ElementwiseEmitter(b, op, uniform, streaming)
            .emit(parallel && !nested, width, chunkSize,
                  /*maskedRemainder=*/datapath >= kMaskedRemainderBits);
      op->erase();
    });
  }
};

} // namespace
