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
#include "jeet/Runtime/Tensor.h"

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
  /// CPU: attention as one kernel where its blocks of rows fit (see
  /// jeet-cpu-pipeline's fuse-attention).
  bool fuseAttention = true;
  /// The largest number of ops in one fusion group.
  int64_t maxFusionOps = kDefaultMaxFusionOps;
  /// Run the outer loops of each kernel on all cores (CPU).
  bool parallel = true;
  /// Keep the IR after each stage for Executable::ir().
  bool keepIR = false;
  /// GPU: replay executions as a CUDA graph from the second one on.
  bool cudaGraphs = true;
  /// CPU: vectorize elementwise kernels, reductions and transposes (the
  /// pipeline's `vectorize`); false compiles a graph that runs once (work
  /// prepared from a model's weights at load) to much less code, in less
  /// time.
  bool vectorize = true;

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
  /// "f32", "f16", "bf16", "i32", "i64" or "i1".
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

/// Where a graph's intermediates live (the static memory plan of
/// jeet-plan-memory): one arena, every size rounded up to 256 bytes.
struct MemoryPlan {
  /// The arena an execution uses.
  int64_t arenaBytes = 0;
  /// The intermediates' sizes added up: what allocating each would take.
  int64_t intermediateBytes = 0;
  /// The most bytes of intermediates alive at once: no plan needs less.
  int64_t liveBytesBound = 0;
  /// How many intermediates the arena holds.
  int64_t buffers = 0;
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
  /// plan after liveness-based deallocation (memoryPlan().liveBytesBound).
  int64_t peakIntermediateBytes() const;
  /// The arena of intermediates and what it is compared with.
  const MemoryPlan &memoryPlan() const;
  /// GPU: "on" when executions are replayed as a CUDA graph (from the second
  /// one on), else "off: <why>"; "not run yet" before the first execution
  /// (when the device, and whether its driver has graphs, becomes known).
  std::string cudaGraphStatus() const;
  /// The stages of the pipeline that compiled it, in order: the graph as
  /// given ("jeet"), then the pipeline's stages (CPU: "fused", "linalg",
  /// "bufferized", "llvm"; GPU: "fused", "kernels", "llvm", "ptx").
  const std::vector<std::string> &stageNames() const;
  /// The IR after `stage` (one of stageNames()), or an empty string when it
  /// was not kept (see CompileOptions::keepIR) or `stage` is not one.
  std::string ir(llvm::StringRef stage) const;

  /// Runs the graph on raw buffers of its device (host memory on the CPU,
  /// device memory on a GPU): one pointer per input and output, each
  /// C-contiguous with the size of its TensorSpec. Outputs are written; on a
  /// GPU the call waits for them.
  llvm::Error run(llvm::ArrayRef<const void *> inputs,
                  llvm::ArrayRef<void *> outputs) const;

  /// Runs the graph on runtime tensors that live on its device (the host
  /// device, or the CUDA device), outputs allocated by the caller with the
  /// types of outputs(). On a GPU the work is queued on `stream` (null: the
  /// device's own stream) and the call returns without waiting: reading an
  /// output (Tensor::toHost) or synchronizing waits, and a failure of the
  /// queued work surfaces there, naming this graph; the outputs then report
  /// it when read again. Errors name the input or output that is wrong
  /// (type, device, a closed device, data from failed work).
  llvm::Error run(llvm::ArrayRef<runtime::Tensor> inputs,
                  llvm::ArrayRef<runtime::Tensor> outputs,
                  void *stream = nullptr) const;
  /// The same, with outputs allocated on the device (on `stream`).
  llvm::Expected<std::vector<runtime::Tensor>>
  run(llvm::ArrayRef<runtime::Tensor> inputs, void *stream = nullptr) const;
  /// The same on inputs given by address (nothing is copied: frontends that
  /// hold tensors in objects of their own run this way).
  llvm::Expected<std::vector<runtime::Tensor>>
  run(llvm::ArrayRef<const runtime::Tensor *> inputs,
      void *stream = nullptr) const;

private:
  friend class Compiler;
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
  /// same Executable without compiling again. CPU graphs are also kept on
  /// disk, under JEET_CACHE_DIR (default: $XDG_CACHE_HOME/jeet or
  /// ~/.cache/jeet; empty: off), keyed by the graph, the options, the Jeet
  /// version and the host CPU: a new process links the stored object
  /// instead of compiling. A cache file that cannot be used never fails a
  /// compilation (JEET_DEBUG says why it was not used).
  llvm::Expected<std::shared_ptr<Executable>>
  compileCached(llvm::StringRef source, const CompileOptions &options);

  struct CacheStats {
    int64_t compilations = 0;
    int64_t cacheHits = 0;
    /// Graphs loaded from the disk cache instead of compiled.
    int64_t diskHits = 0;
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
