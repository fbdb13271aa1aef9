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

void jeet::registerAllJeetDialects(mlir::DialectRegistry &registry) {
  registry.insert<jeet::JeetDialect, jeet::emu::JeetEmuDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
}

void jeet::registerAllJeetPasses() {
  mlir::registerAllPasses();
  jeet::registerJeetPasses();
  jeet::registerJeetConversionPasses();
  jeet::registerJeetPipelines();
  jeet::registerJeetGpuPipelines();
  jeet::registerJeetGpuEmulatorPasses();
  jeet::registerJeetEmulatorTargetPasses();
}
