//===- Pipelines.h - Jeet's named pass pipelines ----------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// One definition of each pipeline, in C++: jeet-opt runs them by name, and the
// compiler library, jeet-run and Python call the builders below.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_PIPELINES_PIPELINES_H
#define JEET_PIPELINES_PIPELINES_H

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
      llvm::cl::init(64)};
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the outer parallel loops of each kernel on all "
                     "cores with OpenMP"),
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

/// Graph-level stages shared by every device: canonicalize, decompose
/// composites, fuse into jeet.fusion groups.
void buildJeetGraphPipeline(mlir::OpPassManager &pm, bool fuse,
                            int64_t maxFusionOps);

/// Lowers jeet (with fusion groups) to linalg on tensors.
void buildJeetLowerToLinalgPipeline(mlir::OpPassManager &pm);

/// Bufferizes linalg on tensors:
/// results become caller-owned out-parameters, and every intermediate buffer
/// is freed directly after its last use.
void buildJeetBufferizePipeline(mlir::OpPassManager &pm);

/// Lowers bufferized linalg to the LLVM dialect for the host CPU.
void buildJeetCpuCodegenPipeline(mlir::OpPassManager &pm,
                                 const CpuPipelineOptions &options);

/// The whole CPU pipeline: graph, bufferize, codegen.
void buildJeetCpuPipeline(mlir::OpPassManager &pm,
                          const CpuPipelineOptions &options);

/// Registers `jeet-cpu-pipeline` (and the other named pipelines).
void registerJeetPipelines();

} // namespace jeet

#endif // JEET_PIPELINES_PIPELINES_H
