//===- AttachTarget.cpp - jeet-emulator-attach-target ---------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Target/Emulator/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace jeet {
#define GEN_PASS_DEF_JEETEMULATORATTACHTARGETPASS
#include "jeet/Target/Emulator/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {
struct AttachTargetPass
    : public jeet::impl::JeetEmulatorAttachTargetPassBase<AttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    auto target =
        jeet::emu::TargetAttr::get(&getContext(), static_cast<int>(optLevel));
    Builder builder(&getContext());
    // The module is compiled for one target: the emulator replaces any other.
    getOperation().walk([&](gpu::GPUModuleOp module) {
      module.setTargetsAttr(builder.getArrayAttr({target}));
    });
  }
};
} // namespace
