//===- CancelTransposes.cpp - Transposes moved down to their inverses -----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cancel-transposes moves a transpose below the elementwise ops and
// reshapes that read it, one reader after another, where that path ends in
// a transpose that undoes it: both then disappear. A convolution computed
// transposed (positions as the matmul's rows) ends in a transpose back to
// NCHW, and a depthwise one computed channels last starts with a transpose
// to NHWC; between them are the bias, the activation and a reshape.
//
// Only a path that ends in the inverse transpose is rewritten, so no
// transpose is added anywhere: on the path each value has one reader, the
// elementwise ops keep their shape, and every other operand of theirs has at
// most one dimension that is not 1 (a bias: reshaped to the transposed
// position, a view). A reshape on the path must only split dimensions of
// the transposed value or only merge dimensions that the transpose keeps in
// order next to each other.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetOps.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCANCELTRANSPOSESPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// A transpose's input shape and permutation at some point of the path: the
/// value there is transpose(v, perm) for a v of shape `input`.
struct Transposed {
  SmallVector<int64_t> input;
  SmallVector<int64_t> perm;

  /// The transposed value's shape.
  SmallVector<int64_t> shape() const {
    SmallVector<int64_t> result;
    for (int64_t p : perm)
      result.push_back(input[p]);
    return result;
  }

  /// The state after a reshape of the transposed value to `to`, if the
  /// reshape can move above the transpose: one that only splits dimensions
  /// (each input dimension split the same way) or only merges dimensions
  /// that come from neighbouring input dimensions in order.
  std::optional<Transposed> reshaped(ArrayRef<int64_t> to) const {
    SmallVector<int64_t> from = shape();
    if (to.size() > from.size()) {
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForReshape(
              RankedTensorType::get(to, Float32Type::get(ctx())),
              RankedTensorType::get(from, Float32Type::get(ctx())));
      if (!groups)
        return std::nullopt;
      // Input dimension d is transposed dimension i = inverse[d], split
      // into the sizes of group i.
      SmallVector<int64_t> inverse(perm.size());
      for (auto [i, p] : llvm::enumerate(perm))
        inverse[p] = i;
      Transposed next;
      SmallVector<int64_t> first(perm.size());
      for (int64_t d = 0; d < int64_t(perm.size()); ++d) {
        first[d] = next.input.size();
        for (int64_t dim : (*groups)[inverse[d]])
          next.input.push_back(to[dim]);
      }
      for (int64_t i = 0; i < int64_t(perm.size()); ++i)
        for (int64_t k = 0; k < int64_t((*groups)[i].size()); ++k)
          next.perm.push_back(first[perm[i]] + k);
      return next;
    }
    if (to.size() < from.size()) {
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForReshape(
              RankedTensorType::get(from, Float32Type::get(ctx())),
              RankedTensorType::get(to, Float32Type::get(ctx())));
      if (!groups)
        return std::nullopt;
      // Each group of transposed dimensions must read a run of input
      // dimensions in order; those runs, in input order, are the new input.
      SmallVector<std::pair<int64_t, int64_t>> runs; // (first input dim, group)
      for (auto [g, group] : llvm::enumerate(*groups)) {
        for (size_t k = 1; k < group.size(); ++k)
          if (perm[group[k]] != perm[group[k - 1]] + 1)
            return std::nullopt;
        runs.push_back({perm[group.front()], int64_t(g)});
      }
      llvm::sort(runs);
      Transposed next;
      next.perm.assign(groups->size(), 0);
      for (auto [index, run] : llvm::enumerate(runs)) {
        next.input.push_back(to[run.second]);
        next.perm[run.second] = index;
      }
      return next;
    }
    if (ArrayRef<int64_t>(from) == to)
      return *this;
    return std::nullopt;
  }

  MLIRContext *ctx() const { return context; }
  MLIRContext *context = nullptr;
};

/// The shape in the transpose's input space of an operand of shape `shape`
/// that broadcasts to the transposed shape, where it has at most one
/// dimension that is not 1 (a reshape then moves it, a view); nothing else.
std::optional<SmallVector<int64_t>>
untransposedOperand(const Transposed &t, ArrayRef<int64_t> shape) {
  int64_t rank = t.perm.size();
  if (int64_t(shape.size()) > rank ||
      llvm::count_if(shape, [](int64_t d) { return d != 1; }) > 1)
    return std::nullopt;
  int64_t missing = rank - shape.size();
  SmallVector<int64_t> result(rank, 1);
  for (int64_t i = missing; i < rank; ++i)
    result[t.perm[i]] = shape[i - missing];
  return result;
}

/// The path from `transpose` down to a transpose that undoes it: the ops
/// between them, and that transpose; nothing where there is none.
std::optional<std::pair<SmallVector<Operation *>, TransposeOp>>
findCancellingPath(TransposeOp transpose) {
  if (!transpose.getInput().getType().hasStaticShape())
    return std::nullopt;
  Transposed state{llvm::to_vector(shapeOf(transpose.getInput())),
                   llvm::to_vector(transpose.getPermutation()),
                   transpose.getContext()};
  SmallVector<Operation *> path;
  Value current = transpose.getResult();
  while (current.hasOneUse()) {
    Operation *user = *current.getUsers().begin();
    if (auto next = dyn_cast<TransposeOp>(user)) {
      ArrayRef<int64_t> q = next.getPermutation();
      for (auto [i, p] : llvm::enumerate(q))
        if (state.perm[p] != int64_t(i))
          return std::nullopt;
      return std::make_pair(path, next);
    }
    if (auto reshape = dyn_cast<ReshapeOp>(user)) {
      if (!reshape.getType().hasStaticShape())
        return std::nullopt;
      std::optional<Transposed> next = state.reshaped(shapeOf(reshape));
      if (!next)
        return std::nullopt;
      next->context = state.context;
      state = std::move(*next);
    } else if (isa<ElementwiseOpInterface>(user) &&
               user->getNumResults() == 1 &&
               shapeOf(user->getResult(0)) == shapeOf(current)) {
      for (Value operand : user->getOperands())
        if (operand != current && !untransposedOperand(state, shapeOf(operand)))
          return std::nullopt;
    } else {
      return std::nullopt;
    }
    path.push_back(user);
    current = user->getResult(0);
  }
  return std::nullopt;
}

/// Recomputes the path on the transpose's input, untransposed, and replaces
/// the transpose that ends it.
void cancel(TransposeOp transpose, ArrayRef<Operation *> path,
            TransposeOp inverse) {
  OpBuilder b(inverse);
  Transposed state{llvm::to_vector(shapeOf(transpose.getInput())),
                   llvm::to_vector(transpose.getPermutation()),
                   transpose.getContext()};
  Value value = transpose.getInput();
  Value current = transpose.getResult();
  for (Operation *op : path) {
    Location loc = op->getLoc();
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      Transposed next = *state.reshaped(shapeOf(reshape));
      next.context = state.context;
      state = std::move(next);
      value = ReshapeOp::create(
          b, loc, cast<RankedTensorType>(value.getType()).clone(state.input),
          value);
    } else {
      IRMapping mapping;
      for (Value operand : op->getOperands()) {
        if (operand == current) {
          mapping.map(operand, value);
          continue;
        }
        auto type = cast<RankedTensorType>(operand.getType());
        SmallVector<int64_t> shape =
            *untransposedOperand(state, type.getShape());
        mapping.map(operand,
                    ArrayRef<int64_t>(shape) == type.getShape()
                        ? operand
                        : ReshapeOp::create(b, loc, type.clone(shape), operand)
                              .getResult());
      }
      Operation *clone = b.clone(*op, mapping);
      auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
      clone->getResult(0).setType(resultType.clone(state.input));
      value = clone->getResult(0);
    }
    current = op->getResult(0);
  }
  inverse.getResult().replaceAllUsesWith(value);
  inverse.erase();
  for (Operation *op : llvm::reverse(path))
    op->erase();
  transpose.erase();
}

struct JeetCancelTransposesPass
    : public jeet::impl::JeetCancelTransposesPassBase<
          JeetCancelTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    // Transposes in program order; a cancelled pair erases a later one,
    // which is then skipped.
    SmallVector<TransposeOp> transposes;
    getOperation().walk([&](TransposeOp op) { transposes.push_back(op); });
    DenseSet<Operation *> erased;
    for (TransposeOp transpose : transposes) {
      if (erased.contains(transpose))
        continue;
      auto found = findCancellingPath(transpose);
      if (!found)
        continue;
      erased.insert(found->second);
      cancel(transpose, found->first, found->second);
    }
  }
};

} // namespace
