//===- VectorizeReductions.cpp - Vector loops for reductions --------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-vectorize-reductions: rewrites `linalg.generic` reductions along
// the innermost loop into loops that combine vectors of the prologue's values
// into partial results, one per lane, and then the lanes into the output.
//
//===----------------------------------------------------------------------===//

#include "VectorizeUtils.h"

#include "llvm/ADT/TypeSwitch.h"

#include <functional>

namespace jeet {
#define GEN_PASS_DEF_JEETCPUVECTORIZEREDUCTIONSPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet::cpu;

namespace {

/// The op of a reduction body that combines the output with the prologue's
/// value, how vector.reduction names it, and its identity.
struct Combiner {
  Operation *op = nullptr;
  /// The operand that is not the output: the prologue's value.
  Value value;
  vector::CombiningKind kind;
  TypedAttr identity;
};

/// How vector.reduction names the combiner `op`, if it is one it has.
std::optional<vector::CombiningKind> getCombiningKind(Operation *op) {
  using Kind = vector::CombiningKind;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return Kind::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return Kind::MUL; })
      .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
      .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
      .Case([](arith::MinSIOp) { return Kind::MINSI; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The value the partial results of the lanes start from: MLIR's neutral
/// element of the combiner (arith::getNeutralElement), except for float
/// sums, which start from -0.0. MLIR gives +0.0 for arith.addf, which is not
/// neutral for -0.0 (-0.0 + +0.0 is +0.0): the lanes would turn a sum of
/// -0.0 into +0.0 where the scalar loop keeps -0.0.
TypedAttr getIdentity(Operation *combiner) {
  if (isa<arith::AddFOp>(combiner)) {
    auto type = cast<FloatType>(combiner->getResult(0).getType());
    return FloatAttr::get(
        type, APFloat::getZero(type.getFloatSemantics(), /*Negative=*/true));
  }
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  return neutral ? *neutral : TypedAttr();
}

std::optional<Combiner> matchCombiner(linalg::GenericOp op) {
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
  std::optional<vector::CombiningKind> kind = getCombiningKind(combiner);
  if (!kind)
    return std::nullopt;
  result.kind = *kind;
  result.identity = getIdentity(combiner);
  if (!result.identity)
    return std::nullopt;
  return result;
}

/// Whether `op` is a reduction this pass vectorises: parallel loops, then
/// reduction loops (at least the innermost), one output indexed by the
/// parallel loops, and a lane-by-lane prologue before the combiner.
std::optional<Combiner> analyzeReduction(linalg::GenericOp op,
                                         llvm::DenseSet<Value> &uniform) {
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
    forEachOutputElement(parallel, [&](ValueRange outer) {
      emitOutputElement(outer, ranges, vectorWidth);
    });
  }

  /// emit() for a reduction over the two innermost loops read as one grid
  /// (JoinedRows): the lanes between rows combine the identity.
  void emitJoined(bool parallel, JoinedRows &grid) {
    forEachOutputElement(
        parallel, [&](ValueRange outer) { emitJoinedElement(outer, grid); });
  }

private:
  /// Calls `element` inside the loops over the parallel dimensions (an
  /// `scf.parallel` when `parallel`) at their indices.
  void forEachOutputElement(bool parallel,
                            function_ref<void(ValueRange)> element) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned numParallel = op.getNumParallelLoops();
    if (numParallel == 0) {
      element({});
      return;
    }
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t range : ArrayRef(ranges).take_front(numParallel)) {
      lbs.push_back(cst(0));
      ubs.push_back(cst(range));
      steps.push_back(cst(1));
    }
    buildLoops(b, loc, lbs, ubs, steps, parallel,
               [&](OpBuilder &nested, ValueRange ivs) {
                 OpBuilder::InsertionGuard guard(b);
                 b.setInsertionPoint(nested.getInsertionBlock(),
                                     nested.getInsertionPoint());
                 element(ivs);
               });
  }

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

  /// The output element at parallel indices `outer` (its indices in
  /// `indices`).
  Value loadOutput(ValueRange outer, SmallVectorImpl<Value> &indices) {
    OpOperand *out = op.getDpsInitOperand(0);
    SmallVector<Value> ivs(outer);
    // The output's indices only use the parallel loops.
    ivs.resize(op.getNumLoops(), Value());
    indices.assign(indicesAt(op, *out, ivs));
    return memref::LoadOp::create(b, loc, out->get(), indices);
  }

  /// A vector of `width` lanes of the combiner's identity.
  Value identityVector(int64_t width, Type type) {
    auto vectorType = VectorType::get({width}, type);
    return arith::ConstantOp::create(
        b, loc, vectorType,
        DenseElementsAttr::get(vectorType, Attribute(combiner.identity)));
  }

  /// The prologue's value for `width` lanes at innermost index `x`.
  Value valueAt(ArrayRef<Value> ivs, Value x, int64_t width) {
    SmallVector<Value> at(ivs);
    at.push_back(x);
    IRMapping mapping =
        cloneBodyAt(b, loc, op, uniform, at, width, /*skip=*/combiner.op);
    return splatTo(b, loc, mapping.lookupOrDefault(combiner.value), width);
  }

  /// Reduces the grid at parallel indices `outer` into its output element.
  void emitJoinedElement(ValueRange outer, JoinedRows &grid) {
    SmallVector<Value> outIndices;
    Value init = loadOutput(outer, outIndices);
    int64_t lanes = grid.getLanes();
    Value identity = identityVector(lanes, init.getType());
    Value partial = identity;
    grid.emit(b, outer, [&](IRMapping &mapping, Value onRows) {
      Value value =
          splatTo(b, loc, mapping.lookupOrDefault(combiner.value), lanes);
      value = arith::SelectOp::create(b, loc, onRows, value, identity);
      partial = combine(partial, value);
    });
    memref::StoreOp::create(b, loc, reduceLanes(partial, init),
                            op.getDpsInitOperand(0)->get(), outIndices);
  }

  /// Reduces every element of the reduction loops into the output element
  /// at parallel indices `outer`.
  void emitOutputElement(ValueRange outer, ArrayRef<int64_t> ranges,
                         int64_t width) {
    OpOperand *out = op.getDpsInitOperand(0);
    SmallVector<Value> outIndices;
    Value init = loadOutput(outer, outIndices);
    Value identity = identityVector(width, init.getType());

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
    int64_t datapath =
        datapathBits > 0 ? int64_t(datapathBits) : hostVectorDatapathBits();
    forEachGeneric(getOperation(), [&](linalg::GenericOp op, bool nested) {
      llvm::DenseSet<Value> uniform;
      std::optional<Combiner> combiner = analyzeReduction(op, uniform);
      if (!combiner)
        return;
      OpBuilder b(op);
      ReductionEmitter emitter(b, op, uniform, *combiner);
      std::optional<JoinedRows> grid =
          joinRows
              ? JoinedRows::plan(op, uniform, width, datapath, combiner->op)
              : std::nullopt;
      if (grid)
        emitter.emitJoined(parallel && !nested, *grid);
      else
        emitter.emit(parallel && !nested, width);
      op->erase();
    });
  }
};

} // namespace
