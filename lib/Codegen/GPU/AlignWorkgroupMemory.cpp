//===- AlignWorkgroupMemory.cpp - 16-byte aligned workgroup memory --------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The pass `jeet-gpu-align-workgroup-memory` runs on the outlined kernels:
// each workgroup attribution of a `gpu.func` gets `llvm.align` = kVectorBytes
// (or keeps a larger alignment it has), which `convert-gpu-to-nvvm` gives the
// shared-memory global (`.shared .align 16`). Without it the global has its
// element's alignment, and the 16-byte vector accesses that
// jeet-gpu-map-kernels emits for a tile's buffers in workgroup memory
// (VectorAccess.cpp) would be misaligned. The emulator places each
// attribution at a multiple of 16 bytes of its block's shared memory on its
// own (KernelsToFunctions.cpp).
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "jeet/Codegen/GPU/Passes.h"

namespace jeet {
#define GEN_PASS_DEF_JEETGPUALIGNWORKGROUPMEMORYPASS
#include "jeet/Codegen/GPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

namespace {
struct JeetGpuAlignWorkgroupMemoryPass
    : jeet::impl::JeetGpuAlignWorkgroupMemoryPassBase<
          JeetGpuAlignWorkgroupMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    StringRef alignName = LLVM::LLVMDialect::getAlignAttrName();
    Builder builder(&getContext());
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>()) {
      for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e; ++i) {
        auto current = dyn_cast_or_null<IntegerAttr>(
            func.getWorkgroupAttributionAttr(i, alignName));
        if (current && current.getInt() >= gpu_codegen::kVectorBytes)
          continue;
        func.setWorkgroupAttributionAttr(
            i, alignName, builder.getI64IntegerAttr(gpu_codegen::kVectorBytes));
      }
    }
  }
};
} // namespace
