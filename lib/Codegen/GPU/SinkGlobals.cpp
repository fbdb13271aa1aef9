//===- SinkGlobals.cpp - Kernels read their globals from the device ------===//
//
// Part of the Jeet project.
//
// A constant tensor a kernel reads is a memref.global of the host module.
// Each gpu.launch gets its own memref.get_global of it, which
// gpu-kernel-outlining then takes into the kernel's gpu.module (device
// memory) instead of passing the host's address as an argument. It runs
// right before the outlining: CSE merges a clone made earlier with an
// identical get_global above the launch.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace jeet {
#define GEN_PASS_DEF_JEETGPUSINKGLOBALSPASS
#include "jeet/Codegen/GPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

struct SinkGlobalsPass
    : public jeet::impl::JeetGpuSinkGlobalsPassBase<SinkGlobalsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](gpu::LaunchOp launch) {
      llvm::SetVector<Value> usedAbove;
      getUsedValuesDefinedAbove(launch.getBody(), usedAbove);
      for (Value value : usedAbove) {
        auto global = value.getDefiningOp<memref::GetGlobalOp>();
        if (!global)
          continue;
        rewriter.setInsertionPointToStart(&launch.getBody().front());
        Operation *clone = rewriter.clone(*global);
        rewriter.replaceUsesWithIf(
            value, clone->getResult(0), [&](OpOperand &use) {
              return launch->isProperAncestor(use.getOwner());
            });
      }
    });
  }
};

} // namespace
