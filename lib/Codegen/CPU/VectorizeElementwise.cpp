//===- CpuVectorizeElementwise.cpp - Vector loops for elementwise kernels -===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites elementwise `linalg.generic` ops on buffers into loop nests whose
// innermost loop works on vectors. The body is cloned op for op with vector
// types, so the arithmetic is the scalar loop's, lane by lane.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUVECTORIZEELEMENTWISEPASS
#define GEN_PASS_DEF_JEETCPUVECTORIZEREDUCTIONSPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// Element types that live one per byte-aligned slot in memory and in
/// vectors alike (so no i1).
static bool isVectorElementType(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth() % 8 == 0;
  return isa<FloatType>(type);
}

/// `value` as a vector of `width` lanes (a scalar is broadcast).
static Value splatTo(OpBuilder &b, Location loc, Value value, int64_t width) {
  if (isa<VectorType>(value.getType()))
    return value;
  return vector::BroadcastOp::create(
      b, loc, VectorType::get({width}, value.getType()), value);
}

/// Whether the operands of `op` (static shapes, projected-permutation maps)
/// can be read as vectors along its innermost loop. Inputs that do not vary
/// along it are uniform; outputs must vary along it unless
/// `outputsMayBeUniform` (a reduction's output, indexed by the outer loops).
static bool analyzeOperands(linalg::GenericOp op,
                            llvm::DenseSet<Value> &uniform,
                            bool outputsMayBeUniform) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.hasIndexSemantics())
    return false;
  for (int64_t range : op.getStaticLoopRanges())
    if (ShapedType::isDynamic(range))
      return false;
  unsigned inner = op.getNumLoops() - 1;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !isVectorElementType(type.getElementType()))
      return false;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return false;
    bool varies = map.isFunctionOfDim(inner);
    bool isInit = op.isDpsInit(&operand);
    if (isInit && !varies && !outputsMayBeUniform)
      return false;
    // Vectors are read and written along the innermost memref dimension.
    if (varies) {
      if (map.getNumResults() == 0 ||
          map.getResults().back() != getAffineDimExpr(inner, op.getContext()) ||
          !type.isLastDimUnitStride())
        return false;
    }
    if (!varies)
      uniform.insert(op.getMatchingBlockArgument(&operand));
  }
  return true;
}

/// Whether every op of the body but `skip` and the terminator can be cloned
/// lane by lane; adds the values that are the same in every lane to
/// `uniform`.
static bool analyzeBody(linalg::GenericOp op, llvm::DenseSet<Value> &uniform,
                        Operation *skip = nullptr) {
  Block *body = op.getBlock();
  for (Operation &inst : body->without_terminator()) {
    if (&inst == skip)
      continue;
    if (inst.getNumRegions() != 0 || !isMemoryEffectFree(&inst))
      return false;
    bool allUniform = llvm::all_of(inst.getOperands(), [&](Value v) {
      return uniform.contains(v) || v.getParentBlock() != body;
    });
    if (allUniform) {
      for (Value result : inst.getResults())
        uniform.insert(result);
      continue;
    }
    if (!OpTrait::hasElementwiseMappableTraits(&inst))
      return false;
    for (Type type : inst.getResultTypes())
      if (!type.isIntOrIndexOrFloat() || type.isIndex())
        return false;
  }
  return true;
}

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

/// The memref indices of `operand` of `op` at loop indices `ivs`.
static SmallVector<Value> indicesAt(linalg::GenericOp op, OpOperand &operand,
                                    ArrayRef<Value> ivs) {
  SmallVector<Value> result;
  for (AffineExpr expr : op.getMatchingIndexingMap(&operand).getResults())
    result.push_back(ivs[cast<AffineDimExpr>(expr).getPosition()]);
  return result;
}

/// Clones the body of `op` (but `skip` and the terminator) for `width`
/// consecutive values of the innermost loop index, the last of `ivs`: each
/// input that varies along it is read with one `vector.load`, the uniform
/// ones with a scalar load, and each op is rebuilt on vectors unless all its
/// operands are uniform. `onLoad` sees each vector load's operand and
/// indices. Returns the mapping from body values to the clones.
static IRMapping cloneBodyAt(
    OpBuilder &b, Location loc, linalg::GenericOp op,
    const llvm::DenseSet<Value> &uniform, ArrayRef<Value> ivs, int64_t width,
    Operation *skip = nullptr,
    llvm::function_ref<void(OpOperand &, ArrayRef<Value>)> onLoad = {}) {
  IRMapping mapping;
  auto vectorOf = [&](Type type) { return VectorType::get({width}, type); };
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty() || (skip && op.isDpsInit(&operand)))
      continue;
    Value memref = operand.get();
    SmallVector<Value> at = indicesAt(op, operand, ivs);
    Value value;
    if (uniform.contains(arg)) {
      value = memref::LoadOp::create(b, loc, memref, at);
    } else {
      value =
          vector::LoadOp::create(b, loc, vectorOf(arg.getType()), memref, at);
      if (onLoad)
        onLoad(operand, at);
    }
    mapping.map(arg, value);
  }
  for (Operation &inst : op.getBlock()->without_terminator()) {
    if (&inst == skip)
      continue;
    bool allUniform = llvm::all_of(inst.getOperands(), [&](Value v) {
      return !isa<VectorType>(mapping.lookupOrDefault(v).getType());
    });
    if (allUniform) {
      b.clone(inst, mapping);
      continue;
    }
    SmallVector<Value> operands;
    for (Value v : inst.getOperands())
      operands.push_back(splatTo(b, loc, mapping.lookupOrDefault(v), width));
    SmallVector<Type> resultTypes;
    for (Type type : inst.getResultTypes())
      resultTypes.push_back(vectorOf(type));
    OperationState state(loc, inst.getName(), operands, resultTypes,
                         inst.getAttrs());
    Operation *vectorized = b.create(state);
    mapping.map(inst.getResults(), vectorized->getResults());
  }
  return mapping;
}

/// An `scf.parallel` over the given bounds when `parallel`, else a nest of
/// `scf.for` loops; `body` fills in the innermost body at the loops' indices.
static void buildLoops(OpBuilder &b, Location loc, ValueRange lbs,
                       ValueRange ubs, ValueRange steps, bool parallel,
                       llvm::function_ref<void(OpBuilder &, ValueRange)> body) {
  auto build = [&](OpBuilder &nested, Location, ValueRange ivs) {
    body(nested, ivs);
  };
  if (parallel)
    scf::ParallelOp::create(b, loc, lbs, ubs, steps, build);
  else
    scf::buildLoopNest(b, loc, lbs, ubs, steps, build);
}

/// Calls `fn` on every linalg.generic of `func` (collected first, so `fn`
/// may replace it), with whether it already sits inside a parallel loop.
static void
forEachGeneric(func::FuncOp func,
               llvm::function_ref<void(linalg::GenericOp, bool)> fn) {
  SmallVector<linalg::GenericOp> generics;
  func.walk([&](linalg::GenericOp op) { generics.push_back(op); });
  for (linalg::GenericOp op : generics)
    fn(op, op->getParentOfType<scf::ParallelOp>() ||
               op->getParentOfType<scf::ForallOp>());
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

class ElementwiseEmitter {
public:
  ElementwiseEmitter(OpBuilder &b, linalg::GenericOp op,
                     const llvm::DenseSet<Value> &uniform,
                     const StreamingPlan &streaming)
      : b(b), op(op), loc(op.getLoc()), uniform(uniform), streaming(streaming) {
  }

  void emit(bool parallel, int64_t vectorWidth, int64_t chunkSize) {
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
    int64_t numChunks = std::max<int64_t>(1, llvm::divideCeil(fullSize, chunk));

    // The outer dimensions and the chunks of the innermost one.
    // Non-temporal stores only where every such output is aligned to the
    // vector's size (checked once, before the loops).
    Value aligned;
    if (fullSize > 0) {
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
    }

    // One-dimensional views of the contiguous multi-dimensional buffers that
    // are prefetched.
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

    // The outer parallel dimensions and the chunks of the innermost one run
    // in parallel; reduction dimensions (all outer here) run in order inside.
    SmallVector<Value> lbs, ubs, steps;
    SmallVector<unsigned> parallelDims, reductionDims;
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
    lbs.push_back(cst(0));
    ubs.push_back(cst(numChunks));
    steps.push_back(cst(1));

    auto body = [&](OpBuilder &nested, ValueRange ivs) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nested.getInsertionBlock(),
                          nested.getInsertionPoint());
      SmallVector<Value> outer(ranges.size() - 1);
      for (auto [dim, iv] : llvm::zip(parallelDims, ivs.drop_back()))
        outer[dim] = iv;
      for (unsigned dim : reductionDims) {
        auto loop =
            scf::ForOp::create(b, loc, cst(0), cst(ranges[dim]), cst(1));
        b.setInsertionPoint(loop.getBody()->getTerminator());
        outer[dim] = loop.getInductionVar();
      }
      Value start =
          arith::MulIOp::create(b, loc, ivs.back(), cst(chunk)).getResult();
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
        // LLVM maps onto whole registers.
        auto emitRemainder = [&] {
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
                                             ivs.back(), cst(numChunks - 1));
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
  Value cst(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
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
                bool nontemporal) {
    SmallVector<Value> ivs(outer);
    ivs.push_back(x);
    Block *block = op.getBlock();
    IRMapping mapping =
        cloneBodyAt(b, loc, op, uniform, ivs, width, /*skip=*/nullptr,
                    [&](OpOperand &operand, ArrayRef<Value> at) {
                      unsigned number = operand.getOperandNumber();
                      if (streamed && streaming.prefetched.contains(number))
                        emitPrefetch(operand.get(), flat.lookup(number),
                                     llvm::to_vector(at), width,
                                     streaming.prefetchElements.lookup(number));
                    });

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
      vector::StoreOp::create(b, loc, result, init.get(),
                              indicesAt(op, init, ivs));
    }
  }

  static constexpr int64_t kCacheLineBytes = 64;
  static constexpr int64_t kReductionChunk = 1024;

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
    forEachGeneric(getOperation(), [&](linalg::GenericOp op, bool nested) {
      llvm::DenseSet<Value> uniform;
      if (!analyze(op, uniform))
        return;
      // A reduction reads its output back at every step: no streaming.
      StreamingPlan streaming =
          op.getNumReductionLoops() > 0
              ? StreamingPlan()
              : planStreaming(op, uniform, width, streamMinBytes,
                              prefetchDistance);
      OpBuilder b(op);
      ElementwiseEmitter(b, op, uniform, streaming)
          .emit(parallel && !nested, width, chunkSize);
      op->erase();
    });
  }
};

//===----------------------------------------------------------------------===//
// Reductions along the innermost loop
//===----------------------------------------------------------------------===//

/// The op of a reduction body that combines the output with the prologue's
/// value, how vector.reduction names it, and its identity.
struct Combiner {
  Operation *op = nullptr;
  /// The operand that is not the output: the prologue's value.
  Value value;
  vector::CombiningKind kind;
  TypedAttr identity;
};

static std::optional<Combiner> matchCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Operation *combiner = yield.getValues()[0].getDefiningOp();
  BlockArgument out = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (!combiner || combiner->getBlock() != body ||
      combiner->getNumOperands() != 2 || !combiner->hasOneUse() ||
      !out.hasOneUse() || out.use_begin()->getOwner() != combiner)
    return std::nullopt;
  Combiner result;
  result.op = combiner;
  result.value = combiner->getOperand(combiner->getOperand(0) == out ? 1 : 0);
  if (result.value == out)
    return std::nullopt;
  Type type = out.getType();
  Builder b(op.getContext());
  auto floatIdentity = [&](APFloat value) -> TypedAttr {
    return b.getFloatAttr(type, value);
  };
  const llvm::fltSemantics *semantics =
      isa<FloatType>(type) ? &cast<FloatType>(type).getFloatSemantics()
                           : nullptr;
  unsigned bits = type.getIntOrFloatBitWidth();
  if (isa<arith::AddFOp>(combiner) && semantics) {
    result.kind = vector::CombiningKind::ADD;
    result.identity = floatIdentity(APFloat::getZero(*semantics, true));
  } else if (isa<arith::MulFOp>(combiner) && semantics) {
    result.kind = vector::CombiningKind::MUL;
    result.identity = floatIdentity(APFloat::getOne(*semantics));
  } else if (isa<arith::MaximumFOp>(combiner) && semantics) {
    result.kind = vector::CombiningKind::MAXIMUMF;
    result.identity = floatIdentity(APFloat::getInf(*semantics, true));
  } else if (isa<arith::MinimumFOp>(combiner) && semantics) {
    result.kind = vector::CombiningKind::MINIMUMF;
    result.identity = floatIdentity(APFloat::getInf(*semantics, false));
  } else if (isa<arith::AddIOp>(combiner) && !semantics) {
    result.kind = vector::CombiningKind::ADD;
    result.identity = b.getIntegerAttr(type, 0);
  } else if (isa<arith::MulIOp>(combiner) && !semantics) {
    result.kind = vector::CombiningKind::MUL;
    result.identity = b.getIntegerAttr(type, 1);
  } else if (isa<arith::MaxSIOp>(combiner) && !semantics) {
    result.kind = vector::CombiningKind::MAXSI;
    result.identity = b.getIntegerAttr(type, APInt::getSignedMinValue(bits));
  } else if (isa<arith::MinSIOp>(combiner) && !semantics) {
    result.kind = vector::CombiningKind::MINSI;
    result.identity = b.getIntegerAttr(type, APInt::getSignedMaxValue(bits));
  } else {
    return std::nullopt;
  }
  return result;
}

/// Whether `op` is a reduction this pass vectorises: parallel loops, then
/// reduction loops (at least the innermost), one output indexed by the
/// parallel loops, and a lane-by-lane prologue before the combiner.
static std::optional<Combiner>
analyzeReduction(linalg::GenericOp op, llvm::DenseSet<Value> &uniform) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numParallel = op.getNumParallelLoops();
  if (numParallel == iterators.size())
    return std::nullopt;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if ((i < numParallel) != (iterator == utils::IteratorType::parallel))
      return std::nullopt;
  std::optional<Combiner> combiner = matchCombiner(op);
  if (!combiner)
    return std::nullopt;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (unsigned dim = numParallel; dim < iterators.size(); ++dim)
    if (outMap.isFunctionOfDim(dim))
      return std::nullopt;
  if (!analyzeOperands(op, uniform, /*outputsMayBeUniform=*/true) ||
      !analyzeBody(op, uniform, combiner->op) ||
      uniform.contains(combiner->value))
    return std::nullopt;
  return combiner;
}

class ReductionEmitter {
public:
  ReductionEmitter(OpBuilder &b, linalg::GenericOp op,
                   const llvm::DenseSet<Value> &uniform,
                   const Combiner &combiner)
      : b(b), op(op), loc(op.getLoc()), uniform(uniform), combiner(combiner) {}

  void emit(bool parallel, int64_t vectorWidth) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned numParallel = op.getNumParallelLoops();
    auto body = [&](OpBuilder &nested, ValueRange ivs) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nested.getInsertionBlock(),
                          nested.getInsertionPoint());
      emitOutputElement(ivs, ranges, vectorWidth);
    };
    if (numParallel == 0) {
      body(b, {});
      return;
    }
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t range : ArrayRef(ranges).take_front(numParallel)) {
      lbs.push_back(cst(0));
      ubs.push_back(cst(range));
      steps.push_back(cst(1));
    }
    buildLoops(b, loc, lbs, ubs, steps, parallel, body);
  }

private:
  Value cst(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// `combiner` applied to `lhs` and `rhs` (both scalars or both vectors).
  Value combine(Value lhs, Value rhs) {
    OperationState state(loc, combiner.op->getName(), ValueRange{lhs, rhs},
                         TypeRange{lhs.getType()}, combiner.op->getAttrs());
    return b.create(state)->getResult(0);
  }

  /// Combines the lanes of `vector` into `acc`. Float sums and products may
  /// reassociate (the lanes already hold partial results in another order
  /// than the scalar loop's), so LLVM reduces them as a tree.
  Value reduceLanes(Value vector, Value acc) {
    auto reduction =
        vector::ReductionOp::create(b, loc, combiner.kind, vector, acc);
    if (isa<FloatType>(acc.getType()) &&
        (combiner.kind == vector::CombiningKind::ADD ||
         combiner.kind == vector::CombiningKind::MUL))
      reduction.setFastmath(arith::FastMathFlags::reassoc);
    return reduction;
  }

  /// The prologue's value for `width` lanes at innermost index `x`.
  Value valueAt(ArrayRef<Value> ivs, Value x, int64_t width) {
    SmallVector<Value> at(ivs);
    at.push_back(x);
    IRMapping mapping =
        cloneBodyAt(b, loc, op, uniform, at, width, /*skip=*/combiner.op);
    return splatTo(b, loc, mapping.lookupOrDefault(combiner.value), width);
  }

  /// Reduces every element of the reduction loops into the output element
  /// at parallel indices `outer`.
  void emitOutputElement(ValueRange outer, ArrayRef<int64_t> ranges,
                         int64_t width) {
    OpOperand *out = op.getDpsInitOperand(0);
    SmallVector<Value> ivs(outer);
    // The output's indices only use the parallel loops.
    ivs.resize(op.getNumLoops(), Value());
    SmallVector<Value> outIndices = indicesAt(op, *out, ivs);
    Value init = memref::LoadOp::create(b, loc, out->get(), outIndices);
    Type type = init.getType();
    auto vectorType = VectorType::get({width}, type);
    Value identity = arith::ConstantOp::create(
        b, loc, vectorType,
        DenseElementsAttr::get(vectorType, Attribute(combiner.identity)));

    int64_t size = ranges.back();
    int64_t fullSize = size / width * width;
    // Carried through the reduction loops: the partial-result vector and
    // the scalar that the remainders (and the initial value) fold into.
    SmallVector<Value> carried = {identity, init};
    SmallVector<Value> reductionIvs;
    std::function<void(unsigned)> nest = [&](unsigned dim) {
      if (dim + 1 < ranges.size()) {
        auto loop = scf::ForOp::create(b, loc, cst(0), cst(ranges[dim]), cst(1),
                                       carried);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        reductionIvs.push_back(loop.getInductionVar());
        carried = SmallVector<Value>(loop.getRegionIterArgs());
        nest(dim + 1);
        scf::YieldOp::create(b, loc, carried);
        reductionIvs.pop_back();
        carried = SmallVector<Value>(loop.getResults());
        return;
      }
      SmallVector<Value> prefix(outer);
      llvm::append_range(prefix, reductionIvs);
      if (fullSize > 0) {
        auto loop = scf::ForOp::create(b, loc, cst(0), cst(fullSize),
                                       cst(width), ValueRange{carried[0]});
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value value = valueAt(prefix, loop.getInductionVar(), width);
        scf::YieldOp::create(b, loc,
                             combine(loop.getRegionIterArgs()[0], value));
        carried[0] = loop.getResult(0);
      }
      for (int64_t offset = fullSize,
                   step = llvm::PowerOf2Ceil(size - fullSize);
           offset < size; step /= 2)
        for (; offset + step <= size; offset += step)
          carried[1] =
              reduceLanes(valueAt(prefix, cst(offset), step), carried[1]);
    };
    nest(op.getNumParallelLoops());
    Value result = carried[1];
    if (fullSize > 0)
      result = reduceLanes(carried[0], carried[1]);
    memref::StoreOp::create(b, loc, result, out->get(), outIndices);
  }

  OpBuilder &b;
  linalg::GenericOp op;
  Location loc;
  const llvm::DenseSet<Value> &uniform;
  const Combiner &combiner;
};

struct JeetCpuVectorizeReductionsPass
    : public jeet::impl::JeetCpuVectorizeReductionsPassBase<
          JeetCpuVectorizeReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t width = std::max<int64_t>(1, vectorWidth);
    forEachGeneric(getOperation(), [&](linalg::GenericOp op, bool nested) {
      llvm::DenseSet<Value> uniform;
      std::optional<Combiner> combiner = analyzeReduction(op, uniform);
      if (!combiner)
        return;
      OpBuilder b(op);
      ReductionEmitter(b, op, uniform, *combiner)
          .emit(parallel && !nested, width);
      op->erase();
    });
  }
};

} // namespace
