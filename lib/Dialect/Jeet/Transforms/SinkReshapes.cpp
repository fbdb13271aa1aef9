//===- SinkReshapes.cpp - Reshapes of matmuls below their epilogues -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-sink-reshapes moves an expanding reshape of a matmul (or of an
// elementwise op) below the elementwise ops that read it, so that jeet-fuse
// sees the matmul and its epilogue (bias, activation) next to each other and
// makes them one group: a convolution's bias and relu are computed as the
// matmul's result is stored, instead of in a kernel of their own.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetOps.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jeet {
#define GEN_PASS_DEF_JEETSINKRESHAPESPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// An expanding reshape: `expanded` splits each dimension of `collapsed`
/// into the group of dimensions `groups` names.
struct Expansion {
  SmallVector<int64_t> collapsed;
  SmallVector<int64_t> expanded;
  SmallVector<ReassociationIndices> groups;

  /// Whether `reshape` is this expansion.
  bool matches(ReshapeOp reshape) const {
    return shapeOf(reshape.getInput()) == ArrayRef<int64_t>(collapsed) &&
           shapeOf(reshape.getResult()) == ArrayRef<int64_t>(expanded);
  }

  /// The shape in the collapsed space of an operand of shape `shape` that
  /// broadcasts to the expanded shape, if there is one: within each group,
  /// its dimensions (right-aligned, missing ones being 1) must be all 1 or
  /// all full.
  std::optional<SmallVector<int64_t>> collapse(ArrayRef<int64_t> shape) const {
    int64_t missing = static_cast<int64_t>(expanded.size() - shape.size());
    auto dim = [&](int64_t i) { return i < missing ? 1 : shape[i - missing]; };
    SmallVector<int64_t> result;
    for (auto [index, group] : llvm::enumerate(groups)) {
      bool allOne = llvm::all_of(group, [&](int64_t i) { return dim(i) == 1; });
      bool allFull =
          llvm::all_of(group, [&](int64_t i) { return dim(i) == expanded[i]; });
      if (!allOne && !allFull)
        return std::nullopt;
      result.push_back(allOne ? 1 : collapsed[index]);
    }
    return result;
  }
};

/// The expansion `reshape` makes, if it only splits dimensions of a
/// non-scalar tensor.
std::optional<Expansion> getExpansion(ReshapeOp reshape) {
  ArrayRef<int64_t> from = shapeOf(reshape.getInput());
  ArrayRef<int64_t> to = shapeOf(reshape.getResult());
  if (from.empty() || from.size() >= to.size())
    return std::nullopt;
  std::optional<SmallVector<ReassociationIndices>> groups =
      getReassociationIndicesForCollapse(to, from);
  if (!groups)
    return std::nullopt;
  return Expansion{llvm::to_vector(from), llvm::to_vector(to), *groups};
}

/// Whether a reshape of `value` is worth moving: it is a matmul's result, a
/// transpose of matrices of one (a convolution computed with its positions
/// as rows, moved back), or an elementwise op's (the matmul's epilogue so
/// far, once moved).
bool isSinkableSource(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto transpose = dyn_cast_or_null<TransposeOp>(def))
    return isMatrixTranspose(transpose) &&
           transpose.getInput().getDefiningOp<MatmulOp>();
  return def && isa<MatmulOp, ElementwiseOpInterface>(def);
}

/// Whether `value` is computed from graph arguments and constants by
/// elementwise ops and reshapes only (a batch norm's scale from its
/// parameters, say): such values are read from memory or recomputed
/// wherever they are used, whereas a value that depends on a reduction or a
/// matmul belongs to a group of its own shape (a softmax's row maximum),
/// which moving its reader would split.
bool isParameterLike(Value value) {
  SmallVector<Value> worklist = {value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second || isa<BlockArgument>(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (isa<ConstantOp>(def))
      continue;
    if (!isa<ElementwiseOpInterface, ReshapeOp>(def))
      return false;
    llvm::append_range(worklist, def->getOperands());
  }
  return true;
}

/// Whether `value`, computed elsewhere, has the whole expanded shape and
/// other readers: it is in memory whoever reads it (a residual connection's
/// input, which the next block's normalisation reads too), and reading it
/// through a reshape takes nothing from the group that computes it.
bool isSharedFullOperand(Value value, ArrayRef<int64_t> expanded) {
  return shapeOf(value) == expanded && !value.hasOneUse();
}

/// e(reshape(x), y...) -> reshape(e(x, reshape(y)...)), see Passes.td.
struct SinkReshapeThroughElementwise
    : OpInterfaceRewritePattern<ElementwiseOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(ElementwiseOpInterface op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1)
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<Expansion> expansion;
    for (Value operand : op->getOperands()) {
      auto reshape = operand.getDefiningOp<ReshapeOp>();
      if (reshape && isSinkableSource(reshape.getInput()) &&
          shapeOf(reshape.getResult()) == resultType.getShape()) {
        expansion = getExpansion(reshape);
        if (expansion)
          break;
      }
    }
    if (!expansion)
      return rewriter.notifyMatchFailure(op, "no expanded matmul operand");

    // Every operand is checked before any op is made: a pattern that fails
    // leaves the IR as it found it (a reshape made for the first operand
    // before the third was refused kept the greedy driver from converging,
    // and the pass failed).
    SmallVector<std::optional<SmallVector<int64_t>>> shapes;
    for (Value operand : op->getOperands()) {
      auto reshape = operand.getDefiningOp<ReshapeOp>();
      if (reshape && expansion->matches(reshape)) {
        shapes.push_back(std::nullopt);
        continue;
      }
      if (!isParameterLike(operand) &&
          !isSharedFullOperand(operand, resultType.getShape()))
        return rewriter.notifyMatchFailure(op, "operand computed elsewhere");
      std::optional<SmallVector<int64_t>> shape =
          expansion->collapse(shapeOf(operand));
      if (!shape)
        return rewriter.notifyMatchFailure(op, "operand broadcast across "
                                               "split dimensions");
      shapes.push_back(std::move(shape));
    }
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (auto [operand, shape] : llvm::zip(op->getOperands(), shapes)) {
      if (!shape) {
        operands.push_back(operand.getDefiningOp<ReshapeOp>().getInput());
        continue;
      }
      auto type = cast<RankedTensorType>(operand.getType());
      operands.push_back(
          ArrayRef<int64_t>(*shape) == type.getShape()
              ? operand
              : ReshapeOp::create(rewriter, loc, type.clone(*shape), operand)
                    .getResult());
    }
    OperationState state(loc, op->getName(), operands,
                         {resultType.clone(expansion->collapsed)},
                         op->getAttrs());
    Operation *collapsed = rewriter.create(state);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, resultType,
                                           collapsed->getResult(0));
    return success();
  }
};

struct JeetSinkReshapesPass
    : jeet::impl::JeetSinkReshapesPassBase<JeetSinkReshapesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkReshapeThroughElementwise>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation()->emitError(
          "jeet-sink-reshapes: the rewrite did not converge");
      signalPassFailure();
    }
  }
};

} // namespace
