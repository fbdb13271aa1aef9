//===- EmulatorTarget.td - The GPU emulation target --------*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_TARGET_EMULATOR_EMULATORTARGET_TD
#define JEET_TARGET_EMULATOR_EMULATORTARGET_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Dialect/GPU/IR/CompilationAttrInterfaces.td"

def JeetEmu_Dialect : Dialect {
  let name = "jeet_emu";
  let summary = "The GPU emulation target: kernels compiled for the host";
  let description = [{
    Holds `#jeet_emu.target`, the GPU target attribute of the emulation
    target. A `gpu.module` whose kernels were lowered for the host by
    `jeet-gpu-lower-to-emulator` carries it (attached by
    `jeet-emulator-attach-target`), and upstream `gpu-module-to-binary` then
    asks it for the module's object: a host ELF shared object that
    `libjeet_cuda_emulator.so`, a stand-in for the CUDA driver, loads and
    runs thread by thread. `include/jeet/Emulator/KernelABI.h` is the
    contract between the object and the emulator.
  }];
  let cppNamespace = "::jeet::emu";
  let useDefaultAttributePrinterParser = 1;
}

def JeetEmu_TargetAttr : AttrDef<JeetEmu_Dialect, "Target",
    [DeclareAttrInterfaceMethods<GPUTargetAttrInterface>]> {
  let mnemonic = "target";
  let summary = "Compiles a gpu.module for the host CPU, to run on the "
                "CUDA driver emulator";
  let description = [{
    `serializeToObject` translates the `gpu.module` (already in the LLVM
    dialect, with the kernel ABI of `jeet-gpu-lower-to-emulator`) to LLVM
    IR, optimises it at level `O` and emits an object for the host CPU (the
    CPU and features the JIT uses), then links it into an ELF shared object
    with the system's linker (`ld.lld`, else `ld`). The `gpu.object` it
    makes holds that shared object (`bin`); with
    `gpu-module-to-binary{format=isa}` it holds the host assembly instead,
    for reading. Math functions the kernels call (`expf`, `tanhf`, ...)
    stay undefined in the shared object and resolve against the process's
    libm when the emulator loads it.

    ```mlir
    gpu.module @kernels [#jeet_emu.target<O = 3>] {
      llvm.func @k(%arg0: !llvm.ptr) attributes {gpu.kernel} { ... }
      llvm.func @__jeet_emu_kernel_k(%params: !llvm.ptr) { ... }
    }
    // gpu-module-to-binary:
    gpu.binary @kernels [#gpu.object<#jeet_emu.target<O = 3>, bin = "\7FELF...">]
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"int", "3", "LLVM optimisation level">:$O
  );
  let assemblyFormat = [{ (`<` struct($O)^ `>`)? }];
}

#endif // JEET_TARGET_EMULATOR_EMULATORTARGET_TD
