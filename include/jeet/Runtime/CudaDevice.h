//===- CudaDevice.h - An NVIDIA GPU through the driver API ------*- C++ -*-===//

#ifndef JEET_RUNTIME_CUDADEVICE_H
#define JEET_RUNTIME_CUDADEVICE_H

#include "jeet/Runtime/CudaDriver.h"
#include "jeet/Runtime/Device.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

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
  /// Synchronizes the device's stream and every stream created through it.
  Status synchronize() override;

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
  Status synchronizeStream(void *stream);
  Status streamWaitEvent(void *stream, void *event);

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

private:
  CudaDevice(std::shared_ptr<CudaDriver> driver, int ordinal);

  std::shared_ptr<CudaDriver> driver_;
  int ordinal_;
  uint64_t id_;
  cu::CUdevice device_ = 0;
  cu::CUcontext context_ = nullptr;
  int driverVersion_ = 0;
  int computeCapability_ = 0;
  std::string deviceName_;
  void *stream_ = nullptr;
  mutable std::mutex mutex_;
  std::map<const void *, std::unique_ptr<CudaModule>> modules_;
  std::map<void *, bool> streams_;
};

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_CUDADEVICE_H
