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

namespace {

/// The GPU pipeline to PTX. translateJeetToPTX builds its staged pipeline per
/// call; the time goes to the NVPTX back end, not to building it.
class PtxCompiler : public jeet::fuzz::GraphCompiler {
public:
  void compile(mlir::ModuleOp module) override {
    jeet::GpuPipelineOptions options;
    options.format = "isa";
    (void)jeet::translateJeetToPTX(module, llvm::nulls(), options);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  jeet::fuzz::runMlirInput(data, size, [](mlir::MLIRContext &) {
    return std::make_unique<PtxCompiler>();
  });
  return 0;
}
