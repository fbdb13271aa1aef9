//===- Artifact.h - Compile graphs ahead of time ----------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Compiles a jeet graph into an artifact: a shared object with the graph's
// JIT-free host code (for a GPU graph, with its PTX embedded) and its
// signature, which libjeet_runtime loads and runs without LLVM or MLIR
// (jeet/Runtime/Artifact.h describes the ABI). Compilation is in-process up
// to an object file; the system C compiler (`cc -shared`) links the shared
// object against libc and libm only.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_COMPILER_ARTIFACT_H
#define JEET_COMPILER_ARTIFACT_H

#include "jeet/Compiler/Compiler.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace jeet {

struct ArtifactOptions {
  /// entry, device ("cpu" or "gpu"), gpuTarget (a GPU artifact for the
  /// emulation target embeds the kernels' host shared object), fuse,
  /// maxFusionOps. `parallel` is ignored: see `openmp`.
  CompileOptions compile;
  /// CPU artifacts: run the outer loops of each kernel on all cores with
  /// OpenMP. The artifact then needs LLVM's OpenMP runtime (libomp) where it
  /// runs: it records the path of this machine's (DT_NEEDED + RUNPATH).
  /// Without it (the default) CPU artifacts are single-threaded and need
  /// nothing but libc and libm.
  bool openmp = false;
  /// CPU artifacts with `openmp`: adjacent kernels share one OpenMP region
  /// (jeet-cpu-pipeline's merge-parallel-regions); false keeps a region per
  /// kernel, which profiles (perf) kernel by kernel.
  bool mergeParallelRegions = true;
  /// The CPU the host code is compiled for: "host" (this machine's CPU and
  /// features), "generic", or an LLVM CPU name ("x86-64-v3", "znver4").
  /// Empty: "host" for CPU artifacts, "generic" for GPU artifacts (whose
  /// host code is glue and must run on the GPU server's CPU).
  std::string targetCpu;
  /// The C compiler that links the shared object; empty: $JEET_CC, else `cc`
  /// on PATH.
  std::string linker;
  /// GPU artifacts: the chip ("sm_90") and the form of the embedded kernels
  /// ("isa": PTX text JIT-compiled by the driver at load; "bin"/"fatbin":
  /// assembled now with ptxas). Empty: jeet-gpu-pipeline's defaults.
  std::string gpuChip;
  std::string gpuFormat;
};

/// What was written.
struct ArtifactInfo {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  int64_t numKernels = 0;
  /// The bytes of the arena of intermediates the entry takes.
  int64_t arenaBytes = 0;
  /// The jeet_artifact_signature text.
  std::string signature;
  /// The CPU the host code was compiled for.
  std::string targetCpu;
  /// PTX artifacts: the chip the kernels were compiled for.
  std::string gpuChip;
};

/// The jeet_artifact_signature text: "v1 entry=main device=cpu
/// inputs=2x3xf32,3xf32 outputs=2x3xf32 kernels=1".
std::string formatArtifactSignature(llvm::StringRef entry,
                                    llvm::StringRef device,
                                    const std::vector<TensorSpec> &inputs,
                                    const std::vector<TensorSpec> &outputs,
                                    int64_t numKernels, int64_t arenaBytes);

/// Adds the artifact ABI to a module lowered to the LLVM dialect:
/// `jeet_artifact_run(void **args)` (the packed wrapper of `entry`),
/// `jeet_artifact_init/fini()` (which take over the module's global
/// constructors and destructors, so loading runs nothing), and the constant
/// string `jeet_artifact_signature`. Every other definition becomes internal,
/// so the shared object exports the ABI alone.
mlir::LogicalResult addArtifactABI(mlir::ModuleOp module, llvm::StringRef entry,
                                   llvm::StringRef signature);

/// Compiles MLIR text (a module holding `options.compile.entry`) and writes
/// the artifact to `outputPath`. Errors carry the MLIR diagnostics with
/// `sourceName:line:col`, or name the output file and the problem.
llvm::Expected<ArtifactInfo> compileArtifact(llvm::StringRef source,
                                             llvm::StringRef sourceName,
                                             const ArtifactOptions &options,
                                             llvm::StringRef outputPath);

} // namespace jeet

#endif // JEET_COMPILER_ARTIFACT_H
