//===- FreezeInvariantLoads.cpp - Freeze loads invariant in their loop ----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-freeze-invariant-loads: a scalar `memref.load` that reads the
// same element on every iteration of the innermost loop around it gets an
// `llvm.freeze` (not an accumulator the loop writes, nor a load in a loop of
// vectors).
// LLVM 22's loop vectorizer asks of each value computed from such loads
// alone whether it is one scalar for all lanes, recursing into every
// operand without remembering the answers: exponential in the depth of a
// computation whose steps use a value twice. A freeze is not such a scalar,
// so the recursion stops there (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUFREEZEINVARIANTLOADSPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// Whether LLVM's loop vectorizer would take `value` as the same in every
/// lane of `loop`: defined outside it, loaded in it from the same element
/// on every iteration, or computed in it from such values by ops without
/// memory effects or regions.
static bool isInvariant(Value value, LoopLikeOpInterface loop,
                        llvm::DenseMap<Value, bool> &known) {
  if (loop.isDefinedOutsideOfLoop(value))
    return true;
  if (auto it = known.find(value); it != known.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  bool invariant = def && def->getNumRegions() == 0 &&
                   (isMemoryEffectFree(def) || isa<memref::LoadOp>(def)) &&
                   llvm::all_of(def->getOperands(), [&](Value operand) {
                     return isInvariant(operand, loop, known);
                   });
  known[value] = invariant;
  return invariant;
}

/// The buffer that `memref` views.
static Value rootOf(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// Whether `loop` may write the buffer of `root`: a load from it is then not
/// the same value on every iteration (an accumulator), and LLVM must still
/// see its reduction unfrozen.
static bool mayWrite(LoopLikeOpInterface loop, Value root) {
  WalkResult result = loop->walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
                     isMemoryEffectFree(op)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> all;
    effects.getEffects(all);
    for (const MemoryEffects::EffectInstance &effect : all)
      if (isa<MemoryEffects::Write>(effect.getEffect()) &&
          (!effect.getValue() || rootOf(effect.getValue()) == root))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `loop` computes on vectors: LLVM's loop vectorizer leaves such
/// a loop alone, and a freeze between a load and its broadcast would only
/// keep instruction selection from folding the two.
static bool hasVectors(LoopLikeOpInterface loop) {
  return loop
      ->walk([](Operation *op) {
        return llvm::any_of(op->getResultTypes(), llvm::IsaPred<VectorType>)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct JeetCpuFreezeInvariantLoadsPass
    : public jeet::impl::JeetCpuFreezeInvariantLoadsPassBase<
          JeetCpuFreezeInvariantLoadsPass> {
  using Base::Base;

  void runOnOperation() override {
    llvm::DenseMap<Operation *, llvm::DenseMap<Value, bool>> knownPerLoop;
    llvm::DenseMap<std::pair<Operation *, Value>, bool> written;
    llvm::DenseMap<Operation *, bool> vectorLoops;
    getOperation().walk([&](memref::LoadOp load) {
      auto loop = load->getParentOfType<LoopLikeOpInterface>();
      if (!loop || !LLVM::isCompatibleType(load.getType()))
        return;
      auto [vectors, first] = vectorLoops.try_emplace(loop, false);
      if (first)
        vectors->second = hasVectors(loop);
      if (vectors->second)
        return;
      llvm::DenseMap<Value, bool> &known = knownPerLoop[loop];
      if (!isInvariant(load.getResult(), loop, known))
        return;
      Value root = rootOf(load.getMemRef());
      auto [it, inserted] = written.try_emplace({loop, root}, false);
      if (inserted)
        it->second = mayWrite(loop, root);
      if (it->second)
        return;
      OpBuilder builder(load->getContext());
      builder.setInsertionPointAfter(load);
      auto frozen = LLVM::FreezeOp::create(builder, load.getLoc(), load);
      load.getResult().replaceAllUsesExcept(frozen, frozen);
    });
  }
};

} // namespace
