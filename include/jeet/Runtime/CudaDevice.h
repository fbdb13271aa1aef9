//===- CudaDevice.h - An NVIDIA GPU through the driver API ------*- C++ -*-===//

#ifndef JEET_RUNTIME_CUDADEVICE_H
#define JEET_RUNTIME_CUDADEVICE_H

#include "jeet/Runtime/CudaDriver.h"
#include "jeet/Runtime/Device.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace jeet {
namespace runtime {

struct CudaOptions {
  /// The driver library to dlopen (a test double: libjeet_fake_cuda.so).
  std::string driverPath = "libcuda.so.1";
  int ordinal = 0;
  /// PTX ISA version the code uses, major*10+minor (80 = PTX ISA 8.0); the
  /// driver must be new enough to JIT it. 0: no check.
  int requiredPtxVersion = 0;
  /// Compute capability the code was compiled for, major*10+minor (80 =
  /// sm_80). 0: no check.
  int minComputeCapability = 0;
};

/// The oldest driver (as cuDriverGetVersion reports it, 1000*major+10*minor)
/// that JITs this PTX ISA version (major*10+minor), or 0 when unknown.
int minDriverVersionForPtx(int ptxVersion);

/// "12.4" for 12040.
std::string formatDriverVersion(int version);

/// Emulator: an ELF shared object for the host, compiled for the GPU
/// emulation target (include/jeet/Emulator/KernelABI.h); only the emulator
/// loads it.
enum class ModuleFormat { Auto, Ptx, Cubin, Fatbin, Emulator };

class CudaModule;

/// A kernel of a loaded module (looked up once, then cached by name).
struct CudaKernel {
  cu::CUfunction function = nullptr;
  std::string name;
  CudaModule *module = nullptr;
  /// The size of each parameter, when the driver tells
  /// (cuFuncGetParamInfo) and the count is known (CudaModule::resolveParams,
  /// called by the first launch through mgpuLaunchKernel); empty otherwise.
  /// Written once, before `paramsResolved` is set; read-only after.
  std::vector<size_t> paramSizes;
  std::atomic<bool> paramsResolved{false};
};

class CudaModule {
public:
  const std::string &name() const { return name_; }
  cu::CUmodule handle() const { return handle_; }
  /// The driver JIT's info log (PTX modules).
  const std::string &infoLog() const { return infoLog_; }

  /// Looks the kernel up (cuModuleGetFunction) on first use, then answers from
  /// the cache. DriverError names the kernel and the module.
  StatusOr<CudaKernel *> getFunction(const std::string &kernelName);
  /// Number of cuModuleGetFunction calls made so far.
  size_t numDriverLookups() const;
  /// Asks the driver the sizes of the kernel's `count` parameters
  /// (cuFuncGetParamInfo for indices below `count` only: CUDA 13's driver
  /// has no call that counts them, and asking past the last one is an API
  /// error that compute-sanitizer reports). Once per kernel; later calls
  /// return at once. Leaves the sizes empty where the driver cannot tell.
  void resolveParams(CudaKernel &kernel, size_t count);

private:
  friend class CudaDevice;
  CudaModule(const CudaDriver &driver, cu::CUmodule handle, std::string name,
             std::string infoLog)
      : driver_(driver), handle_(handle), name_(std::move(name)),
        infoLog_(std::move(infoLog)) {}

  const CudaDriver &driver_;
  cu::CUmodule handle_;
  std::string name_;
  std::string infoLog_;
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<CudaKernel>> kernels_;
  size_t lookups_ = 0;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  bool operator==(const Dim3 &other) const {
    return x == other.x && y == other.y && z == other.z;
  }
};

class CudaDevice;

class CudaGraphExec;

/// A CUDA graph of kernel launches, built through the driver's explicit
/// graph API: kernels are added in order, each depending on the one before
/// (they ran in that order on one stream). Instantiated, it is replayed with
/// one cuGraphLaunch (CudaGraphExec). Not thread-safe: its owner serialises
/// use.
class CudaGraph {
public:
  ~CudaGraph();
  CudaGraph(const CudaGraph &) = delete;
  CudaGraph &operator=(const CudaGraph &) = delete;

  /// Appends a launch; the driver copies `params`.
  Status addKernel(const CudaKernel &kernel, Dim3 grid, Dim3 block,
                   unsigned sharedMemBytes, void **params);
  /// A launchable instance with the parameters the kernels were added with.
  StatusOr<std::unique_ptr<CudaGraphExec>> instantiate();
  size_t numKernels() const { return nodes_.size(); }

private:
  friend class CudaDevice;
  friend class CudaGraphExec;
  explicit CudaGraph(CudaDevice &device) : device_(device) {}
  struct Node {
    cu::CUgraphNode node;
    const CudaKernel *kernel;
    Dim3 grid, block;
    unsigned sharedMemBytes;
    /// The parameters' bytes (when the kernel's parameter sizes are known):
    /// an update that brings the same bytes is not sent to the driver.
    std::vector<char> params;
  };
  CudaDevice &device_;
  cu::CUgraph graph_ = nullptr;
  std::vector<Node> nodes_;
};

/// An instantiated CudaGraph. A kernel's parameters can be replaced between
/// launches (cuGraphExecKernelNodeSetParams) without building the graph
/// again; launches already queued keep theirs. Not thread-safe.
class CudaGraphExec {
public:
  ~CudaGraphExec();
  CudaGraphExec(const CudaGraphExec &) = delete;
  CudaGraphExec &operator=(const CudaGraphExec &) = delete;

  /// Gives launch `index` (in the order added) new parameters, for the next
  /// launches; it must be the same kernel with the same configuration.
  /// Parameters equal to the current ones (when the kernel's parameter sizes
  /// are known) make no driver call.
  Status setKernelParams(size_t index, const CudaKernel &kernel, Dim3 grid,
                         Dim3 block, unsigned sharedMemBytes, void **params);
  /// Queues the whole graph on `stream` and counts one graph launch.
  Status launch(void *stream);
  size_t numKernels() const { return nodes_.size(); }
  /// cuGraphExecKernelNodeSetParams calls made so far.
  size_t numParamUpdates() const { return paramUpdates_; }

private:
  friend class CudaGraph;
  CudaGraphExec(CudaDevice &device, std::vector<CudaGraph::Node> nodes)
      : device_(device), nodes_(std::move(nodes)) {}
  CudaDevice &device_;
  cu::CUgraphExec exec_ = nullptr;
  std::vector<CudaGraph::Node> nodes_;
  size_t paramUpdates_ = 0;
};

class CudaDevice : public Device {
public:
  /// Opens the driver and the device. DeviceUnavailable, with the reason:
  ///   "no CUDA driver: dlopen libcuda.so.1 failed: <dlerror>"
  ///   "cuInit failed: CUDA_ERROR_NO_DEVICE (...)"
  ///   "no CUDA device"
  ///   "driver version 11.8 is older than 12.0 needed for PTX ISA 8.0 ..."
  ///   "compute capability 7.5 is older than sm_80 the code was compiled for"
  static StatusOr<std::unique_ptr<CudaDevice>>
  open(const CudaOptions &options = CudaOptions());
  ~CudaDevice() override;

  int ordinal() const { return ordinal_; }
  /// As cuDriverGetVersion: 12040 for 12.4.
  int driverVersion() const { return driverVersion_; }
  /// major*10+minor: 80 for sm_80.
  int computeCapability() const { return computeCapability_; }
  const std::string &deviceName() const { return deviceName_; }
  /// "NVIDIA H100, sm_90, driver 12.4"; on the emulator "Jeet GPU emulator
  /// (CPU), sm_90, driver 13.0 (emulated: ...)".
  std::string description() const;
  /// True when the driver is the Jeet GPU emulator (libjeet_cuda_emulator.so,
  /// chosen with $JEET_CUDA_DRIVER or CudaOptions::driverPath): kernels must
  /// be compiled for the emulation target, not PTX, and timings say nothing
  /// about a GPU.
  bool isEmulator() const { return driver_->isEmulator(); }
  bool isEmulated() const override { return isEmulator(); }
  const CudaDriver &driver() const { return *driver_; }
  void *defaultStream() const override { return stream_; }

  /// Makes the device's primary context current on the calling thread (once
  /// per thread).
  Status activate();

  Status copyHostToDevice(void *dst, const void *src, size_t bytes,
                          void *stream = nullptr) override;
  Status copyDeviceToHost(void *dst, const void *src, size_t bytes,
                          void *stream = nullptr) override;
  Status copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                            void *stream = nullptr) override;
  Status zero(void *dst, size_t bytes, void *stream = nullptr) override;
  void poison(void *ptr, size_t bytes, void *stream = nullptr) override;
  /// Synchronizes the device's stream and every stream created through it.
  Status synchronize() override;

  /// Asynchronous work of `label` (e.g. an execution of a graph) was queued
  /// on `stream` (null: the device's): returns its ticket, which buffers it
  /// writes remember (Buffer::markWritten). When a later wait on the stream
  /// fails, the error names the labels queued since the previous wait, and
  /// the tickets of that span fail with it (submissionStatus).
  uint64_t noteSubmission(void *stream, const std::string &label);
  Status submissionStatus(void *stream, uint64_t ticket) const override;

  /// Asynchronous copy in any direction (unified addressing) on `stream`.
  Status copyAsync(void *dst, const void *src, size_t bytes, void *stream);
  Status memset32(void *dst, uint32_t value, size_t count, void *stream);
  /// (free, total) bytes of device memory.
  StatusOr<std::pair<size_t, size_t>> memInfo();

  /// The device's own stream (non-blocking), created at open.
  void *stream() const { return stream_; }
  StatusOr<void *> createStream();
  /// Synchronizes the stream, then destroys it.
  Status destroyStream(void *stream);
  /// Waits for the stream; its freed cached blocks become usable anywhere.
  Status synchronizeStream(void *stream) override;
  Status streamWaitEvent(void *stream, void *event);
  /// Makes `consumer` (any stream handle, including the legacy and
  /// per-thread default streams) wait for the work queued on `producer` so
  /// far, without the host waiting.
  Status orderStreams(void *producer, void *consumer);

  StatusOr<void *> createEvent(bool timing = true);
  Status destroyEvent(void *event);
  Status recordEvent(void *event, void *stream);
  Status synchronizeEvent(void *event);
  /// Milliseconds between two recorded (timing) events.
  StatusOr<float> elapsedMs(void *start, void *end);

  /// Loads a module from PTX text (driver JIT; the JIT error log is captured
  /// into the error), a cubin, a fatbin or an emulator object. `name` appears
  /// in errors. An emulator object on a real driver is refused before the
  /// driver sees it (InvalidArgument naming the target it was built for); the
  /// emulator refuses PTX, cubins and fatbins (DriverError with its report).
  /// `optLevel` (0-4, -1: driver default) applies to PTX.
  StatusOr<CudaModule *> loadModule(const void *data, size_t size,
                                    ModuleFormat format = ModuleFormat::Auto,
                                    const std::string &name = "module",
                                    int optLevel = -1);
  StatusOr<CudaModule *> loadPtx(const std::string &ptx,
                                 const std::string &name = "module",
                                 int optLevel = -1) {
    return loadModule(ptx.c_str(), ptx.size() + 1, ModuleFormat::Ptx, name,
                      optLevel);
  }
  Status unloadModule(CudaModule *module);
  size_t numLoadedModules() const;
  /// True when `module` is a module loaded by this device and not unloaded.
  bool ownsModule(const void *module) const;

  /// cuLaunchKernel on `stream`; counts the launch. DriverError names the
  /// kernel, the module and the CUDA error.
  Status launch(const CudaKernel &kernel, Dim3 grid, Dim3 block,
                unsigned sharedMemBytes, void *stream, void **params,
                void **extra = nullptr);

  /// Whether the driver has the CUDA graph entry points (empty), else why
  /// executions cannot be replayed as graphs.
  std::string graphsUnsupportedReason() const;
  /// An empty graph to add launches to.
  StatusOr<std::unique_ptr<CudaGraph>> createGraph();

private:
  CudaDevice(std::shared_ptr<CudaDriver> driver, int ordinal);

  /// What was queued on one stream since the host last waited for it.
  struct Submissions {
    uint64_t submitted = 0; ///< tickets handed out
    uint64_t waited = 0;    ///< tickets covered by the last wait
    /// The labels queued since the last wait, with their counts.
    std::vector<std::pair<std::string, uint64_t>> pending;
    /// Spans of tickets whose work failed, with the error.
    struct Failure {
      uint64_t first, last;
      Status status;
    };
    std::vector<Failure> failures;
  };
  /// Closes the span of tickets a wait on `stream` covered; on failure
  /// records it and returns `error` with the labels it covered.
  Status settleSubmissions(void *stream, Status error);

  std::shared_ptr<CudaDriver> driver_;
  int ordinal_;
  uint64_t id_;
  cu::CUdevice device_ = 0;
  cu::CUcontext context_ = nullptr;
  int driverVersion_ = 0;
  /// JEET_POISON_DEVICE_MEMORY, read at open.
  const bool poison_ = deviceMemoryPoisonRequested();
  int computeCapability_ = 0;
  std::string deviceName_;
  void *stream_ = nullptr;
  mutable std::mutex mutex_;
  std::map<const void *, std::unique_ptr<CudaModule>> modules_;
  std::map<void *, bool> streams_;
  mutable std::mutex submissionsMutex_;
  std::map<void *, Submissions> submissions_;
};

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_CUDADEVICE_H
