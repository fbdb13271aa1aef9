//===- MergeModules.cpp - All outlined kernels in one gpu.module ----------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The pass `jeet-gpu-merge-modules` runs after `gpu-kernel-outlining`, which
// makes one `gpu.module` per kernel: it moves every kernel (and the globals
// that the kernels read, once) into the first module, renamed
// `jeet_kernels` unless that name is taken, and points every `gpu.launch_func`
// at it, so that a graph is one PTX module, loaded once, with one `.entry` per
// kernel.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/GPU/Passes.h"

namespace jeet {
#define GEN_PASS_DEF_JEETGPUMERGEMODULESPASS
#include "jeet/Codegen/GPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

namespace {
struct JeetGpuMergeModulesPass
    : jeet::impl::JeetGpuMergeModulesPassBase<JeetGpuMergeModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.empty())
      return;
    gpu::GPUModuleOp target = gpuModules.front();
    SymbolTable targetSymbols(target);
    llvm::DenseMap<Attribute, SymbolRefAttr> renamed;
    // The merged module is named after what it holds.
    SymbolTable moduleSymbols(module);
    StringAttr targetName = StringAttr::get(&getContext(), "jeet_kernels");
    if (moduleSymbols.lookup(targetName))
      targetName = target.getNameAttr();
    for (Operation &op : target.getBody()->getOperations()) {
      if (auto symbol = dyn_cast<SymbolOpInterface>(op)) {
        auto name = FlatSymbolRefAttr::get(symbol.getNameAttr());
        renamed[SymbolRefAttr::get(target.getNameAttr(), {name})] =
            SymbolRefAttr::get(targetName, {name});
      }
    }
    for (gpu::GPUModuleOp source : ArrayRef(gpuModules).drop_front()) {
      if (source.getTargetsAttr() != target.getTargetsAttr()) {
        source.emitError("has other targets than @") << target.getName();
        return signalPassFailure();
      }
      for (Operation &op :
           llvm::make_early_inc_range(source.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol)
          continue;
        auto oldRef =
            SymbolRefAttr::get(source.getNameAttr(),
                               {FlatSymbolRefAttr::get(symbol.getNameAttr())});
        // Globals copied into several kernels are the same global.
        if (!isa<gpu::GPUFuncOp>(op) &&
            targetSymbols.lookup(symbol.getName())) {
          op.erase();
          continue;
        }
        op.remove();
        StringAttr name = targetSymbols.insert(&op);
        renamed[oldRef] =
            SymbolRefAttr::get(targetName, {FlatSymbolRefAttr::get(name)});
      }
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr newRef = renamed.lookup(launch.getKernel()))
        launch.setKernelAttr(newRef);
    });
    for (gpu::GPUModuleOp source : ArrayRef(gpuModules).drop_front())
      source.erase();
    if (targetName != target.getNameAttr())
      (void)moduleSymbols.rename(target, targetName);
  }
};
} // namespace
