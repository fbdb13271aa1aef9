//===- SinkGlobals.cpp - Kernels read their globals from the device ------===//
//
// Part of the Jeet project.
//
// A constant tensor a kernel reads is a memref.global of the host module.
// Each gpu.launch gets its own memref.get_global of it, which
// gpu-kernel-outlining then takes into the kernel's gpu.module (device
// memory) instead of passing the host's address as an argument; so do the
// views of a global that a kernel reads (a constant filter's taps: subviews
// and reshapes), cloned into the launch with their get_global. It
// runs right before the outlining: CSE merges a clone made earlier with an
// identical get_global above the launch.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace jeet {
#define GEN_PASS_DEF_JEETGPUSINKGLOBALSPASS
#include "jeet/Codegen/GPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// The ops that make `value` from a memref.get_global, the get_global first:
/// views (ViewLikeOpInterface) of it, which the kernel can make itself (any
/// other operand of theirs, a dynamic offset, is defined above the launch
/// and becomes an argument of the kernel, as the address would have).
/// Empty if `value` is not such a view of a global.
SmallVector<Operation *> viewOfGlobal(Value value) {
  SmallVector<Operation *> chain;
  while (Operation *op = value.getDefiningOp()) {
    chain.push_back(op);
    if (isa<memref::GetGlobalOp>(op)) {
      std::reverse(chain.begin(), chain.end());
      return chain;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(op);
    if (!view || op->getNumResults() != 1)
      return {};
    value = view.getViewSource();
  }
  return {};
}

struct SinkGlobalsPass
    : public jeet::impl::JeetGpuSinkGlobalsPassBase<SinkGlobalsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](gpu::LaunchOp launch) {
      llvm::SetVector<Value> usedAbove;
      getUsedValuesDefinedAbove(launch.getBody(), usedAbove);
      for (Value value : usedAbove) {
        SmallVector<Operation *> chain = viewOfGlobal(value);
        if (chain.empty())
          continue;
        rewriter.setInsertionPointToStart(&launch.getBody().front());
        IRMapping mapping;
        for (Operation *op : chain)
          rewriter.clone(*op, mapping);
        rewriter.replaceUsesWithIf(
            value, mapping.lookup(value), [&](OpOperand &use) {
              return launch->isProperAncestor(use.getOwner());
            });
      }
    });
  }
};

} // namespace
