//===- GpuPipeline.h - The jeet-gpu-pipeline --------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Compiles a jeet graph for NVIDIA GPUs: every jeet.fusion group becomes one
// kernel (one gpu.launch_func, one PTX .entry), and the host side calls the
// runtime's mgpu* ABI with every launch on one stream.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_PIPELINES_GPUPIPELINE_H
#define JEET_PIPELINES_GPUPIPELINE_H

#include "jeet/Dialect/Jeet/Transforms/FuseDefaults.h"
#include "jeet/Pipelines/Stages.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace jeet {

/// The chip jeet-gpu-pipeline compiles for unless told otherwise.
inline constexpr llvm::StringLiteral kDefaultGpuChip = "sm_90";

/// Options of `jeet-gpu-pipeline`.
struct GpuPipelineOptions
    : public mlir::PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("What the kernels are compiled for: ptx (NVIDIA GPUs) "
                     "or emulator (the host, run by libjeet_cuda_emulator; "
                     "chip, features, format and toolkit are then ignored)"),
      llvm::cl::init("ptx")};
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The GPU to compile for: sm_80, sm_86, sm_89 or sm_90"),
      llvm::cl::init(kDefaultGpuChip.str())};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX ISA of the emitted code (+ptx78 or later for "
                     "sm_90)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary holds: isa (PTX text), bin (cubin, "
                     "needs ptxas) or fatbin"),
      llvm::cl::init("isa")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit for format=bin/fatbin and libdevice"),
      llvm::cl::init("/usr/local/cuda")};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse ops into kernels (jeet-fuse); when "
                                   "false every op is a kernel of its own"),
                    llvm::cl::init(true)};
  Option<int64_t> maxFusionOps{
      *this, "max-fusion-ops",
      llvm::cl::desc("The largest number of ops in one fusion group"),
      llvm::cl::init(kDefaultMaxFusionOps)};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
  Option<unsigned> optLevel{*this, "O",
                            llvm::cl::desc("Optimisation level of the NVPTX "
                                           "backend"),
                            llvm::cl::init(3)};
};

/// The chips jeet-gpu-pipeline compiles for.
llvm::ArrayRef<llvm::StringRef> getSupportedGpuChips();

/// The kernel targets of jeet-gpu-pipeline: "ptx", "emulator".
llvm::ArrayRef<llvm::StringRef> getSupportedGpuTargets();

/// Checks the options; the error lists the supported targets, chips or
/// formats.
llvm::Error verifyGpuPipelineOptions(const GpuPipelineOptions &options);

/// Device stages: each fusion group becomes one forall over output tiles
/// (jeet-gpu-form-kernels), is bufferized, then one gpu.launch
/// (jeet-gpu-map-kernels), outlined into a gpu.func.
void buildJeetGpuKernelPipeline(mlir::OpPassManager &pm,
                                const GpuPipelineOptions &options);

/// Kernels to NVVM and PTX (gpu.binary), or for target=emulator to a host
/// shared object (jeet-gpu-lower-to-emulator, #jeet_emu.target); host code
/// to the LLVM dialect with async launches on one stream.
void buildJeetGpuCodegenPipeline(mlir::OpPassManager &pm,
                                 const GpuPipelineOptions &options);

/// The stages of jeet-gpu-pipeline: fused, kernels, llvm, and the product
/// ptx (with format=isa). Options must have been checked with
/// verifyGpuPipelineOptions (the registered pipeline does).
StagedPipeline getJeetGpuPipeline(const GpuPipelineOptions &options);

/// The whole GPU pipeline: every stage of getJeetGpuPipeline.
void buildJeetGpuPipeline(mlir::OpPassManager &pm,
                          const GpuPipelineOptions &options);

/// Prints the PTX of every kernel held by the `gpu.binary` ops of `module`
/// (compiled with format=isa), one `.entry` per kernel.
mlir::LogicalResult printGpuBinariesAsPTX(mlir::ModuleOp module,
                                          llvm::raw_ostream &os);

/// The same text, or nothing when a gpu.binary holds a binary (format=bin or
/// fatbin) rather than PTX.
std::optional<std::string> getGpuBinariesPTX(mlir::ModuleOp module);

/// Compiles the jeet graph `module` in place with jeet-gpu-pipeline
/// (format=isa), stage by stage as the compiler does (JEET_DEBUG and
/// JEET_DUMP_DIR apply), and prints its PTX: the `--jeet-to-ptx`
/// translation.
mlir::LogicalResult translateJeetToPTX(mlir::ModuleOp module,
                                       llvm::raw_ostream &os,
                                       const GpuPipelineOptions &options);

/// Compiles the jeet graph `module` in place with
/// jeet-gpu-pipeline{target=emulator} and writes the emulator object of its
/// kernels (a host ELF shared object) to `os`.
mlir::LogicalResult
translateJeetToEmulatorObject(mlir::ModuleOp module, llvm::raw_ostream &os,
                              const GpuPipelineOptions &options);

/// Registers `jeet-gpu-pipeline` and the GPU passes.
void registerJeetGpuPipelines();

} // namespace jeet

#endif // JEET_PIPELINES_GPUPIPELINE_H
