//===- FuzzMlirCpu.cpp - Fuzz target: parser, verifier, CPU pipeline ------===//
//
// Part of the Jeet project.
//
// MLIR text -> parse -> verify -> jeet-cpu-pipeline (to the LLVM dialect).
//
//===----------------------------------------------------------------------===//

#include "FuzzMlir.h"

#include "jeet/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  jeet::fuzz::runMlirInput(data, size, [](mlir::ModuleOp module) {
    mlir::PassManager pm =
        mlir::PassManager::on<mlir::ModuleOp>(module.getContext());
    jeet::CpuPipelineOptions options;
    jeet::buildJeetCpuPipeline(pm, options);
    (void)pm.run(module);
  });
  return 0;
}
