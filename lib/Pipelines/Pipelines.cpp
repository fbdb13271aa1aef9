//===- Pipelines.cpp - Register the named pipelines -----------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void jeet::registerJeetPipelines() {
  PassPipelineRegistration<>(
      "jeet-bufferize-pipeline",
      "Bufferizes linalg on tensors: results become out-parameters, and "
      "every intermediate buffer is freed right after its last use",
      buildJeetBufferizePipeline);
  registerJeetCpuPipelines();
}
