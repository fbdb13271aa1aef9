//===- InitAllJeet.cpp - Register everything Jeet defines -----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/InitAllJeet.h"

#include "jeet/Codegen/GPU/Emulator/Passes.h"
#include "jeet/Conversion/Passes.h"
#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"
#include "jeet/Pipelines/GpuPipeline.h"
#include "jeet/Pipelines/Pipelines.h"
#include "jeet/Target/Emulator/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

// The self-contained Python extension (JEET_STATIC_LLVM) defines this in
// CompilerDialects.cpp instead, apart from registerAllJeetPasses, so that
// linking it pulls in neither every upstream dialect nor every pass.
#ifndef JEET_REGISTER_COMPILER_DIALECTS_ONLY
void jeet::registerAllJeetDialects(mlir::DialectRegistry &registry) {
  registerJeetCompilerDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
}
#endif

void jeet::registerAllJeetPasses() {
  mlir::registerAllPasses();
  jeet::registerJeetPasses();
  jeet::registerJeetConversionPasses();
  jeet::registerJeetPipelines();
  jeet::registerJeetGpuPipelines();
  jeet::registerJeetGpuEmulatorPasses();
  jeet::registerJeetEmulatorTargetPasses();
}
