//===- CpuPipeline.cpp - The jeet-cpu-pipeline ----------------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Conversion/Passes.h"
#include "jeet/Codegen/CPU/Passes.h"
#include "jeet/Dialect/Jeet/Transforms/Passes.h"
#include "jeet/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void jeet::buildJeetGraphPipeline(OpPassManager &pm, bool fuse,
                                  int64_t maxFusionOps) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createJeetDecomposePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  JeetFusePassOptions fuseOptions;
  fuseOptions.enable = fuse;
  fuseOptions.maxOps = maxFusionOps;
  pm.addNestedPass<func::FuncOp>(createJeetFusePass(fuseOptions));
}

void jeet::buildJeetLowerToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createJeetLowerToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void jeet::buildJeetBufferizePipeline(OpPassManager &pm) {
  // Each result gets a buffer of its own (a value returned twice is copied).
  pm.addNestedPass<func::FuncOp>(createJeetDistinctResultsPass());
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));

  // Results become out-parameters that the caller owns; a result computed in
  // a fresh buffer is written straight into the caller's.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));

  // Ownership-based deallocation frees every intermediate; the liveness
  // optimisation then moves each free right after the buffer's last use.
  bufferization::BufferDeallocationPipelineOptions deallocOptions;
  bufferization::buildBufferDeallocationPipeline(pm, deallocOptions);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(
      bufferization::createOptimizeAllocationLivenessPass());
}

void jeet::buildJeetCpuCodegenPipeline(OpPassManager &pm,
                                       const CpuPipelineOptions &options) {
  // Tiled kernels (a matmul with its epilogue) come as scf.forall over tiles.
  pm.addPass(createForallToParallelLoopPass());
  if (options.vectorize) {
    // Matmuls become register-tiled vector kernels and elementwise generics
    // vector loops; each makes its outermost loop parallel unless it is
    // already inside a parallel loop (an epilogue tile).
    JeetCpuMatmulPassOptions matmulOptions;
    matmulOptions.parallel = options.parallel;
    pm.addNestedPass<func::FuncOp>(createJeetCpuMatmulPass(matmulOptions));
    JeetCpuVectorizeElementwisePassOptions elementwiseOptions;
    elementwiseOptions.parallel = options.parallel;
    pm.addNestedPass<func::FuncOp>(
        createJeetCpuVectorizeElementwisePass(elementwiseOptions));
    JeetCpuVectorizeReductionsPassOptions reductionOptions;
    reductionOptions.parallel = options.parallel;
    pm.addNestedPass<func::FuncOp>(
        createJeetCpuVectorizeReductionsPass(reductionOptions));
    // exp, log and tanh as polynomials that vectorise, not libm calls.
    pm.addNestedPass<func::FuncOp>(createJeetCpuApproximateMathPass());
  }
  if (options.parallel) {
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
    // One OpenMP region per kernel: nested parallel loops run in sequence
    // inside the outermost one.
    pm.addNestedPass<func::FuncOp>(
        createJeetCpuSequentializeNestedParallelPass());
    pm.addPass(createConvertSCFToOpenMPPass());
    // The conversion wraps loop bodies in memref.alloca_scope, which must
    // stay single-block; canonicalization inlines the scopes that hold no
    // alloca before inner loops become branches.
    pm.addPass(createCanonicalizerPass());
  } else {
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  }
  // After the scopes are inlined: a fence would keep a scope alive.
  pm.addNestedPass<func::FuncOp>(createJeetCpuFenceNontemporalStoresPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Vector loads and stores take the memref descriptors apart themselves, so
  // they are lowered before the memrefs.
  pm.addPass(createConvertVectorToLLVMPass());
  // Memrefs first: the OpenMP conversion would otherwise lower allocations
  // itself, always with malloc.
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = options.runtimeAllocator;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  if (options.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void jeet::buildJeetCpuPipeline(OpPassManager &pm,
                                const CpuPipelineOptions &options) {
  buildJeetGraphPipeline(pm, options.fuse, options.maxFusionOps);
  buildJeetLowerToLinalgPipeline(pm);
  buildJeetBufferizePipeline(pm);
  buildJeetCpuCodegenPipeline(pm, options);
}

void jeet::registerJeetPipelines() {
  registerJeetCpuPasses();
  PassPipelineRegistration<>(
      "jeet-bufferize-pipeline",
      "Bufferizes linalg on tensors: results become out-parameters, and "
      "every intermediate buffer is freed right after its last use",
      buildJeetBufferizePipeline);
  PassPipelineRegistration<CpuPipelineOptions>(
      "jeet-cpu-pipeline",
      "Compiles a jeet graph for the host CPU: decompose, fuse, lower to "
      "linalg, bufferize with liveness-based deallocation, lower to LLVM",
      buildJeetCpuPipeline);
}
