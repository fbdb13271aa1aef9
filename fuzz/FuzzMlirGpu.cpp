//===- FuzzMlirGpu.cpp - Fuzz target: parser, verifier, GPU pipeline ------===//
//
// Part of the Jeet project.
//
// MLIR text -> parse -> verify -> jeet-gpu-pipeline up to PTX (format=isa:
// the NVPTX backend runs, ptxas does not).
//
//===----------------------------------------------------------------------===//

#include "FuzzMlir.h"

#include "jeet/Pipelines/GpuPipeline.h"

#include "llvm/Support/raw_ostream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  jeet::fuzz::runMlirInput(data, size, [](mlir::ModuleOp module) {
    jeet::GpuPipelineOptions options;
    options.format = "isa";
    (void)jeet::translateJeetToPTX(module, llvm::nulls(), options);
  });
  return 0;
}
