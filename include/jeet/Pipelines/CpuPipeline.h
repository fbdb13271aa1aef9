//===- CpuPipeline.h - The jeet-cpu-pipeline --------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Compiles a jeet graph for the host CPU: decompose, fuse, lower to linalg,
// bufferize with liveness-based deallocation, lower to LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_PIPELINES_CPUPIPELINE_H
#define JEET_PIPELINES_CPUPIPELINE_H

#include "jeet/Dialect/Jeet/Transforms/FuseDefaults.h"
#include "jeet/Pipelines/Stages.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace jeet {

/// Options of `jeet-cpu-pipeline`.
struct CpuPipelineOptions
    : public mlir::PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse ops into kernels (jeet-fuse); when "
                                   "false every op is a kernel of its own"),
                    llvm::cl::init(true)};
  Option<int64_t> maxFusionOps{
      *this, "max-fusion-ops",
      llvm::cl::desc("The largest number of ops in one fusion group"),
      llvm::cl::init(kDefaultMaxFusionOps)};
  Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("Make attention (matmul, softmax, matmul) one kernel "
                     "that computes the scores and the softmax block of rows "
                     "by block of rows in the cache, where a block fits "
                     "(jeet-fuse's attention-block-bytes)"),
      llvm::cl::init(true)};
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the outer parallel loops of each kernel on all "
                     "cores with OpenMP"),
      llvm::cl::init(true)};
  Option<int64_t> matmulRegisterCols{
      *this, "matmul-register-cols",
      llvm::cl::desc("Columns of jeet-cpu-matmul's register tile (6 rows "
                     "each); 0: from the host's vector registers, 64 (24 "
                     "accumulators) with AVX-512's 32, 16 (12 of 16 AVX2 "
                     "registers) with AVX, 8 with SSE alone; jeet-compile "
                     "sets it from --target-cpu"),
      llvm::cl::init(0)};
  Option<int64_t> vectorDatapathBits{
      *this, "vector-datapath-bits",
      llvm::cl::desc("The bits one vector instruction works on at once, for "
                     "the cost of rows joined across (jeet-cpu-vectorize-"
                     "elementwise's datapath-bits); 0: the host's; "
                     "jeet-compile sets it from --target-cpu"),
      llvm::cl::init(0)};
  Option<std::string> bf16Conversion{
      *this, "bf16-conversion",
      llvm::cl::desc("How f32 is rounded to bf16 (jeet-expand-bf16's "
                     "conversion): integer, hardware (vcvtneps2bf16, for "
                     "CPUs with AVX512-BF16 and AVX512-VL or AVX-NE-CONVERT) "
                     "or host (this machine's choice: hardware where it has "
                     "it, except on Zen 5); "
                     "jeet-compile sets it from --target-cpu"),
      llvm::cl::init("host")};
  Option<std::string> minmaxByRange{
      *this, "minmax-by-range",
      llvm::cl::desc("How vector maximumf/minimumf trees are computed "
                     "(jeet-cpu-minmax-by-range's target): avx512 "
                     "(vrangeps and one NaN test, for CPUs with AVX-512DQ "
                     "and AVX-512VL), none (LLVM's lowering) or host (this "
                     "machine's choice); jeet-compile sets it from "
                     "--target-cpu"),
      llvm::cl::init("host")};
  Option<bool> mergeParallelRegions{
      *this, "merge-parallel-regions",
      llvm::cl::desc("Run adjacent kernels' OpenMP regions as one region "
                     "(jeet-cpu-merge-parallel-regions); false keeps one "
                     "region per kernel, e.g. to profile kernel by kernel"),
      llvm::cl::init(true)};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Compute f32 matmuls with cache- and register-tiled "
                     "vector kernels (jeet-cpu-matmul) and elementwise "
                     "kernels with vector loops "
                     "(jeet-cpu-vectorize-elementwise)"),
      llvm::cl::init(true)};
  Option<bool> runtimeAllocator{
      *this, "runtime-allocator",
      llvm::cl::desc("Allocate intermediates through the Jeet runtime's "
                     "caching allocator (_mlir_memref_to_llvm_alloc) instead "
                     "of malloc"),
      llvm::cl::init(false)};
};

/// The block budget of the CPU's attention kernels (jeet-fuse's
/// attention-block-bytes): the lowering's blocks of rows of the scores and
/// of the softmax, together about the size of the blocks of a
/// multi-reduction group (jeet-lower-to-linalg), stay in a core's L2.
inline constexpr int64_t kCpuAttentionBlockBytes = 256 * 1024;

/// Lowers bufferized linalg to the LLVM dialect for the host CPU.
void buildJeetCpuCodegenPipeline(mlir::OpPassManager &pm,
                                 const CpuPipelineOptions &options);

/// The stages of jeet-cpu-pipeline: fused, linalg, bufferized, llvm.
StagedPipeline getJeetCpuPipeline(const CpuPipelineOptions &options);

/// The whole CPU pipeline: every stage of getJeetCpuPipeline.
void buildJeetCpuPipeline(mlir::OpPassManager &pm,
                          const CpuPipelineOptions &options);

/// Registers `jeet-cpu-pipeline` and the CPU passes.
void registerJeetCpuPipelines();

} // namespace jeet

#endif // JEET_PIPELINES_CPUPIPELINE_H
