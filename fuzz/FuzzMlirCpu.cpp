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

namespace {

/// The CPU pipeline, built once per context.
class CpuPipelineCompiler : public jeet::fuzz::GraphCompiler {
public:
  explicit CpuPipelineCompiler(mlir::MLIRContext &context)
      : pm(mlir::PassManager::on<mlir::ModuleOp>(&context)) {
    jeet::CpuPipelineOptions options;
    jeet::buildJeetCpuPipeline(pm, options);
  }

  void compile(mlir::ModuleOp module) override { (void)pm.run(module); }

private:
  mlir::PassManager pm;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  jeet::fuzz::runMlirInput(data, size, [](mlir::MLIRContext &context) {
    return std::make_unique<CpuPipelineCompiler>(context);
  });
  return 0;
}
