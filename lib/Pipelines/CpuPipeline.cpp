//===- CpuPipeline.cpp - The jeet-cpu-pipeline ----------------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Pipelines/CpuPipeline.h"

#include "jeet/Codegen/CPU/Passes.h"
#include "jeet/Codegen/Common/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <memory>

using namespace mlir;

/// Multiply-adds below which a matmul runs on one thread: a few us of one
/// core's work (2^17 multiply-adds, 2.6 us at ~100 GFLOP/s). A matmul that
/// small still gains from the other threads where it joins the OpenMP
/// region of the kernels around it (jeet-cpu-merge-parallel-regions): the
/// example CNN's classifier (16 x 2048 x 10) ran on one thread while the
/// other waited at the region's end, and the MLP's last layer (64 x 256 x
/// 10) too; in parallel the CNN's call took 5-7% less, the MLP's ~4%
/// (docs/Performance.md). Alone, a region of its own costs about what it
/// saves (64 x 256 x 10: 4.4 us either way, spinning threads); with
/// sleeping threads (OMP_WAIT_POLICY=passive) each region wakes one, which
/// the earlier threshold (2^20) was chosen for.
static constexpr int64_t kMinParallelMatmulWork = int64_t(1) << 17;

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
    matmulOptions.minParallelWork = kMinParallelMatmulWork;
    // 0: jeet-cpu-matmul takes the columns from the host.
    matmulOptions.registerCols = options.matmulRegisterCols;
    pm.addPass(createJeetCpuMatmulPass(matmulOptions));
    // A pad's clamped reads stay scalar; a fill and a copy vectorise.
    pm.addNestedPass<func::FuncOp>(createJeetCpuVectorizePadPass());
    // Poolings: vectors along the outputs, not along a window's row.
    pm.addNestedPass<func::FuncOp>(
        createJeetCpuVectorizeWindowReductionsPass());
    // Transposes that move the innermost dimension: blocks transposed in
    // registers, one register of the host's (or --target-cpu's) per row.
    JeetCpuVectorizeTransposePassOptions transposeOptions;
    transposeOptions.parallel = options.parallel;
    transposeOptions.block =
        options.matmulRegisterCols == 0
            ? 0
            : getTransposeBlock(options.matmulRegisterCols);
    pm.addNestedPass<func::FuncOp>(
        createJeetCpuVectorizeTransposePass(transposeOptions));
    JeetCpuVectorizeElementwisePassOptions elementwiseOptions;
    elementwiseOptions.parallel = options.parallel;
    elementwiseOptions.datapathBits = options.vectorDatapathBits;
    pm.addNestedPass<func::FuncOp>(
        createJeetCpuVectorizeElementwisePass(elementwiseOptions));
    JeetCpuVectorizeReductionsPassOptions reductionOptions;
    reductionOptions.parallel = options.parallel;
    reductionOptions.datapathBits = options.vectorDatapathBits;
    pm.addNestedPass<func::FuncOp>(
        createJeetCpuVectorizeReductionsPass(reductionOptions));
    // exp, log and tanh as polynomials that vectorise, not libm calls.
    pm.addNestedPass<func::FuncOp>(createJeetCpuApproximateMathPass());
    // IEEE maxima and minima of vectors (poolings, reductions' steps):
    // vrangeps and one NaN test per tree, not six instructions a node.
    pm.addNestedPass<func::FuncOp>(createJeetCpuMinMaxByRangePass(
        JeetCpuMinMaxByRangePassOptions{options.minmaxByRange}));
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
    // Kernels that follow each other share one region: one wake-up of the
    // threads per run of kernels instead of one per kernel.
    if (options.mergeParallelRegions)
      pm.addNestedPass<func::FuncOp>(createJeetCpuMergeParallelRegionsPass());
    // Tile buffers allocated and freed per iteration: one stack copy per
    // thread, after merging (a region that allocates is not merged).
    pm.addNestedPass<func::FuncOp>(createJeetCpuHoistTileBuffersPass());
    // Each thread's share of a loop computed in the kernel, not by libomp's
    // loop calls (which format debug strings in LLVM's builds of libomp).
    pm.addPass(createJeetCpuLowerWorksharingLoopsPass());
  } else {
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
    // Loops of one iteration (a kernel of one chunk, the chunk's one vector)
    // become straight code, as the parallel path's canonicalization makes
    // them: left as loops, LLVM's loop rotation of a graph of N such kernels
    // grew with N squared (4.2 s of CPU for 1,000 outputs).
    pm.addPass(createCanonicalizerPass());
  }
  // After the scopes are inlined: a fence would keep a scope alive.
  pm.addNestedPass<func::FuncOp>(createJeetCpuFenceNontemporalStoresPass());
  // Loads of the same element on every iteration frozen, or LLVM's loop
  // vectorizer may take time exponential in the length of what is computed
  // from them.
  pm.addNestedPass<func::FuncOp>(createJeetCpuFreezeInvariantLoadsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 arithmetic in f32, rounded to bf16 by integer vector ops, or by the
  // target's vcvtneps2bf16 with subnormals lifted past its flush to zero
  // (left to itself, LLVM flushes subnormals on hosts with AVX512-BF16 and
  // calls __truncsfbf2 per element on the others).
  pm.addPass(createJeetExpandBFloat16Pass(
      JeetExpandBFloat16PassOptions{options.bf16Conversion}));
  // Math ops with an LLVM intrinsic (floor, sqrt, ...) become it; the rest
  // that no approximation replaced (asinh, tan, ...) become libm calls, a
  // vector's lanes one call each: before the vector conversion, which lowers
  // the lanes' extracts and inserts.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // Vector loads and stores take the memref descriptors apart themselves, so
  // they are lowered before the memrefs.
  pm.addPass(createConvertVectorToLLVMPass());
  // Memrefs first: the OpenMP conversion would otherwise lower allocations
  // itself, always with malloc.
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = options.runtimeAllocator;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  // Before the conversion of the functions' signatures (by the OpenMP
  // conversion or by func's), whose cost otherwise grows with arguments
  // times the entry block's ops.
  pm.addNestedPass<func::FuncOp>(createJeetCpuSeparateEntryBlockPass());
  if (options.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  // Last: an allocation that fails stops the function (after giving back
  // what it holds) instead of handing a null pointer to the kernels; the
  // frees it repeats take the allocations' results as canonicalized above.
  pm.addPass(createJeetCpuCheckAllocationsPass());
}

jeet::StagedPipeline
jeet::getJeetCpuPipeline(const CpuPipelineOptions &options) {
  // The stages' builders outlive `options`: they hold a copy.
  auto copy = std::make_shared<CpuPipelineOptions>();
  copy->copyOptionValuesFrom(options);
  StagedPipeline pipeline;
  pipeline.description = describePipeline("jeet-cpu-pipeline", options);
  pipeline.stages = {
      {stage::kFused.str(),
       [copy](OpPassManager &pm) {
         buildJeetGraphPipeline(pm, copy->fuse, copy->maxFusionOps,
                                /*multiReduction=*/true, /*maxRowBytes=*/0,
                                copy->fuseAttention ? kCpuAttentionBlockBytes
                                                    : 0,
                                /*transposedEpilogues=*/true);
       }},
      {stage::kLinalg.str(),
       [copy](OpPassManager &pm) {
         buildJeetLowerToLinalgPipeline(pm);
         // A max pooling of a relu's values (views' maximum): maximumf as
         // one unsigned integer max of the bits.
         if (copy->vectorize)
           pm.addNestedPass<func::FuncOp>(createJeetCpuMaximumAsUnsignedPass());
       }},
      {stage::kBufferized.str(),
       [copy](OpPassManager &pm) {
         buildJeetBufferizePipeline(pm);
         // An im2col and the pad before it: one parallel loop of row
         // copies. Before the memory plan, which must see the copies read
         // the pad's input while they write the windows.
         if (copy->vectorize) {
           JeetCpuIm2colPassOptions im2colOptions;
           im2colOptions.parallel = copy->parallel;
           pm.addNestedPass<func::FuncOp>(
               createJeetCpuIm2colPass(im2colOptions));
           // A pooling of a convolution's result: in the convolution's
           // tiles, its result never written out whole.
           pm.addNestedPass<func::FuncOp>(createJeetCpuPoolInTilesPass());
         }
         // Intermediates in one arena the caller supplies.
         pm.addPass(createJeetPlanMemoryPass());
       }},
      {stage::kLLVM.str(),
       [copy](OpPassManager &pm) { buildJeetCpuCodegenPipeline(pm, *copy); }},
  };
  return pipeline;
}

void jeet::buildJeetCpuPipeline(OpPassManager &pm,
                                const CpuPipelineOptions &options) {
  getJeetCpuPipeline(options).build(pm);
}

void jeet::registerJeetCpuPipelines() {
  registerJeetCpuPasses();
  PassPipelineRegistration<CpuPipelineOptions>(
      "jeet-cpu-pipeline",
      "Compiles a jeet graph for the host CPU: decompose, fuse, lower to "
      "linalg, bufferize with liveness-based deallocation, lower to LLVM",
      buildJeetCpuPipeline);
}
