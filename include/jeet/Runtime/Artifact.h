//===- Artifact.h - Load and run graphs compiled ahead of time --*- C++ -*-===//
//
// Part of the Jeet project.
//
// An artifact is a shared object that `jeet-compile` writes: the host code of
// one compiled graph (for a GPU graph, with its PTX embedded) and its
// signature. It links against libc and libm only; the functions the host code
// calls (_mlir_memref_to_llvm_* and mgpu*, see HostABI.h) are resolved from
// libjeet_runtime when the artifact is loaded. Loading needs nothing from
// LLVM or MLIR.
//
// The artifact ABI (version 2), every symbol C-linkage and exported:
//
//   const char jeet_artifact_signature[];
//       "v2 entry=main device=cpu inputs=2x3xf32,3xf32 outputs=2x3xf32
//        kernels=1 arena=0" (one line; fields separated by single spaces; a
//       graph with no inputs has "inputs=" empty; a scalar is "f32";
//       `arena` is the bytes of the arena of intermediates). GPU artifacts
//       add "chip=sm_90 ptx=80 format=isa". Readers ignore fields they do
//       not know.
//   void jeet_artifact_init(void);
//       Runs the module's former global constructors (a GPU artifact loads
//       its PTX here, through mgpuModuleLoad/mgpuModuleLoadJIT). dlopen runs
//       nothing: the loader calls init once the device is chosen.
//   void jeet_artifact_fini(void);
//       The former global destructors (module unload).
//   void jeet_artifact_run(void **args);
//       The packed entry: args[i] points to the i-th scalar argument of the
//       lowered entry function, which takes every input and then every output
//       as an expanded memref descriptor (allocated pointer, aligned pointer,
//       offset, sizes..., strides...), then the arena of intermediates as the
//       descriptor of a memref<Nxi8> (N = `arena`, 256-byte aligned), and for
//       a GPU artifact last the stream (CUstream) to queue the work on: it
//       returns without waiting for it. Outputs are caller-allocated buffers
//       that the code writes. For a GPU artifact every pointer is device
//       memory. Errors are recorded in the runtime's thread-local last error
//       (takeLastError()). (Execution.h: CompiledEntry calls it.)
//
//===----------------------------------------------------------------------===//

#ifndef JEET_RUNTIME_ARTIFACT_H
#define JEET_RUNTIME_ARTIFACT_H

#include "jeet/Runtime/DType.h"
#include "jeet/Runtime/Execution.h"
#include "jeet/Runtime/Status.h"
#include "jeet/Runtime/Tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jeet {
namespace runtime {

class Device;

/// The metadata of an artifact (the jeet_artifact_signature string).
struct ArtifactSignature {
  int version = 1;
  std::string entry = "main";
  /// "cpu" or "gpu".
  std::string device = "cpu";
  std::vector<TensorType> inputs;
  std::vector<TensorType> outputs;
  /// Kernels launched per execution (fusion groups).
  int64_t kernels = 0;
  /// Bytes of the arena of intermediates the entry takes.
  uint64_t arenaBytes = 0;
  /// GPU artifacts: the chip the kernels were compiled for ("sm_90"), the
  /// PTX ISA version of their code (80 for 8.0) and the form they are
  /// embedded in ("isa": PTX text, JIT-compiled by the driver at load;
  /// "bin"/"fatbin"). Empty/0 when not given.
  std::string chip;
  int ptxVersion = 0;
  std::string format;

  /// The canonical text: "v2 entry=main device=cpu inputs=... outputs=...
  /// kernels=N arena=B".
  std::string str() const;
  /// Parses the text; unknown `key=value` fields are ignored (for forward
  /// compatibility), an unknown version is an error.
  static StatusOr<ArtifactSignature> parse(const std::string &text);
};

/// The artifact ABI version this runtime loads.
constexpr int kArtifactVersion = 2;

/// A loaded artifact. Thread-compatible: run() from one thread at a time.
class Artifact {
public:
  /// Loads the shared object at `path`. For a GPU artifact the CUDA device
  /// (ordinal `cudaOrdinal`) must be usable, of the artifact's chip or newer,
  /// with a driver that JITs its PTX: otherwise DeviceUnavailable with the
  /// reason. Errors name the path and the problem:
  ///   "g.so: cannot load: <dlerror>"
  ///   "g.so: not a Jeet artifact (no jeet_artifact_signature symbol)"
  ///   "g.so: artifact ABI version 2, this runtime loads version 1"
  /// `cudaGraphs`: replay GPU executions as a CUDA graph from the second
  /// one on.
  static StatusOr<std::unique_ptr<Artifact>>
  load(const std::string &path, int cudaOrdinal = 0, bool cudaGraphs = true);
  /// Reads only the signature (nothing runs, no device is opened).
  static StatusOr<ArtifactSignature> readSignature(const std::string &path);

  /// Runs jeet_artifact_fini and unloads the shared object.
  ~Artifact();
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  const std::string &path() const { return path_; }
  const ArtifactSignature &signature() const { return signature_; }
  /// The device the code runs on (host, or the CUDA device).
  Device &device() const { return *device_; }

  /// Checks tensors against the signature: count, then shape and dtype of
  /// each, e.g. "argument #0 of 'main' expects 2xf32, given 3xf32".
  Status checkInputs(const std::vector<Tensor> &inputs) const;

  /// Runs on tensors that already live on device() (outputs allocated by the
  /// caller with the signature's types). Waits for the device to finish
  /// unless `options` say otherwise (ExecutionOptions: stream, wait).
  Status run(const std::vector<Tensor> &inputs,
             const std::vector<Tensor> &outputs) const;
  Status run(const std::vector<Tensor> &inputs,
             const std::vector<Tensor> &outputs,
             const ExecutionOptions &options) const;
  /// The entry the artifact exports, bound to device().
  const CompiledEntry &entry() const { return *entry_; }

  /// Allocates the outputs on device() (uninitialised).
  StatusOr<std::vector<Tensor>> allocateOutputs() const;

  /// Copies host (or any device's) inputs to device(), runs, and returns the
  /// outputs on the host.
  StatusOr<std::vector<Tensor>> runOnHost(const std::vector<Tensor> &inputs);

private:
  Artifact() = default;

  std::string path_;
  ArtifactSignature signature_;
  void *handle_ = nullptr;
  void (*fini_)() = nullptr;
  Device *device_ = nullptr;
  std::unique_ptr<CompiledEntry> entry_;
};

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_ARTIFACT_H
