//===- Compiler.h - Compile and run jeet graphs -----------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// The C++ API that every tool, Python and other frontends use: compile a jeet
// graph with the named pipelines into an Executable (cached by structure,
// shapes, dtypes, device and options), then run it many times.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_COMPILER_COMPILER_H
#define JEET_COMPILER_COMPILER_H

#include "jeet/Dialect/Jeet/Transforms/FuseDefaults.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace jeet {

/// How to compile a graph. Every field is part of the compiled-graph cache key.
struct CompileOptions {
  /// The function to compile and run.
  std::string entry = "main";
  /// "cpu" or "gpu".
  std::string device = "cpu";
  /// What GPU kernels are compiled for: "ptx", "emulator" (the host, run by
  /// the CUDA driver emulator) or "auto" (the emulator when the CUDA device
  /// is the emulator, PTX otherwise; see resolveGpuTarget). Compiled
  /// executables hold the resolved target.
  std::string gpuTarget = "auto";
  /// Fuse ops into kernels; false gives one kernel per op.
  bool fuse = true;
  /// The largest number of ops in one fusion group.
  int64_t maxFusionOps = kDefaultMaxFusionOps;
  /// Run the outer loops of each kernel on all cores (CPU).
  bool parallel = true;
  /// Keep the IR after each stage for Executable::ir().
  bool keepIR = false;

  /// A canonical text of the options, for cache keys and messages.
  std::string str() const;
};

/// The GPU target a compilation with `options` uses: `options.gpuTarget`, or
/// for "auto" "emulator" when the CUDA device is the driver emulator and
/// "ptx" otherwise.
std::string resolveGpuTarget(const CompileOptions &options);

/// The static type of one graph argument or result.
struct TensorSpec {
  std::vector<int64_t> shape;
  /// "f32", "f16", "bf16" or "i32".
  std::string dtype;

  int64_t numElements() const;
  int64_t elementBytes() const;
  int64_t bytes() const { return numElements() * elementBytes(); }
  /// IREE-style text, e.g. "2x3xf32" (or "f32" for a scalar).
  std::string str() const;
  bool operator==(const TensorSpec &other) const {
    return shape == other.shape && dtype == other.dtype;
  }
  bool operator!=(const TensorSpec &other) const { return !(*this == other); }
};

/// A compiled graph: JIT'ed host code (and, on a GPU, its kernels).
class Executable {
public:
  struct Impl;
  explicit Executable(std::unique_ptr<Impl> impl);
  ~Executable();

  const std::vector<TensorSpec> &inputs() const;
  const std::vector<TensorSpec> &outputs() const;
  const CompileOptions &options() const;
  /// The kernels one execution launches (one per fusion group).
  int64_t numKernels() const;
  /// For each kernel, the names of the jeet ops it fuses, in order.
  const std::vector<std::vector<std::string>> &kernelOps() const;
  /// The most bytes of intermediate buffers alive at once, from the buffer
  /// plan after liveness-based deallocation.
  int64_t peakIntermediateBytes() const;
  /// The stages of the pipeline that compiled it, in order: the graph as
  /// given ("jeet"), then the pipeline's stages (CPU: "fused", "linalg",
  /// "bufferized", "llvm"; GPU: "fused", "kernels", "llvm", "ptx").
  const std::vector<std::string> &stageNames() const;
  /// The IR after `stage` (one of stageNames()), or an empty string when it
  /// was not kept (see CompileOptions::keepIR) or `stage` is not one.
  std::string ir(llvm::StringRef stage) const;

  /// Runs the graph on host buffers: one pointer per input and output, each
  /// C-contiguous with the size of its TensorSpec. Outputs are written.
  llvm::Error run(llvm::ArrayRef<const void *> inputs,
                  llvm::ArrayRef<void *> outputs) const;

private:
  std::unique_ptr<Impl> impl;
};

/// Compiles graphs. Owns an MLIRContext with every dialect Jeet uses, and the
/// compiled-graph cache. Thread-safe.
class Compiler {
public:
  Compiler();
  ~Compiler();

  /// Compiles MLIR text (a module holding `options.entry`). Errors carry the
  /// MLIR diagnostics with `sourceName:line:col`.
  llvm::Expected<std::shared_ptr<Executable>>
  compile(llvm::StringRef source, llvm::StringRef sourceName,
          const CompileOptions &options);

  /// Compiles through the cache: the same graph text and options give the
  /// same Executable without compiling again.
  llvm::Expected<std::shared_ptr<Executable>>
  compileCached(llvm::StringRef source, const CompileOptions &options);

  struct CacheStats {
    int64_t compilations = 0;
    int64_t cacheHits = 0;
    int64_t entries = 0;
  };
  CacheStats cacheStats() const;
  void clearCache();

  /// The process-wide compiler that Python and the tools share.
  static Compiler &global();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace jeet

#endif // JEET_COMPILER_COMPILER_H
