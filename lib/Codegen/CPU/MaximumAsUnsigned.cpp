//===- MaximumAsUnsigned.cpp - maximumf of a relu's values on their bits --===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A max pooling with overlapping windows is an elementwise maximum of the
// input's strided views (jeet-decompose): a chain of `arith.maximumf`,
// which x86 has no instruction for (`vmaxps` returns its second operand
// when either is NaN, and orders -0 and +0 as equal), so each is a max, a
// NaN test and a blend. When every input is a view of a result known to be
// +0 or more, or NaN (a relu's), the chain compares the values' bits as
// unsigned integers instead: the same order for such values, one
// instruction. See the pass description.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "VectorizeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUMAXIMUMASUNSIGNEDPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// Whether every element of `tensor` (seen through slices and reshapes) is
/// a result of an all-parallel generic whose yielded value is +0 or more,
/// or NaN, or such values inserted, by an `scf.forall` (a convolution's
/// tiles with their relu epilogue) or `tensor.insert_slice`s (a concat's
/// inputs), into an empty tensor or one that holds such values.
bool holdsNonNegativeOrNaN(Value tensor) {
  while (true) {
    if (auto slice = tensor.getDefiningOp<tensor::ExtractSliceOp>())
      tensor = slice.getSource();
    else if (auto expand = tensor.getDefiningOp<tensor::ExpandShapeOp>())
      tensor = expand.getSrc();
    else if (auto collapse = tensor.getDefiningOp<tensor::CollapseShapeOp>())
      tensor = collapse.getSrc();
    else
      break;
  }
  auto result = dyn_cast<OpResult>(tensor);
  if (!result)
    return false;
  // A concat's inputs inserted into their slices.
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(result.getOwner()))
    return holdsNonNegativeOrNaN(insert.getSource()) &&
           (insert.getDest().getDefiningOp<tensor::EmptyOp>() ||
            holdsNonNegativeOrNaN(insert.getDest()));
  if (auto forall = dyn_cast<scf::ForallOp>(result.getOwner())) {
    unsigned index = result.getResultNumber();
    Value init = forall.getOutputs()[index];
    if (!init.getDefiningOp<tensor::EmptyOp>() && !holdsNonNegativeOrNaN(init))
      return false;
    BlockArgument shared = forall.getRegionIterArgs()[index];
    for (Operation &op : forall.getTerminator().getYieldingOps()) {
      auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(op);
      if (!insert)
        return false;
      if (insert.getDest() == shared &&
          !holdsNonNegativeOrNaN(insert.getSource()))
        return false;
    }
    return true;
  }
  auto producer = dyn_cast<linalg::GenericOp>(result.getOwner());
  // Reduction loops could leave an element its init's value (none of them
  // when a reduced dimension is empty).
  if (!producer || !producer.hasPureTensorSemantics() ||
      producer.getNumParallelLoops() != producer.getNumLoops())
    return false;
  return jeet::cpu::isNonNegativeOrNaN(
      producer.getBlock()->getTerminator()->getOperand(
          result.getResultNumber()));
}

/// Whether `value` is a tree of `maximumf`s in `body` over its arguments
/// that read inputs.
bool isMaximumTree(Value value, linalg::GenericOp op) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() == op.getBlock() &&
           op.isDpsInput(op.getMatchingOpOperand(arg));
  auto maximum = value.getDefiningOp<arith::MaximumFOp>();
  return maximum && maximum->getBlock() == op.getBlock() &&
         isMaximumTree(maximum.getLhs(), op) &&
         isMaximumTree(maximum.getRhs(), op);
}

/// Rewrites the tree of `maximumf`s yielding `value` as `maxui` of the
/// arguments' bits; returns the integer value.
Value asUnsigned(OpBuilder &b, Value value, IntegerType type,
                 llvm::DenseMap<Value, Value> &bits) {
  if (Value known = bits.lookup(value))
    return known;
  Value result;
  if (isa<BlockArgument>(value)) {
    result = arith::BitcastOp::create(b, value.getLoc(), type, value);
  } else {
    auto maximum = value.getDefiningOp<arith::MaximumFOp>();
    Value lhs = asUnsigned(b, maximum.getLhs(), type, bits);
    Value rhs = asUnsigned(b, maximum.getRhs(), type, bits);
    result = arith::MaxUIOp::create(b, maximum.getLoc(), lhs, rhs);
  }
  bits[value] = result;
  return result;
}

struct JeetCpuMaximumAsUnsignedPass
    : jeet::impl::JeetCpuMaximumAsUnsignedPassBase<
          JeetCpuMaximumAsUnsignedPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
          op.getNumParallelLoops() != op.getNumLoops())
        return;
      auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
      Value root = yield.getOperand(0);
      auto floatType = dyn_cast<FloatType>(root.getType());
      if (!floatType || !root.getDefiningOp<arith::MaximumFOp>() ||
          !isMaximumTree(root, op))
        return;
      // Every input the tree reads holds a relu's values.
      for (OpOperand *input : op.getDpsInputOperands())
        if (!op.getMatchingBlockArgument(input).use_empty() &&
            !holdsNonNegativeOrNaN(input->get()))
          return;
      OpBuilder b(yield);
      auto type = b.getIntegerType(floatType.getWidth());
      llvm::DenseMap<Value, Value> bits;
      Value maximum = asUnsigned(b, root, type, bits);
      yield->setOperand(
          0, arith::BitcastOp::create(b, yield.getLoc(), floatType, maximum));
      // The maximumf tree is dead now, its root first.
      SmallVector<Operation *> dead;
      for (Operation &inner : op.getBlock()->without_terminator())
        if (isa<arith::MaximumFOp>(inner))
          dead.push_back(&inner);
      for (Operation *inner : llvm::reverse(dead))
        if (inner->use_empty())
          inner->erase();
    });
  }
};

} // namespace
