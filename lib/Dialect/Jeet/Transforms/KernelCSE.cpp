//===- KernelCSE.cpp - CSE that hashes the bodies of kernels --------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// MLIR's CSE does not hash regions, so kernels that differ only in their
// bodies collide and are compared pairwise. Each op with regions gets a tag
// hashing its regions for the duration of CSE; see the pass description.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

#include <algorithm>

namespace jeet {
#define GEN_PASS_DEF_JEETKERNELCSEPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// The discardable attribute that carries the hash while CSE runs.
constexpr llvm::StringLiteral kBodyHashAttr = "jeet.body_hash";

/// A hash of the regions of `root` that equal ops (as CSE compares them)
/// share: values defined inside `root` by their position, values from
/// outside by their constant value, or else by their type alone.
uint64_t hashRegions(Operation *root) {
  llvm::DenseMap<Value, unsigned> position;
  llvm::hash_code hash = llvm::hash_value(root->getNumRegions());
  auto number = [&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        hash = llvm::hash_combine(hash, block.getNumArguments());
        for (BlockArgument argument : block.getArguments()) {
          position.try_emplace(argument, position.size());
          hash = llvm::hash_combine(hash, argument.getType());
        }
      }
  };
  auto hashValue = [&](Value value) -> llvm::hash_code {
    auto it = position.find(value);
    if (it != position.end())
      return llvm::hash_value(it->second);
    Attribute constant;
    if (matchPattern(value, m_Constant(&constant)))
      return hash_value(constant);
    return hash_value(value.getType());
  };
  number(root);
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == root)
      return;
    hash = llvm::hash_combine(hash, op->getName(), op->getRawDictionaryAttrs(),
                              op->hashProperties());
    for (Value operand : op->getOperands())
      hash = llvm::hash_combine(hash, hashValue(operand));
    for (OpResult result : op->getResults()) {
      position.try_emplace(result, position.size());
      hash = llvm::hash_combine(hash, result.getType());
    }
    number(op);
  });
  return static_cast<uint64_t>(static_cast<size_t>(hash));
}

struct JeetKernelCSEPass
    : jeet::impl::JeetKernelCSEPassBase<JeetKernelCSEPass> {
  using Base::Base;

  /// Ops with regions that CSE could merge: those of functions and modules
  /// are isolated and never equal to another.
  bool mayMerge(Operation *op) {
    return op != getOperation() && op->getNumRegions() != 0 &&
           !op->hasTrait<OpTrait::IsIsolatedFromAbove>();
  }

  /// The most ops with regions that CSE's own hash (the one its table uses)
  /// puts in one bucket: what it compared pairwise.
  void reportLargestBucket() {
    llvm::DenseMap<unsigned, unsigned> buckets;
    unsigned largest = 0;
    unsigned candidates = 0;
    getOperation()->walk([&](Operation *op) {
      if (!mayMerge(op))
        return;
      unsigned hash = OperationEquivalence::computeHash(
          op, OperationEquivalence::directHashValue,
          OperationEquivalence::ignoreHashValue,
          OperationEquivalence::IgnoreLocations);
      ++candidates;
      largest = std::max(largest, ++buckets[hash]);
    });
    emitRemark(getOperation()->getLoc())
        << "largest CSE bucket: " << largest << " of " << candidates
        << " ops with regions";
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *context = &getContext();
    auto name = StringAttr::get(context, kBodyHashAttr);
    auto i64 = IntegerType::get(context, 64);
    root->walk([&](Operation *op) {
      if (mayMerge(op))
        op->setAttr(
            name, IntegerAttr::get(i64, static_cast<int64_t>(hashRegions(op))));
    });
    IRRewriter rewriter(context);
    bool changed = false;
    eliminateCommonSubExpressions(rewriter, getAnalysis<DominanceInfo>(), root,
                                  &changed);
    if (reportBuckets)
      reportLargestBucket();
    root->walk([&](Operation *op) { op->removeAttr(name); });
    if (!changed)
      markAllAnalysesPreserved();
  }
};

} // namespace
