//===- Passes.h - GPU emulation target passes -------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_TARGET_EMULATOR_PASSES_H
#define JEET_TARGET_EMULATOR_PASSES_H

#include "jeet/Target/Emulator/EmulatorTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace jeet {

#define GEN_PASS_DECL
#include "jeet/Target/Emulator/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "jeet/Target/Emulator/Passes.h.inc"

} // namespace jeet

#endif // JEET_TARGET_EMULATOR_PASSES_H
