//===- Passes.h - Kernel code generation for the emulator -------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CODEGEN_GPU_EMULATOR_PASSES_H
#define JEET_CODEGEN_GPU_EMULATOR_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace jeet {

#define GEN_PASS_DECL
#include "jeet/Codegen/GPU/Emulator/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "jeet/Codegen/GPU/Emulator/Passes.h.inc"

} // namespace jeet

#endif // JEET_CODEGEN_GPU_EMULATOR_PASSES_H
