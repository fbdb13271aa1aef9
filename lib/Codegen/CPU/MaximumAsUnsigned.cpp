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
#include "jeet/Conversion/Passes.h"

#include "VectorizeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUMAXIMUMASUNSIGNEDPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

bool holdsNonNegativeOrNaN(Value tensor, const llvm::DenseSet<Value> &maxima);

/// A `jeet.pad`'s generic (marked `jeet.pad_low`: no inputs, the body
/// yields select(in bounds, tensor.extract of the source, the pad value)).
struct Pad {
  linalg::GenericOp op;
  arith::SelectOp select;
  Value source;
  APFloat value;
};

std::optional<Pad> matchPad(Value tensor) {
  auto op = tensor.getDefiningOp<linalg::GenericOp>();
  if (!op || !op->hasAttr(jeet::kPadLowAttr) || op.getNumDpsInputs() != 0 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  auto select = op.getBlock()
                    ->getTerminator()
                    ->getOperand(0)
                    .getDefiningOp<arith::SelectOp>();
  if (!select)
    return std::nullopt;
  auto extract = select.getTrueValue().getDefiningOp<tensor::ExtractOp>();
  auto value = select.getFalseValue().getDefiningOp<arith::ConstantFloatOp>();
  if (!extract || !value)
    return std::nullopt;
  return Pad{op, select, extract.getTensor(), value.value()};
}

/// Whether every element of `tensor` (seen through slices and reshapes) is
/// a result of an all-parallel generic whose yielded value is +0 or more,
/// or NaN, or such values inserted, by an `scf.forall` (a convolution's
/// tiles with their relu epilogue) or `tensor.insert_slice`s (a concat's
/// inputs), into an empty tensor or one that holds such values.
bool holdsNonNegativeOrNaN(Value tensor, const llvm::DenseSet<Value> &maxima) {
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
    return holdsNonNegativeOrNaN(insert.getSource(), maxima) &&
           (insert.getDest().getDefiningOp<tensor::EmptyOp>() ||
            holdsNonNegativeOrNaN(insert.getDest(), maxima));
  if (auto forall = dyn_cast<scf::ForallOp>(result.getOwner())) {
    unsigned index = result.getResultNumber();
    Value init = forall.getOutputs()[index];
    if (!init.getDefiningOp<tensor::EmptyOp>() &&
        !holdsNonNegativeOrNaN(init, maxima))
      return false;
    BlockArgument shared = forall.getRegionIterArgs()[index];
    for (Operation &op : forall.getTerminator().getYieldingOps()) {
      auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(op);
      if (!insert)
        return false;
      if (insert.getDest() == shared &&
          !holdsNonNegativeOrNaN(insert.getSource(), maxima))
        return false;
    }
    return true;
  }
  // A pad of such values by +0 or more.
  if (std::optional<Pad> pad = matchPad(tensor))
    return !pad->value.isNegative() &&
           holdsNonNegativeOrNaN(pad->source, maxima);
  auto producer = dyn_cast<linalg::GenericOp>(result.getOwner());
  // A maximum of such values (a pooling of a pooling) is one of them.
  if (maxima.contains(result))
    return true;
  if (!producer || !producer.hasPureTensorSemantics())
    return false;
  // A max reduction of such values (a pooling whose windows do not
  // overlap, a reduction over a reshape of its input): whatever the init
  // (a pooling's -inf), the maximum of at least one of them is one of them.
  if (producer.getNumParallelLoops() != producer.getNumLoops()) {
    if (producer.getNumDpsInputs() != 1 || producer.getNumDpsInits() != 1)
      return false;
    SmallVector<int64_t, 4> ranges = producer.getStaticLoopRanges();
    for (auto [range, kind] :
         llvm::zip(ranges, producer.getIteratorTypesArray()))
      if (kind == utils::IteratorType::reduction &&
          (ShapedType::isDynamic(range) || range < 1))
        return false;
    Block *body = producer.getBlock();
    auto maximum = dyn_cast<arith::MaximumFOp>(
        body->getTerminator()->getOperand(0).getDefiningOp());
    if (!maximum || &body->front() != maximum.getOperation())
      return false;
    Value in = body->getArgument(0), out = body->getArgument(1);
    if (!((maximum.getLhs() == in && maximum.getRhs() == out) ||
          (maximum.getLhs() == out && maximum.getRhs() == in)))
      return false;
    return holdsNonNegativeOrNaN(producer.getDpsInputOperand(0)->get(), maxima);
  }
  return jeet::cpu::isNonNegativeOrNaN(
      producer.getBlock()->getTerminator()->getOperand(
          result.getResultNumber()));
}

/// Whether every window of `op` (a maximum over `views` of `pad`, each
/// read through an identity map, and inputs that hold a relu's values)
/// reads at least one element of the pad's source, so that a pad value
/// below +0 never wins one and +0 can take its place; and the views are
/// all the pad's uses. The padded dimensions' output positions are
/// checked one by one (up to 2^20 of them).
bool everyWindowReadsTheSource(const Pad &pad,
                               ArrayRef<tensor::ExtractSliceOp> views,
                               linalg::GenericOp op) {
  for (Operation *user : pad.op->getResult(0).getUsers())
    if (llvm::none_of(views, [&](tensor::ExtractSliceOp view) {
          return view.getOperation() == user;
        }))
      return false;
  for (tensor::ExtractSliceOp view : views) {
    for (OpOperand &use : view->getUses())
      if (use.getOwner() != op || !op.getMatchingIndexingMap(&use).isIdentity())
        return false;
    if (llvm::any_of(view.getStaticOffsets(), ShapedType::isDynamic) ||
        llvm::any_of(view.getStaticStrides(), ShapedType::isDynamic) ||
        view.getSourceType().getRank() != view.getType().getRank())
      return false;
  }
  auto source = dyn_cast<RankedTensorType>(pad.source.getType());
  ArrayRef<int64_t> low =
      pad.op->getAttrOfType<DenseI64ArrayAttr>(jeet::kPadLowAttr).asArrayRef();
  auto padded = cast<RankedTensorType>(pad.op->getResult(0).getType());
  if (!source || !source.hasStaticShape() || !padded.hasStaticShape() ||
      low.size() != static_cast<size_t>(source.getRank()))
    return false;
  tensor::ExtractSliceOp first = views.front();
  ArrayRef<int64_t> outputs = first.getType().getShape();
  SmallVector<int64_t> dims;
  int64_t positions = 1;
  for (int64_t d = 0; d < source.getRank(); ++d) {
    if (padded.getDimSize(d) == source.getDimSize(d))
      continue;
    dims.push_back(d);
    positions *= outputs[d];
    if (positions > (int64_t(1) << 20))
      return false;
  }
  SmallVector<int64_t> at(dims.size(), 0);
  for (int64_t position = 0; position < positions; ++position) {
    bool read = llvm::any_of(views, [&](tensor::ExtractSliceOp view) {
      for (auto [k, d] : llvm::enumerate(dims)) {
        int64_t index = view.getStaticOffsets()[d] +
                        at[k] * view.getStaticStrides()[d] - low[d];
        if (index < 0 || index >= source.getDimSize(d))
          return false;
      }
      return true;
    });
    if (!read)
      return false;
    for (int64_t k = static_cast<int64_t>(dims.size()) - 1; k >= 0; --k) {
      if (++at[k] < outputs[dims[k]])
        break;
      at[k] = 0;
    }
  }
  return true;
}

/// Whether `value` is a tree of `maximumf`s in `body` over its arguments
/// that read inputs; collects those arguments in `leaves` and the tree's
/// operations in `nodes`.
bool isMaximumTree(Value value, linalg::GenericOp op,
                   llvm::SmallSetVector<BlockArgument, 8> &leaves,
                   llvm::SmallPtrSetImpl<Operation *> &nodes) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() != op.getBlock() ||
        !op.isDpsInput(op.getMatchingOpOperand(arg)))
      return false;
    leaves.insert(arg);
    return true;
  }
  auto maximum = value.getDefiningOp<arith::MaximumFOp>();
  if (!maximum || maximum->getBlock() != op.getBlock())
    return false;
  nodes.insert(maximum);
  return isMaximumTree(maximum.getLhs(), op, leaves, nodes) &&
         isMaximumTree(maximum.getRhs(), op, leaves, nodes);
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
    // The results rewritten so far: maxima of such values, which later
    // generics may read (the walk follows the program's order).
    llvm::DenseSet<Value> maxima;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics() ||
          op.getNumParallelLoops() != op.getNumLoops())
        return;
      // The one result that is a tree of maxima over inputs (a pooling;
      // other results may compute from it: DenseNet's next batch norm and
      // relu).
      auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
      std::optional<unsigned> index;
      llvm::SmallSetVector<BlockArgument, 8> leaves;
      llvm::SmallPtrSet<Operation *, 16> nodes;
      for (auto [i, operand] : llvm::enumerate(yield.getOperands())) {
        llvm::SmallSetVector<BlockArgument, 8> treeLeaves;
        llvm::SmallPtrSet<Operation *, 16> treeNodes;
        if (!operand.getDefiningOp<arith::MaximumFOp>() ||
            !isa<FloatType>(operand.getType()) ||
            !isMaximumTree(operand, op, treeLeaves, treeNodes))
          continue;
        if (index)
          return;
        index = i;
        leaves = std::move(treeLeaves);
        nodes = std::move(treeNodes);
      }
      if (!index)
        return;
      auto root = yield.getOperand(*index).getDefiningOp<arith::MaximumFOp>();
      auto floatType = cast<FloatType>(root.getType());
      // Every input the tree reads holds a relu's values, or is a view of
      // a pad of them by a value below +0 (a max pooling's -inf) that no
      // window reads alone and that only the tree reads: +0 then takes
      // that value's place.
      std::optional<Pad> negativePad;
      SmallVector<tensor::ExtractSliceOp> padViews;
      for (BlockArgument leaf : leaves) {
        OpOperand *input = op.getMatchingOpOperand(leaf);
        if (holdsNonNegativeOrNaN(input->get(), maxima))
          continue;
        auto view = input->get().getDefiningOp<tensor::ExtractSliceOp>();
        std::optional<Pad> pad =
            view ? matchPad(view.getSource()) : std::nullopt;
        if (!pad || pad->value.isNaN() || !pad->value.isNegative() ||
            !holdsNonNegativeOrNaN(pad->source, maxima) ||
            (negativePad && negativePad->op != pad->op))
          return;
        negativePad = pad;
        if (!llvm::is_contained(padViews, view))
          padViews.push_back(view);
      }
      if (negativePad) {
        // The pad's views are read by the tree alone.
        for (OpOperand *input : op.getDpsInputOperands()) {
          auto view = input->get().getDefiningOp<tensor::ExtractSliceOp>();
          if (!view || !llvm::is_contained(padViews, view))
            continue;
          for (Operation *user : op.getMatchingBlockArgument(input).getUsers())
            if (!nodes.contains(user))
              return;
        }
        if (!everyWindowReadsTheSource(*negativePad, padViews, op))
          return;
        OpBuilder atPad(negativePad->op);
        Value zero = arith::ConstantOp::create(
            atPad, negativePad->op.getLoc(),
            atPad.getZeroAttr(negativePad->select.getType()));
        negativePad->select.getFalseValueMutable().assign(zero);
      }
      // The unsigned tree right after the root: whatever read the root
      // reads its bits as a float.
      OpBuilder b(root->getNextNode());
      auto type = b.getIntegerType(floatType.getWidth());
      llvm::DenseMap<Value, Value> bits;
      Value maximum = asUnsigned(b, root, type, bits);
      Value result =
          arith::BitcastOp::create(b, root.getLoc(), floatType, maximum);
      root.getResult().replaceAllUsesWith(result);
      maxima.insert(op->getResult(*index));
      // The maximumf tree is dead now, its root first (nodes that other
      // values read stay).
      SmallVector<Operation *> dead;
      for (Operation &inner : op.getBlock()->without_terminator())
        if (nodes.contains(&inner))
          dead.push_back(&inner);
      for (Operation *inner : llvm::reverse(dead))
        if (inner->use_empty())
          inner->erase();
    });
  }
};

} // namespace
