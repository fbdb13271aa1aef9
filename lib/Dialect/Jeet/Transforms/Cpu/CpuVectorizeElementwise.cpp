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

#include "jeet/Dialect/Jeet/Transforms/CpuPasses.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUVECTORIZEELEMENTWISEPASS
#include "jeet/Dialect/Jeet/Transforms/CpuPasses.h.inc"
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

/// Whether the generic can be vectorised along its innermost loop, and which
/// values in its body are the same in every lane (uniform).
static bool analyze(linalg::GenericOp op, llvm::DenseSet<Value> &uniform) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumReductionLoops() != 0 || op.hasIndexSemantics())
    return false;
  for (int64_t range : op.getStaticLoopRanges())
    if (ShapedType::isDynamic(range))
      return false;
  unsigned inner = op.getNumLoops() - 1;
  Block *body = op.getBlock();
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !isVectorElementType(type.getElementType()))
      return false;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return false;
    bool varies = map.isFunctionOfDim(inner);
    bool isInit = op.isDpsInit(&operand);
    // Vectors are read and written along the innermost memref dimension.
    if (varies || isInit) {
      if (map.getNumResults() == 0 ||
          map.getResults().back() != getAffineDimExpr(inner, op.getContext()) ||
          !type.isLastDimUnitStride())
        return false;
    }
    if (!varies)
      uniform.insert(op.getMatchingBlockArgument(&operand));
  }
  for (Operation &inst : body->without_terminator()) {
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

class ElementwiseEmitter {
public:
  ElementwiseEmitter(OpBuilder &b, linalg::GenericOp op,
                     const llvm::DenseSet<Value> &uniform)
      : b(b), op(op), loc(op.getLoc()), uniform(uniform) {}

  void emit(bool parallel, int64_t vectorWidth, int64_t chunkSize) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t size = ranges.back();
    int64_t fullSize = size / vectorWidth * vectorWidth;
    int64_t remainder = size - fullSize;
    int64_t chunk =
        std::max(vectorWidth, chunkSize / vectorWidth * vectorWidth);
    int64_t numChunks = std::max<int64_t>(1, llvm::divideCeil(fullSize, chunk));

    // The outer dimensions and the chunks of the innermost one.
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t range : ArrayRef(ranges).drop_back()) {
      lbs.push_back(cst(0));
      ubs.push_back(cst(range));
      steps.push_back(cst(1));
    }
    lbs.push_back(cst(0));
    ubs.push_back(cst(numChunks));
    steps.push_back(cst(1));

    auto body = [&](OpBuilder &nested, ValueRange ivs) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nested.getInsertionBlock(),
                          nested.getInsertionPoint());
      SmallVector<Value> outer(ivs.drop_back());
      Value start =
          arith::MulIOp::create(b, loc, ivs.back(), cst(chunk)).getResult();
      Value end = arith::MinSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, start, cst(chunk)),
          cst(fullSize));
      if (fullSize > 0) {
        auto loop = scf::ForOp::create(b, loc, start, end, cst(vectorWidth));
        OpBuilder::InsertionGuard loopGuard(b);
        b.setInsertionPoint(loop.getBody()->getTerminator());
        emitStep(outer, loop.getInductionVar(), vectorWidth);
      }
      if (remainder > 0) {
        // Vectors of power-of-two widths (7 elements are 4 + 2 + 1), which
        // LLVM maps onto whole registers.
        auto emitRemainder = [&] {
          for (int64_t offset = fullSize, width = llvm::PowerOf2Ceil(remainder);
               offset < size; width /= 2)
            for (; offset + width <= size; offset += width)
              emitStep(outer, cst(offset), width);
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

    if (parallel) {
      scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                              [&](OpBuilder &nested, Location, ValueRange ivs) {
                                body(nested, ivs);
                              });
    } else {
      scf::buildLoopNest(b, loc, lbs, ubs, steps,
                         [&](OpBuilder &nested, Location, ValueRange ivs) {
                           body(nested, ivs);
                         });
    }
  }

private:
  Value cst(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// The memref indices of `operand` at loop indices `ivs`.
  SmallVector<Value> indices(OpOperand &operand, ArrayRef<Value> ivs) {
    SmallVector<Value> result;
    for (AffineExpr expr : op.getMatchingIndexingMap(&operand).getResults())
      result.push_back(ivs[cast<AffineDimExpr>(expr).getPosition()]);
    return result;
  }

  /// Computes `width` elements starting at innermost index `x`.
  void emitStep(ArrayRef<Value> outer, Value x, int64_t width) {
    SmallVector<Value> ivs(outer);
    ivs.push_back(x);
    IRMapping mapping;
    Block *block = op.getBlock();
    auto vectorOf = [&](Type type) { return VectorType::get({width}, type); };
    auto asVector = [&](Value v) -> Value {
      if (isa<VectorType>(v.getType()))
        return v;
      return vector::BroadcastOp::create(b, loc, vectorOf(v.getType()), v);
    };

    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(&operand);
      if (arg.use_empty())
        continue;
      Value memref = operand.get();
      SmallVector<Value> at = indices(operand, ivs);
      Value value;
      if (uniform.contains(arg))
        value = memref::LoadOp::create(b, loc, memref, at);
      else
        value =
            vector::LoadOp::create(b, loc, vectorOf(arg.getType()), memref, at);
      mapping.map(arg, value);
    }

    for (Operation &inst : block->without_terminator()) {
      bool allUniform = llvm::all_of(inst.getOperands(), [&](Value v) {
        return !isa<VectorType>(mapping.lookupOrDefault(v).getType());
      });
      if (allUniform) {
        b.clone(inst, mapping);
        continue;
      }
      SmallVector<Value> operands;
      for (Value v : inst.getOperands())
        operands.push_back(asVector(mapping.lookupOrDefault(v)));
      SmallVector<Type> resultTypes;
      for (Type type : inst.getResultTypes())
        resultTypes.push_back(vectorOf(type));
      OperationState state(loc, inst.getName(), operands, resultTypes,
                           inst.getAttrs());
      Operation *vectorized = b.create(state);
      mapping.map(inst.getResults(), vectorized->getResults());
    }

    auto yield = cast<linalg::YieldOp>(block->getTerminator());
    for (auto [value, init] :
         llvm::zip_equal(yield.getValues(), op.getDpsInitsMutable())) {
      Value result = asVector(mapping.lookupOrDefault(value));
      vector::StoreOp::create(b, loc, result, init.get(), indices(init, ivs));
    }
  }

  OpBuilder &b;
  linalg::GenericOp op;
  Location loc;
  const llvm::DenseSet<Value> &uniform;
};

struct JeetCpuVectorizeElementwisePass
    : public jeet::impl::JeetCpuVectorizeElementwisePassBase<
          JeetCpuVectorizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    int64_t width = std::max<int64_t>(1, vectorWidth);
    for (linalg::GenericOp op : generics) {
      llvm::DenseSet<Value> uniform;
      if (!analyze(op, uniform))
        continue;
      bool nested = op->getParentOfType<scf::ParallelOp>() ||
                    op->getParentOfType<scf::ForallOp>();
      OpBuilder b(op);
      ElementwiseEmitter(b, op, uniform)
          .emit(parallel && !nested, width, chunkSize);
      op->erase();
    }
  }
};

} // namespace
