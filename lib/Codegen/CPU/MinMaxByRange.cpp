//===- MinMaxByRange.cpp - maximumf/minimumf trees as vrangeps ------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// IEEE maximum and minimum (`arith.maximumf`, `arith.minimumf`) have no x86
// instruction: `vmaxps` returns its second operand when either is NaN and
// orders -0 and +0 as equal, so LLVM lowers each to six instructions.
// AVX-512DQ's `vrangeps` orders -0 below +0 in one instruction but returns
// the other operand of a quiet NaN; a tree of maxima (a max pooling's
// window, a reduction's steps) is then its nodes as `vrangeps` and one NaN
// test of its leaves, two at a time. See the pass description.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

#include <cmath>

namespace jeet {
#define GEN_PASS_DEF_JEETCPUMINMAXBYRANGEPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// vrangeps's immediate: bits 1:0 select the maximum (01) or the minimum
/// (00), bits 3:2 take the sign from the comparison (01).
constexpr int32_t kRangeMaximum = 5;
constexpr int32_t kRangeMinimum = 4;
/// The rounding operand that leaves MXCSR's mode (no embedded rounding).
constexpr int32_t kCurrentDirection = 4;

bool isMinMax(Operation *op) {
  return isa<arith::MaximumFOp, arith::MinimumFOp>(op);
}

/// The intrinsic for vectors of `type`, or empty (not 4, 8 or 16 f32).
StringRef rangeIntrinsic(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || vector.getRank() != 1 || vector.isScalable() ||
      !vector.getElementType().isF32())
    return {};
  switch (vector.getDimSize(0)) {
  case 4:
    return "llvm.x86.avx512.mask.range.ps.128";
  case 8:
    return "llvm.x86.avx512.mask.range.ps.256";
  case 16:
    return "llvm.x86.avx512.mask.range.ps.512";
  default:
    return {};
  }
}

/// Whether `value` is a constant, or a constant broadcast to a vector.
bool isConstantSplat(Value value) {
  if (auto broadcast = value.getDefiningOp<vector::BroadcastOp>())
    value = broadcast.getSource();
  return matchPattern(value, m_Constant());
}

/// Whether `op` is an interior node of a tree: its one use is by an op of
/// its kind in its block.
bool isInterior(Operation *op) {
  if (!op->hasOneUse())
    return false;
  Operation *user = *op->getUsers().begin();
  return user->getName() == op->getName() && user->getBlock() == op->getBlock();
}

struct TreeRewriter {
  OpBuilder &b;
  Location loc;
  StringRef intrinsic;
  Value immediate, allLanes, rounding, poison;
  SmallVector<Value> leaves;
  llvm::SmallPtrSet<Operation *, 16> nodes;

  /// The node `value` of the tree as vrangeps of its operands; its leaves
  /// collected in order.
  Value build(Value value, OperationName kind) {
    Operation *op = value.getDefiningOp();
    if (!op || op->getName() != kind || !nodes.contains(op)) {
      leaves.push_back(value);
      return value;
    }
    Value lhs = build(op->getOperand(0), kind);
    Value rhs = build(op->getOperand(1), kind);
    SmallVector<Value> operands = {lhs, rhs, immediate, poison, allLanes};
    // Only the 512-bit form takes a rounding (exceptions) operand.
    if (rounding)
      operands.push_back(rounding);
    return LLVM::CallIntrinsicOp::create(b, loc, value.getType(),
                                         b.getStringAttr(intrinsic), operands)
        .getResult(0);
  }
};

/// Collects the tree whose root is `root` (nodes of its kind used once, by
/// the next node).
void collectTree(Operation *root, llvm::SmallPtrSetImpl<Operation *> &nodes) {
  nodes.insert(root);
  for (Value operand : root->getOperands()) {
    Operation *def = operand.getDefiningOp();
    if (def && def->getName() == root->getName() &&
        def->getBlock() == root->getBlock() && isInterior(def))
      collectTree(def, nodes);
  }
}

struct JeetCpuMinMaxByRangePass
    : jeet::impl::JeetCpuMinMaxByRangePassBase<JeetCpuMinMaxByRangePass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (target != "avx512" && target != "none" && target != "host")
      return emitError(UnknownLoc::get(context))
             << "jeet-cpu-minmax-by-range: unknown target '" << target
             << "' (expected avx512, none or host)";
    return success();
  }

  bool enabled() const {
    if (target != "host")
      return target == "avx512";
    static const bool host = [] {
      llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
      return features.lookup("avx512dq") && features.lookup("avx512vl");
    }();
    return host;
  }

  void runOnOperation() override {
    if (!enabled())
      return;
    SmallVector<Operation *> roots;
    getOperation().walk([&](Operation *op) {
      if (isMinMax(op) && !rangeIntrinsic(op->getResult(0).getType()).empty() &&
          !isInterior(op))
        roots.push_back(op);
    });
    for (Operation *root : roots) {
      // A single node with a constant operand (a relu's max with 0, a
      // clip's bounds): LLVM's lowering is three instructions already, and
      // the select's NaN would be one more constant register in a matmul
      // tile's epilogue (resnet50 4% slower whole).
      llvm::SmallPtrSet<Operation *, 16> nodes;
      collectTree(root, nodes);
      if (nodes.size() == 1 &&
          llvm::any_of(root->getOperands(), isConstantSplat))
        continue;
      Location loc = root->getLoc();
      OpBuilder b(root);
      Type type = root->getResult(0).getType();
      auto vectorType = cast<VectorType>(type);
      TreeRewriter tree{b, loc, rangeIntrinsic(type)};
      tree.immediate = LLVM::ConstantOp::create(
          b, loc, b.getI32Type(),
          isa<arith::MaximumFOp>(root) ? kRangeMaximum : kRangeMinimum);
      tree.allLanes = LLVM::ConstantOp::create(
          b, loc,
          b.getIntegerType(std::max<int64_t>(8, vectorType.getDimSize(0))), -1);
      if (vectorType.getDimSize(0) == 16)
        tree.rounding =
            LLVM::ConstantOp::create(b, loc, b.getI32Type(), kCurrentDirection);
      tree.poison = LLVM::PoisonOp::create(b, loc, type);
      tree.nodes = std::move(nodes);
      Value value = tree.build(root->getResult(0), root->getName());
      // Any leaf's NaN, two leaves a test.
      Value anyNaN;
      for (size_t i = 0; i < tree.leaves.size(); i += 2) {
        Value other =
            i + 1 < tree.leaves.size() ? tree.leaves[i + 1] : tree.leaves[i];
        Value test = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                           tree.leaves[i], other);
        anyNaN = anyNaN ? arith::OrIOp::create(b, loc, anyNaN, test) : test;
      }
      Value nan = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(
              vectorType, b.getFloatAttr(vectorType.getElementType(), NAN)));
      Value result = arith::SelectOp::create(b, loc, anyNaN, nan, value);
      root->getResult(0).replaceAllUsesWith(result);
      // The tree, root first.
      SmallVector<Operation *> dead(tree.nodes.begin(), tree.nodes.end());
      llvm::sort(dead, [](Operation *x, Operation *y) {
        return y->isBeforeInBlock(x);
      });
      for (Operation *op : dead)
        op->erase();
    }
  }
};

} // namespace
