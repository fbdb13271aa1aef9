//===- CancelTransposes.cpp - Transposes moved down to their inverses -----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cancel-transposes moves a transpose below the elementwise ops and
// reshapes that read it, and those that read them, where they all end in a
// transpose that undoes it: both then disappear. A convolution computed
// transposed (positions as the matmul's rows) ends in a transpose back to
// NCHW, and a depthwise one computed channels last starts with a transpose
// to NHWC; between them are the bias, the activation and a reshape.
//
// Only ops that all end in the inverse transpose are rewritten, so no
// transpose is added anywhere: every reader of every value between the two
// is one of those ops (several readers join again before the inverse: a
// hardswish reads its input twice), the elementwise ops keep their shape,
// and every other operand of theirs has at most one dimension that is not
// 1 (a bias: reshaped to the transposed position, a view). A reshape
// between them must only split dimensions of the transposed value or only
// merge dimensions that the transpose keeps in order next to each other.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetOps.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

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
    Transposed next;
    if (to.size() > from.size()) {
      // The groups of `to`'s dimensions that split each of `from`'s.
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForCollapse(to, from);
      if (!groups)
        return std::nullopt;
      // Input dimension d is transposed dimension i = inverse[d], split
      // into the sizes of group i.
      SmallVector<int64_t> inverse(perm.size());
      for (auto [i, p] : llvm::enumerate(perm))
        inverse[p] = i;
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
          getReassociationIndicesForCollapse(from, to);
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
  // All ones (a scalar): it broadcasts the same way either side.
  if (llvm::all_of(shape, [](int64_t d) { return d == 1; }))
    return llvm::to_vector(shape);
  int64_t missing = rank - shape.size();
  SmallVector<int64_t> result(rank, 1);
  for (int64_t i = missing; i < rank; ++i)
    result[t.perm[i]] = shape[i - missing];
  return result;
}

/// The ops between `transpose` and a transpose that undoes it, in program
/// order, the transpose's state at each value they compute, and that
/// transpose.
struct Cancellation {
  SmallVector<Operation *> ops;
  DenseMap<Value, Transposed> states;
  TransposeOp inverse;
};

/// The ops that read `transpose`'s result, and what they compute, down to
/// one transpose that undoes it: elementwise ops (keeping the shape) and
/// reshapes whose every result is read, by such ops or by that transpose
/// alone. Several readers of a value are fine where they join again before
/// the transpose (x * hardsigmoid(x)). Nothing where there is no such
/// transpose, where any reader is another op, or where an elementwise op
/// reads two of those values in different states.
std::optional<Cancellation> findCancellation(TransposeOp transpose) {
  if (!transpose.getInput().getType().hasStaticShape())
    return std::nullopt;
  Block *block = transpose->getBlock();
  // The ops reached from the transpose by their operands.
  llvm::SetVector<Operation *> reached;
  TransposeOp inverse;
  SmallVector<Value> worklist = {transpose.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (value.use_empty())
      return std::nullopt;
    for (Operation *user : value.getUsers()) {
      if (user->getBlock() != block)
        return std::nullopt;
      if (auto next = dyn_cast<TransposeOp>(user)) {
        if (inverse && inverse != next)
          return std::nullopt;
        inverse = next;
        continue;
      }
      bool elementwise =
          isa<ElementwiseOpInterface>(user) && user->getNumResults() == 1;
      auto reshape = dyn_cast<ReshapeOp>(user);
      if (!elementwise && !(reshape && reshape.getType().hasStaticShape()))
        return std::nullopt;
      if (reached.insert(user))
        worklist.push_back(user->getResult(0));
    }
  }
  if (!inverse)
    return std::nullopt;
  Cancellation result;
  result.inverse = inverse;
  result.ops = reached.takeVector();
  llvm::sort(result.ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  result.states[transpose.getResult()] =
      Transposed{llvm::to_vector(shapeOf(transpose.getInput())),
                 llvm::to_vector(transpose.getPermutation())};
  for (Operation *op : result.ops) {
    // The state of the values it reads from the transpose, all the same
    // (reshapes that pass keep one layout per shape: checked all the same).
    std::optional<Transposed> state;
    for (Value operand : op->getOperands()) {
      auto it = result.states.find(operand);
      if (it == result.states.end())
        continue;
      if (state &&
          (state->input != it->second.input || state->perm != it->second.perm))
        return std::nullopt;
      state = it->second;
    }
    if (!state)
      return std::nullopt;
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      std::optional<Transposed> next = state->reshaped(shapeOf(reshape));
      if (!next)
        return std::nullopt;
      result.states[reshape.getResult()] = std::move(*next);
      continue;
    }
    if (shapeOf(op->getResult(0)) != ArrayRef<int64_t>(state->shape()))
      return std::nullopt;
    for (Value operand : op->getOperands())
      if (!result.states.count(operand) &&
          !untransposedOperand(*state, shapeOf(operand)))
        return std::nullopt;
    result.states[op->getResult(0)] = *state;
  }
  auto it = result.states.find(inverse.getInput());
  if (it == result.states.end())
    return std::nullopt;
  for (auto [i, p] : llvm::enumerate(inverse.getPermutation()))
    if (it->second.perm[p] != int64_t(i))
      return std::nullopt;
  return result;
}

/// Recomputes the ops between the transpose and its inverse on the
/// transpose's input, untransposed, and replaces the inverse.
void cancel(TransposeOp transpose, const Cancellation &found) {
  OpBuilder b(found.inverse);
  IRMapping values;
  values.map(transpose.getResult(), transpose.getInput());
  for (Operation *op : found.ops) {
    Location loc = op->getLoc();
    const Transposed &state = found.states.at(op->getResult(0));
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      Value input = values.lookup(reshape.getInput());
      values.map(reshape.getResult(),
                 ReshapeOp::create(
                     b, loc,
                     cast<RankedTensorType>(input.getType()).clone(state.input),
                     input));
      continue;
    }
    IRMapping mapping;
    for (Value operand : op->getOperands()) {
      if (Value mapped = values.lookupOrNull(operand)) {
        mapping.map(operand, mapped);
        continue;
      }
      auto type = cast<RankedTensorType>(operand.getType());
      SmallVector<int64_t> shape = *untransposedOperand(state, type.getShape());
      mapping.map(operand,
                  ArrayRef<int64_t>(shape) == type.getShape()
                      ? operand
                      : ReshapeOp::create(b, loc, type.clone(shape), operand)
                            .getResult());
    }
    Operation *clone = b.clone(*op, mapping);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    clone->getResult(0).setType(resultType.clone(state.input));
    values.map(op->getResult(0), clone->getResult(0));
  }
  TransposeOp inverse = found.inverse;
  inverse.getResult().replaceAllUsesWith(values.lookup(inverse.getInput()));
  inverse.erase();
  for (Operation *op : llvm::reverse(found.ops))
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
      std::optional<Cancellation> found = findCancellation(transpose);
      if (!found)
        continue;
      erased.insert(found->inverse);
      cancel(transpose, *found);
    }
  }
};

} // namespace
