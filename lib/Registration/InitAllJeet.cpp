//===- InitAllJeet.cpp - Register everything Jeet defines -----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/InitAllJeet.h"

#include "jeet/Conversion/Passes.h"
#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"
#include "jeet/Pipelines/GpuPipeline.h"
#include "jeet/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void jeet::registerAllJeetDialects(mlir::DialectRegistry &registry) {
  registerJeetCompilerDialects(registry);
  // The self-contained Python extension links MLIR and LLVM into itself:
  // there, what is not registered is left out of the binary.
#ifndef JEET_REGISTER_COMPILER_DIALECTS_ONLY
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
#endif
}

void jeet::registerAllJeetPasses() {
  mlir::registerAllPasses();
  jeet::registerJeetPasses();
  jeet::registerJeetConversionPasses();
  jeet::registerJeetPipelines();
  jeet::registerJeetGpuPipelines();
}
