//===- Passes.td - GPU emulation target passes -------------*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_TARGET_EMULATOR_PASSES_TD
#define JEET_TARGET_EMULATOR_PASSES_TD

include "mlir/Pass/PassBase.td"

def JeetEmulatorAttachTargetPass
    : Pass<"jeet-emulator-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attaches the GPU emulation target to every gpu.module";
  let description = [{
    The emulation target's counterpart of `nvvm-attach-target`: sets the
    targets of every `gpu.module` to `#jeet_emu.target` (which prints its
    optimisation level `O` when it is not the default 3), so that
    `gpu-module-to-binary` compiles it into a host shared object for the
    CUDA driver emulator. The module's kernels must have been lowered with
    `jeet-gpu-lower-to-emulator` by then.

    Before:
    ```mlir
    gpu.module @kernels { ... }
    ```
    After:
    ```mlir
    gpu.module @kernels [#jeet_emu.target] { ... }
    ```
  }];
  let options = [
    Option<"optLevel", "O", "unsigned", /*default=*/"3",
           "LLVM optimisation level of the kernels">,
  ];
  let dependentDialects = ["::jeet::emu::JeetEmuDialect"];
}

#endif // JEET_TARGET_EMULATOR_PASSES_TD
