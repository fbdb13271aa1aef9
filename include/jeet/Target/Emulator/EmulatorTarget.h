//===- EmulatorTarget.h - The GPU emulation target --------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// The `jeet_emu` dialect and its `#jeet_emu.target` attribute: the GPU
// target whose gpu.binary objects are host shared objects for the CUDA driver
// emulator (include/jeet/Emulator/KernelABI.h).
//
//===----------------------------------------------------------------------===//

#ifndef JEET_TARGET_EMULATOR_EMULATORTARGET_H
#define JEET_TARGET_EMULATOR_EMULATORTARGET_H

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/Dialect.h"

#include "jeet/Target/Emulator/EmulatorTargetDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "jeet/Target/Emulator/EmulatorTargetAttrs.h.inc"

#endif // JEET_TARGET_EMULATOR_EMULATORTARGET_H
