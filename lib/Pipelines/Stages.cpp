//===- Stages.cpp - The stages every device shares ------------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Pipelines/Stages.h"

#include "jeet/Conversion/Passes.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void jeet::StagedPipeline::build(OpPassManager &pm,
                                 llvm::StringRef last) const {
  for (const PipelineStage &stage : stages) {
    stage.build(pm);
    if (stage.name == last)
      return;
  }
}

std::vector<std::string> jeet::StagedPipeline::stageNames() const {
  std::vector<std::string> names = {stage::kInput.str()};
  for (const PipelineStage &stage : stages)
    names.push_back(stage.name);
  for (const PipelineProduct &product : products)
    names.push_back(product.name);
  return names;
}

void jeet::buildJeetGraphPipeline(OpPassManager &pm, bool fuse,
                                  int64_t maxFusionOps, bool multiReduction,
                                  int64_t maxRowBytes,
                                  int64_t attentionBlockBytes,
                                  bool transposedEpilogues) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createJeetDecomposePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // A convolution computed transposed next to a depthwise one computed
  // channels last: the transposes back and forth between them go.
  pm.addNestedPass<func::FuncOp>(createJeetCancelTransposesPass());
  // A matmul's epilogue behind a reshape (a convolution's bias and
  // activation) joins the matmul's group once the reshape follows it.
  pm.addNestedPass<func::FuncOp>(createJeetSinkReshapesPass());
  JeetFusePassOptions fuseOptions;
  fuseOptions.enable = fuse;
  fuseOptions.maxOps = maxFusionOps;
  fuseOptions.multiReduction = multiReduction;
  fuseOptions.maxRowBytes = maxRowBytes;
  fuseOptions.attentionBlockBytes = attentionBlockBytes;
  fuseOptions.transposedEpilogues = transposedEpilogues;
  pm.addNestedPass<func::FuncOp>(createJeetFusePass(fuseOptions));
}

void jeet::buildJeetLowerToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createJeetLowerToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  // CSE that hashes the kernels' bodies: N kernels on the same (merged)
  // operands that differ only in a captured constant were compared pairwise.
  pm.addPass(createJeetKernelCSEPass());
}

void jeet::buildJeetBufferizePipeline(OpPassManager &pm) {
  // One-shot bufferization's analysis of a tensor that N kernels read grows
  // with N squared; each group of readers gets an alias of its own.
  pm.addNestedPass<func::FuncOp>(createJeetGroupSharedReadsPass());
  // Each result gets a buffer of its own (a value returned twice is copied).
  pm.addNestedPass<func::FuncOp>(createJeetDistinctResultsPass());
  // CSE merged the kernels' equal tensor.empty destinations; one-shot
  // bufferization's analysis of a tensor with N destination uses grows with
  // N squared (a graph of N independent outputs), and kernels far apart
  // that share one share a buffer from the first to the last, out of the
  // memory plan's reach: each chain of kernels gets its own.
  pm.addNestedPass<func::FuncOp>(createJeetUnshareEmptyTensorsPass());
  // CSE merged the kernels' equal accumulators too (fills of empty
  // tensors): each kernel that writes over one gets its own, not a copy.
  pm.addNestedPass<func::FuncOp>(createJeetUnshareFillsPass());
  // MLIR's one-shot bufferization with function boundaries (identity
  // layouts at the boundary); MLIR's own matches every returned tensor with
  // every argument, N squared for a graph of N inputs and N outputs.
  pm.addPass(createJeetOneShotBufferizePass());

  // Results become out-parameters that the caller owns; a result computed in
  // a fresh buffer is written straight into the caller's.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // A result returned through a reshape is computed in its out-parameter
  // too (seen through the inverse reshape), not copied there.
  pm.addNestedPass<func::FuncOp>(createJeetReshapedResultsInPlacePass());

  // Ownership-based deallocation frees every intermediate; the liveness
  // optimisation then moves each free right after the buffer's last use.
  bufferization::BufferDeallocationPipelineOptions deallocOptions;
  // The deallocation pipeline ends with CSE and canonicalization; one more
  // CSE takes what canonicalization made equal.
  bufferization::buildBufferDeallocationPipeline(pm, deallocOptions);
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(
      bufferization::createOptimizeAllocationLivenessPass());
}
