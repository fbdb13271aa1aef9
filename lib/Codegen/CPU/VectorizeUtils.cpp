//===- VectorizeUtils.cpp - Vector loops for linalg.generic bodies --------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "VectorizeUtils.h"

#include "mlir/IR/TypeUtilities.h"

#include "jeet/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace jeet::cpu;

/// Element types that live one per byte-aligned slot in memory and in
/// vectors alike (so no i1).
static bool isVectorElementType(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth() % 8 == 0;
  return isa<FloatType>(type);
}

bool jeet::cpu::isInPlaceElementwise(linalg::GenericOp op, Value output) {
  return op.hasPureBufferSemantics() && op.getNumDpsInputs() == 1 &&
         op.getNumDpsInits() == 1 &&
         op.getDpsInputOperand(0)->get() == output &&
         op.getDpsInitOperand(0)->get() == output &&
         op.getNumParallelLoops() == op.getNumLoops() &&
         !op.hasIndexSemantics() &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

linalg::FillOp jeet::cpu::fillOfBufferBefore(Operation *op, Value buffer) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  if (!fill || !fill.hasPureBufferSemantics() ||
      fill.getDpsInitOperand(0)->get() != buffer ||
      fill.getDpsInputOperand(0)->get().getType() !=
          getElementTypeOrSelf(buffer.getType()))
    return nullptr;
  return fill;
}

bool jeet::cpu::isNonNegativeOrNaN(Value value) {
  if (auto constant = value.getDefiningOp<arith::ConstantFloatOp>())
    return !constant.value().isNegative();
  Operation *op = value.getDefiningOp();
  if (!op)
    return false;
  // maximumf(x, c) with c >= +0 (a relu): at least c, or NaN; maximumf
  // orders -0 below +0, so a -0 never comes out. (maxnumf may return either
  // of two equal zeros: maxnumf(-0, +0) can be -0.)
  if (isa<arith::MaximumFOp>(op))
    return isNonNegativeOrNaN(op->getOperand(0)) ||
           isNonNegativeOrNaN(op->getOperand(1));
  // Of two such values, any of these gives one of them.
  if (isa<arith::MaxNumFOp, arith::MinimumFOp, arith::MinNumFOp>(op))
    return isNonNegativeOrNaN(op->getOperand(0)) &&
           isNonNegativeOrNaN(op->getOperand(1));
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return isNonNegativeOrNaN(select.getTrueValue()) &&
           isNonNegativeOrNaN(select.getFalseValue());
  return false;
}

Value jeet::cpu::splatTo(OpBuilder &b, Location loc, Value value,
                         int64_t width) {
  if (isa<VectorType>(value.getType()))
    return value;
  return vector::BroadcastOp::create(
      b, loc, VectorType::get({width}, value.getType()), value);
}

/// The static stride of `type`'s innermost dimension, if it has one.
static std::optional<int64_t> innermostStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() == 0 ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(strides.back()))
    return std::nullopt;
  return strides.back();
}

namespace {
/// How the lanes of an input's vector along the innermost loop are read.
struct LaneRead {
  enum Kind {
    /// Consecutive elements of the innermost memref dimension: a load.
    Contiguous,
    /// Elements `lanes` apart (up to kMaxReadStride) along the innermost
    /// dimension, whose stride is `stride`: loadStrided.
    Strided,
    /// Anything else (a transposed read, where the loop steps another
    /// dimension, or lanes further apart): element by element
    /// (loadGathered); the arithmetic stays on vectors.
    Gathered,
  } kind;
  int64_t lanes = 1;
  int64_t stride = 1;
};
} // namespace

/// How `operand` (an input of `op` that varies along the innermost loop)
/// is read as vectors, or none where its map is not one this reads: each
/// result a sum of loop dimensions times constants (an im2col's oh * sh +
/// kh * dh), one result depending on the innermost loop.
static std::optional<LaneRead> laneRead(linalg::GenericOp op,
                                        OpOperand &operand) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  unsigned inner = op.getNumLoops() - 1;
  if (map.getNumSymbols() != 0 || map.getNumResults() == 0)
    return std::nullopt;
  std::optional<unsigned> dependent;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (!expr.isPureAffine())
      return std::nullopt;
    if (!expr.isFunctionOfDim(inner))
      continue;
    if (dependent)
      return std::nullopt;
    dependent = i;
  }
  if (!dependent || *dependent + 1 != map.getNumResults())
    return LaneRead{LaneRead::Gathered};
  // The innermost loop's coefficient in the last result.
  AffineExpr last = map.getResults().back();
  AffineExpr dim = getAffineDimExpr(inner, map.getContext());
  std::optional<int64_t> step;
  for (int64_t candidate = 1; candidate <= kMaxReadStride && !step; ++candidate)
    if (!simplifyAffineExpr(last - dim * candidate, map.getNumDims(), 0)
             .isFunctionOfDim(inner))
      step = candidate;
  std::optional<int64_t> stride =
      innermostStride(cast<MemRefType>(operand.get().getType()));
  if (!step || !stride || *stride <= 0 || *step * *stride > kMaxReadStride)
    return LaneRead{LaneRead::Gathered};
  if (*step * *stride == 1)
    return LaneRead{LaneRead::Contiguous};
  return LaneRead{LaneRead::Strided, *step * *stride, *stride};
}

/// Reads `width` lanes of `memref` from the indices `at` on, `lanes` elements
/// apart in memory (> 1; its innermost stride is `stride`): the elements
/// from the first lane's to the last one's, lanes x (width - 1) + 1 of them,
/// from a view of the same memory with unit innermost stride, and a shuffle
/// keeps every `lanes`-th. Nothing past the last lane's element is touched:
/// the span is two loads that end there, the first (lanes - 1) x width
/// elements and the last `width` (they overlap), or, where the first would
/// run past it (few lanes), one masked load (which costs several loads on
/// some cores: ~13 cycles unaligned on Zen 1).
static Value loadStrided(OpBuilder &b, Location loc, Value memref,
                         ArrayRef<Value> at, int64_t width, int64_t lanes,
                         int64_t stride, int64_t active, Value fill) {
  auto type = cast<MemRefType>(memref.getType());
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  SmallVector<OpFoldResult> sizes = getAsOpFoldResult(metadata.getSizes());
  SmallVector<OpFoldResult> strides = getAsOpFoldResult(metadata.getStrides());
  sizes.back() = b.getIndexAttr(stride * (type.getShape().back() - 1) + 1);
  strides.back() = b.getIndexAttr(1);
  Value contiguous = memref::ReinterpretCastOp::create(
      b, loc, metadata.getBaseBuffer(), getAsOpFoldResult(metadata.getOffset()),
      sizes, strides);
  SmallVector<Value> indices(at);
  if (stride != 1)
    indices.back() = arith::MulIOp::create(
        b, loc, indices.back(), arith::ConstantIndexOp::create(b, loc, stride));
  int64_t span = lanes * (active - 1) + 1;
  int64_t head = (lanes - 1) * width;
  SmallVector<int64_t> keep;
  if (head <= span && active == width) {
    // The head [0, head) and the tail [span - width, span) of the span; lane
    // j's element lanes * j from the head where it is there, else from the
    // tail (numbered after the head's lanes in the shuffle).
    Type element = type.getElementType();
    Value first = vector::LoadOp::create(
        b, loc, VectorType::get({head}, element), contiguous, indices);
    SmallVector<Value> tailIndices(indices);
    tailIndices.back() = arith::AddIOp::create(
        b, loc, indices.back(),
        arith::ConstantIndexOp::create(b, loc, span - width));
    Value last = vector::LoadOp::create(
        b, loc, VectorType::get({width}, element), contiguous, tailIndices);
    for (int64_t lane = 0; lane < width; ++lane) {
      int64_t at = lane * lanes;
      keep.push_back(at < head ? at : head + at - (span - width));
    }
    return vector::ShuffleOp::create(b, loc, first, last, keep);
  }
  auto wide = VectorType::get({lanes * width}, type.getElementType());
  Value mask = vector::ConstantMaskOp::create(
      b, loc, VectorType::get({lanes * width}, b.getI1Type()),
      ArrayRef<int64_t>{span});
  Value passThru = arith::ConstantOp::create(b, loc, b.getZeroAttr(wide));
  Value loaded = vector::MaskedLoadOp::create(b, loc, wide, contiguous, indices,
                                              mask, passThru);
  for (int64_t lane = 0; lane < width; ++lane)
    keep.push_back(lane * lanes);
  Value kept = vector::ShuffleOp::create(b, loc, loaded, loaded, keep);
  // The lanes past `active` read nothing: they hold `fill`.
  if (active < width)
    kept = arith::SelectOp::create(b, loc, laneMask(b, loc, width, active),
                                   kept, fill);
  return kept;
}

std::optional<unsigned> jeet::cpu::contiguousLoop(linalg::GenericOp op,
                                                  OpOperand &operand) {
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (!type || map.getNumResults() == 0 || innermostStride(type) != 1)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!dim)
    return std::nullopt;
  return dim.getPosition();
}

Value jeet::cpu::laneMask(OpBuilder &b, Location loc, int64_t width,
                          int64_t activeLanes) {
  return vector::ConstantMaskOp::create(b, loc,
                                        VectorType::get({width}, b.getI1Type()),
                                        ArrayRef<int64_t>{activeLanes});
}

/// 1 as an `element`: the value of the lanes a partial vector does not
/// read.
static TypedAttr oneOf(OpBuilder &b, Type element) {
  if (isa<FloatType>(element))
    return b.getFloatAttr(element, 1.0);
  return b.getIntegerAttr(element, 1);
}

bool jeet::cpu::analyzeOperands(linalg::GenericOp op,
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
    bool isInit = op.isDpsInit(&operand);
    bool varies = map.isFunctionOfDim(inner);
    if (isInit && !varies && !outputsMayBeUniform)
      return false;
    if (map.getNumSymbols() != 0 ||
        llvm::any_of(map.getResults(),
                     [](AffineExpr expr) { return !expr.isPureAffine(); }))
      return false;
    // Outputs are written as vectors along their innermost dimension with
    // unit stride; inputs are read as laneRead says.
    if (isInit && !map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return false;
    if (varies) {
      std::optional<LaneRead> read = laneRead(op, operand);
      if (!read || (isInit && read->kind != LaneRead::Contiguous))
        return false;
    }
    if (!varies)
      uniform.insert(op.getMatchingBlockArgument(&operand));
  }
  return true;
}

bool jeet::cpu::analyzeBody(linalg::GenericOp op,
                            llvm::DenseSet<Value> &uniform, Operation *skip) {
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

SmallVector<Value> jeet::cpu::indicesAt(linalg::GenericOp op,
                                        OpOperand &operand,
                                        ArrayRef<Value> ivs) {
  SmallVector<Value> result;
  for (AffineExpr expr : op.getMatchingIndexingMap(&operand).getResults())
    result.push_back(ivs[cast<AffineDimExpr>(expr).getPosition()]);
  return result;
}

/// `expr`, a sum of loop dimensions times constants, at loop indices `ivs`.
static Value evaluate(OpBuilder &b, Location loc, AffineExpr expr,
                      ArrayRef<Value> ivs) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return ivs[dim.getPosition()];
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return arith::ConstantIndexOp::create(b, loc, constant.getValue());
  auto binary = cast<AffineBinaryOpExpr>(expr);
  Value lhs = evaluate(b, loc, binary.getLHS(), ivs);
  Value rhs = evaluate(b, loc, binary.getRHS(), ivs);
  if (expr.getKind() == AffineExprKind::Add)
    return arith::AddIOp::create(b, loc, lhs, rhs);
  // Pure affine: the only other kind is a product with a constant.
  return arith::MulIOp::create(b, loc, lhs, rhs);
}

SmallVector<Value> jeet::cpu::inputIndicesAt(OpBuilder &b, Location loc,
                                             linalg::GenericOp op,
                                             OpOperand &operand,
                                             ArrayRef<Value> ivs) {
  SmallVector<Value> result;
  for (AffineExpr expr : op.getMatchingIndexingMap(&operand).getResults())
    result.push_back(evaluate(b, loc, expr, ivs));
  return result;
}

/// Reads `width` lanes of `operand` at the loop indices `ivs` (the last
/// one the first lane's innermost index) element by element; the lanes from
/// `active` on are not read and hold `one`.
static Value loadGathered(OpBuilder &b, Location loc, linalg::GenericOp op,
                          OpOperand &operand, ArrayRef<Value> ivs,
                          int64_t width, int64_t active, TypedAttr one) {
  SmallVector<Value> at(ivs);
  SmallVector<Value> elements;
  Value fill;
  for (int64_t lane = 0; lane < width; ++lane) {
    if (lane >= active) {
      if (!fill)
        fill = arith::ConstantOp::create(b, loc, one);
      elements.push_back(fill);
      continue;
    }
    if (lane > 0)
      at.back() = arith::AddIOp::create(
          b, loc, ivs.back(), arith::ConstantIndexOp::create(b, loc, lane));
    elements.push_back(memref::LoadOp::create(
        b, loc, operand.get(), inputIndicesAt(b, loc, op, operand, at)));
  }
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({width}, elements.front().getType()), elements);
}

IRMapping jeet::cpu::cloneBodyAt(
    OpBuilder &b, Location loc, linalg::GenericOp op,
    const llvm::DenseSet<Value> &uniform, ArrayRef<Value> ivs, int64_t width,
    Operation *skip,
    llvm::function_ref<void(OpOperand &, ArrayRef<Value>)> onLoad,
    llvm::function_ref<Value(OpOperand &)> preloaded, int64_t activeLanes) {
  IRMapping mapping;
  auto vectorOf = [&](Type type) { return VectorType::get({width}, type); };
  int64_t active = activeLanes > 0 && activeLanes < width ? activeLanes : width;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty() || (skip && op.isDpsInit(&operand)))
      continue;
    if (Value value = preloaded ? preloaded(operand) : Value()) {
      mapping.map(arg, value);
      continue;
    }
    Value memref = operand.get();
    SmallVector<Value> at = inputIndicesAt(b, loc, op, operand, ivs);
    Value value;
    if (uniform.contains(arg)) {
      value = memref::LoadOp::create(b, loc, memref, at);
    } else {
      LaneRead read = *laneRead(op, operand);
      TypedAttr one = active < width ? oneOf(b, arg.getType()) : TypedAttr();
      auto ones = [&]() -> Value {
        if (!one)
          return Value();
        return arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(vectorOf(arg.getType()), one));
      };
      switch (read.kind) {
      case LaneRead::Contiguous:
        value = active < width
                    ? vector::MaskedLoadOp::create(
                          b, loc, vectorOf(arg.getType()), memref, at,
                          laneMask(b, loc, width, active), ones())
                          .getResult()
                    : vector::LoadOp::create(b, loc, vectorOf(arg.getType()),
                                             memref, at)
                          .getResult();
        break;
      case LaneRead::Strided:
        value = loadStrided(b, loc, memref, at, width, read.lanes, read.stride,
                            active, ones());
        break;
      case LaneRead::Gathered:
        value = loadGathered(b, loc, op, operand, ivs, width, active, one);
        break;
      }
      if (onLoad && read.kind != LaneRead::Gathered)
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

/// Whether loops over these bounds may run more than one iteration: a loop
/// of one iteration as a parallel region only wakes the thread team (tens of
/// microseconds on a loaded machine) for work one thread does anyway.
static bool hasSeveralIterations(ValueRange lbs, ValueRange ubs,
                                 ValueRange steps) {
  int64_t iterations = 1;
  for (auto [lb, ub, step] : llvm::zip(lbs, ubs, steps)) {
    std::optional<int64_t> low = getConstantIntValue(lb);
    std::optional<int64_t> high = getConstantIntValue(ub);
    std::optional<int64_t> stride = getConstantIntValue(step);
    if (!low || !high || !stride || *stride <= 0)
      return true;
    iterations *= std::max<int64_t>(0, llvm::divideCeil(*high - *low, *stride));
    if (iterations > 1)
      return true;
  }
  return false;
}

void jeet::cpu::buildLoops(
    OpBuilder &b, Location loc, ValueRange lbs, ValueRange ubs,
    ValueRange steps, bool parallel,
    llvm::function_ref<void(OpBuilder &, ValueRange)> body) {
  auto build = [&](OpBuilder &nested, Location, ValueRange ivs) {
    body(nested, ivs);
  };
  if (parallel && hasSeveralIterations(lbs, ubs, steps))
    scf::ParallelOp::create(b, loc, lbs, ubs, steps, build);
  else
    scf::buildLoopNest(b, loc, lbs, ubs, steps, build);
}

/// Rewrites each op of type `OpT` in `func` that `accept` takes into the
/// equivalent `linalg.generic`.
template <typename OpT>
static void generalizeWhere(func::FuncOp func,
                            llvm::function_ref<bool(OpT)> accept) {
  SmallVector<OpT> ops;
  func.walk([&](OpT op) {
    if (accept(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  for (OpT op : ops) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
}

/// Whether `a` and `b` are buffers of static shapes.
static bool staticBuffers(Value a, Value b) {
  auto first = dyn_cast<MemRefType>(a.getType());
  auto second = dyn_cast<MemRefType>(b.getType());
  return first && second && first.hasStaticShape() && second.hasStaticShape();
}

void jeet::cpu::generalizeStaticTransposes(func::FuncOp func) {
  generalizeWhere<linalg::TransposeOp>(func, [](linalg::TransposeOp op) {
    return !op.getPermutation().empty() &&
           staticBuffers(op.getInput(), op.getInit());
  });
}

void jeet::cpu::generalizeStaticCopies(func::FuncOp func) {
  generalizeWhere<linalg::CopyOp>(func, [](linalg::CopyOp op) {
    Value input = op.getInputs().front();
    return staticBuffers(input, op.getOutputs().front()) &&
           cast<MemRefType>(input.getType()).getRank() > 0;
  });
}

void jeet::cpu::generalizeStaticFills(func::FuncOp func) {
  SmallVector<linalg::FillOp> fills;
  func.walk([&](linalg::FillOp op) {
    auto init = dyn_cast<MemRefType>(op.getOutputs().front().getType());
    if (init && init.hasStaticShape() && init.getRank() > 0 &&
        !isa<ShapedType>(op.getInputs().front().getType()))
      fills.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  for (linalg::FillOp op : fills) {
    rewriter.setInsertionPoint(op);
    Value value = op.getInputs().front();
    Value init = op.getOutputs().front();
    int64_t rank = cast<MemRefType>(init.getType()).getRank();
    linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange) {
          linalg::YieldOp::create(b, loc, value);
        });
    rewriter.eraseOp(op);
  }
}

void jeet::cpu::forEachGeneric(
    func::FuncOp func, llvm::function_ref<void(linalg::GenericOp, bool)> fn) {
  SmallVector<linalg::GenericOp> generics;
  func.walk([&](linalg::GenericOp op) { generics.push_back(op); });
  for (linalg::GenericOp op : generics)
    fn(op, op->getParentOfType<scf::ParallelOp>() ||
               op->getParentOfType<scf::ForallOp>());
}

/// A value of `op`'s body that is computed outside it.
static bool isDefinedOutside(Value value, linalg::GenericOp op) {
  return !op.getRegion().isAncestor(value.getParentRegion());
}

/// Whether `value`, in the body of `op`, is computed from the generic's own
/// loop indices (`linalg.index`, of dimension `dim` alone when given) and
/// constants by pure ops of the body: the whole pad's coordinates. A pad
/// fused into a tile reads at the tile's offset (a value of the loop around
/// the generic) plus its indices, and is not the whole pad.
static bool isFunctionOfIndices(Value value, linalg::GenericOp op,
                                std::optional<int64_t> dim,
                                unsigned depth = 0) {
  constexpr unsigned kMaxDepth = 32;
  if (depth > kMaxDepth)
    return false;
  Operation *def = value.getDefiningOp();
  if (!def)
    return false; // A block argument: the loaded element or an outer loop's.
  if (matchPattern(value, m_Constant()))
    return true;
  if (auto index = dyn_cast<linalg::IndexOp>(def))
    return !dim || static_cast<int64_t>(index.getDim()) == *dim;
  if (isDefinedOutside(value, op) || def->getNumRegions() != 0 || !isPure(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isFunctionOfIndices(operand, op, dim, depth + 1);
  });
}

std::optional<jeet::cpu::PadOperands>
jeet::cpu::matchPad(linalg::GenericOp op) {
  auto low = op->getAttrOfType<DenseI64ArrayAttr>(jeet::kPadLowAttr);
  if (!low || !op.hasPureBufferSemantics() || op.getNumDpsInputs() != 0 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  auto output = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  auto select = yield.getValues()[0].getDefiningOp<arith::SelectOp>();
  if (!output || !output.hasStaticShape() || low.size() != output.getRank() ||
      !select)
    return std::nullopt;
  auto load = select.getTrueValue().getDefiningOp<memref::LoadOp>();
  if (!load || !isDefinedOutside(load.getMemRef(), op))
    return std::nullopt;
  auto inputType = cast<MemRefType>(load.getMemRef().getType());
  if (!inputType.hasStaticShape() || inputType.getRank() != output.getRank())
    return std::nullopt;
  for (int64_t d = 0; d < output.getRank(); ++d)
    if (low[d] < 0 || low[d] + inputType.getDimSize(d) > output.getDimSize(d))
      return std::nullopt;
  // The whole pad: element d of the input read at index d of the loops, and
  // the choice of padding made from the indices alone.
  for (auto [d, index] : llvm::enumerate(load.getIndices()))
    if (!isFunctionOfIndices(index, op, static_cast<int64_t>(d)))
      return std::nullopt;
  if (!isFunctionOfIndices(select.getCondition(), op, std::nullopt))
    return std::nullopt;
  PadOperands pad{load.getMemRef(), select.getFalseValue(), Value()};
  if (isDefinedOutside(pad.padding, op))
    return pad;
  auto paddingLoad = pad.padding.getDefiningOp<memref::LoadOp>();
  if (!paddingLoad || !paddingLoad.getIndices().empty() ||
      !isDefinedOutside(paddingLoad.getMemRef(), op))
    return std::nullopt;
  pad.paddingBuffer = paddingLoad.getMemRef();
  return pad;
}

linalg::GenericOp jeet::cpu::foldTrailingLoops(linalg::GenericOp op,
                                               unsigned first) {
  SmallVector<ReassociationIndices> loops;
  for (int64_t dim = 0; dim < first; ++dim)
    loops.push_back({dim});
  ReassociationIndices run;
  for (int64_t dim = first, e = op.getNumLoops(); dim < e; ++dim)
    run.push_back(dim);
  loops.push_back(run);
  IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, loops, rewriter);
  if (failed(collapsed))
    return nullptr;
  return dyn_cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
}
