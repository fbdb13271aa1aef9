//===- Execution.h - Run a compiled graph's entry point ---------*- C++ -*-===//
//
// Part of the Jeet project.
//
// What both the JIT (jeet::Executable) and ahead-of-time artifacts need to
// run the packed entry point of a compiled graph:
//
// - The entry takes every input, then every output, as an expanded memref
//   descriptor, then the arena that holds the graph's intermediates (a
//   memref<Nxi8> at offsets planned by jeet-plan-memory), and on a GPU the
//   stream to queue its work on (jeet-gpu-caller-stream): it returns
//   without waiting for the GPU.
// - Arenas come from a small pool per entry: executions on several threads,
//   or on several streams, never share one; executions queued in order on
//   one stream reuse the same arena.
// - On a GPU, from the second execution on, the kernels one execution
//   launches are built into a CUDA graph once and replayed with one graph
//   launch. A few instances of the graph are kept, each for the buffers
//   (inputs, outputs, arena) of a recent execution; an execution with other
//   buffers gives an instance's kernels their new parameters (only those
//   that changed) instead of building the graph again.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_RUNTIME_EXECUTION_H
#define JEET_RUNTIME_EXECUTION_H

#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Status.h"
#include "jeet/Runtime/Tensor.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace jeet {
namespace runtime {

//===----------------------------------------------------------------------===//
// Launch interception
//===----------------------------------------------------------------------===//

/// Receives the kernel launches of compiled host code (mgpuLaunchKernel)
/// instead of the device while installed on the calling thread: the runtime
/// builds and updates CUDA graphs from the launches of one execution. Any
/// other device work the host code asks for (a copy, a memset, an
/// allocation...) is not done and is reported to `unsupported`.
class LaunchInterceptor {
public:
  virtual ~LaunchInterceptor();
  virtual Status launch(const CudaKernel &kernel, Dim3 grid, Dim3 block,
                        unsigned sharedMemBytes, void **params) = 0;
  /// `call` (e.g. "mgpuMemcpy") was asked for and not done.
  virtual void unsupported(const char *call) = 0;
};

/// The interceptor installed on the calling thread, or null.
LaunchInterceptor *currentLaunchInterceptor();

/// Installs an interceptor on the calling thread for its own lifetime.
class ScopedLaunchInterceptor {
public:
  explicit ScopedLaunchInterceptor(LaunchInterceptor &interceptor);
  ~ScopedLaunchInterceptor();
  ScopedLaunchInterceptor(const ScopedLaunchInterceptor &) = delete;
  ScopedLaunchInterceptor &operator=(const ScopedLaunchInterceptor &) = delete;

private:
  LaunchInterceptor *previous_;
};

//===----------------------------------------------------------------------===//
// Compiled entries
//===----------------------------------------------------------------------===//

/// The calling convention of a compiled graph's entry point.
struct EntryInfo {
  /// How errors name the graph: "main(2x3xf32, 3xf32) -> 2x3xf32".
  std::string label;
  std::vector<TensorType> inputs, outputs;
  /// Bytes of the arena argument (0: the graph has no intermediates).
  uint64_t arenaBytes = 0;
  /// GPU entries take the stream to queue their work on, last.
  bool takesStream = false;
  /// Replay GPU executions as CUDA graphs (from the second one on).
  bool cudaGraphs = true;

  /// "main(2x3xf32, 3xf32) -> 2x3xf32".
  static std::string makeLabel(const std::string &entry,
                               const std::vector<TensorType> &inputs,
                               const std::vector<TensorType> &outputs);
};

/// How one execution runs.
struct ExecutionOptions {
  /// GPU: the stream to queue the work on (null: the device's own stream).
  void *stream = nullptr;
  /// Wait for the work to finish before returning (a GPU execution returns
  /// as soon as its work is queued otherwise).
  bool wait = false;
};

/// What the replay of an entry has done so far.
struct ReplayStats {
  /// Executions as a replayed CUDA graph; graphs built from the launches of
  /// an execution (one, unless replay was turned off and on); instances of
  /// the graph made (a few, for the buffers of recent executions);
  /// executions that gave an instance's kernels new parameters.
  uint64_t replays = 0, captures = 0, instances = 0, updates = 0;
  /// Executions whose kernels were launched one by one.
  uint64_t direct = 0;
};

/// A compiled graph's packed entry point bound to a device. Thread-safe.
class CompiledEntry {
public:
  using PackedFunction = void (*)(void **);

  CompiledEntry(EntryInfo info, PackedFunction function, Device &device);
  ~CompiledEntry();
  CompiledEntry(const CompiledEntry &) = delete;
  CompiledEntry &operator=(const CompiledEntry &) = delete;

  const EntryInfo &info() const { return info_; }
  Device &device() const { return device_; }
  /// Ok while device() is open; once it is closed (setCudaOptions), the
  /// entry's kernels are gone and it cannot run.
  Status deviceOpen() const;

  /// Runs on tensors that live on device(), outputs allocated by the caller
  /// with the signature's types. Errors name the offending argument: its
  /// type, its device, a closed device, or the failed work that computed
  /// it. The outputs remember the work that writes them (Buffer::readable).
  Status run(const std::vector<Tensor> &inputs,
             const std::vector<Tensor> &outputs,
             const ExecutionOptions &options = ExecutionOptions()) const;
  /// The same on tensors given by address: nothing is copied (this is the
  /// path of every cached execution).
  Status run(const Tensor *const *inputs, size_t numInputs,
             const Tensor *const *outputs, size_t numOutputs,
             const ExecutionOptions &options = ExecutionOptions()) const;
  /// Runs on raw buffers of device(), one per input and output, each
  /// C-contiguous with the size of its type.
  Status
  runPointers(const std::vector<const void *> &inputs,
              const std::vector<void *> &outputs,
              const ExecutionOptions &options = ExecutionOptions()) const;

  /// Whether GPU executions are replayed as CUDA graphs; when not, why
  /// (turned off, the driver lacks graphs, the host code does more than
  /// launch kernels...).
  bool replaying() const;
  std::string replayOffReason() const;
  ReplayStats replayStats() const;
  /// Arenas held by the pool now.
  size_t numArenas() const;

private:
  struct Arenas;
  struct Replay;
  /// Queues one execution on `stream` (null on the host); returns its
  /// submission ticket (0 on the host).
  StatusOr<uint64_t> queue(const std::vector<const void *> &inputs,
                           const std::vector<void *> &outputs,
                           void *stream) const;
  void *streamFor(const ExecutionOptions &options) const;
  Status waitIfAsked(const ExecutionOptions &options, void *stream) const;
  /// Calls the entry on `args` (directly, or building or updating the CUDA
  /// graph and launching it) for buffers `binding` on `stream`.
  Status execute(std::vector<void *> &args, const std::vector<void *> &binding,
                 void *stream) const;

  EntryInfo info_;
  PackedFunction function_;
  Device &device_;
  /// Expires when device_ is closed (its modules, and this entry's kernels,
  /// are gone with it).
  std::weak_ptr<const char> deviceLifetime_;
  std::string deviceName_;
  std::unique_ptr<Arenas> arenas_;
  std::unique_ptr<Replay> replay_;
};

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_EXECUTION_H
