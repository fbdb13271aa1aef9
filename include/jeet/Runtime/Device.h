//===- Device.h - Devices and the device registry ---------------*- C++ -*-===//
//
// A Device owns a caching allocator and copies memory to and from the host.
// HostDevice is the CPU; CudaDevice (CudaDevice.h) is an NVIDIA GPU reached
// through the driver API. The registry functions at the end of this file hand
// out the process-wide devices and the per-thread current device.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_RUNTIME_DEVICE_H
#define JEET_RUNTIME_DEVICE_H

#include "jeet/Runtime/Allocator.h"
#include "jeet/Runtime/Status.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jeet {
namespace runtime {

enum class DeviceKind { Host, Cuda };

const char *deviceKindName(DeviceKind kind); // "host", "cuda"

/// Execution statistics of a device.
struct ExecutionStats {
  uint64_t kernels_launched = 0;
};

class Device {
public:
  virtual ~Device();

  /// "host", "cuda:0".
  const std::string &name() const { return name_; }
  DeviceKind kind() const { return kind_; }

  /// The caching allocator that owns this device's memory.
  CachingAllocator &allocator() { return *allocator_; }

  /// Synchronous copies (they wait for `stream`, or for the whole device when
  /// `stream` is null).
  virtual Status copyHostToDevice(void *dst, const void *src, size_t bytes,
                                  void *stream = nullptr) = 0;
  virtual Status copyDeviceToHost(void *dst, const void *src, size_t bytes,
                                  void *stream = nullptr) = 0;
  virtual Status copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                                    void *stream = nullptr) = 0;
  /// Fills `bytes` bytes at `dst` with zero.
  virtual Status zero(void *dst, size_t bytes, void *stream = nullptr) = 0;
  /// Waits for all work queued on the device.
  virtual Status synchronize() = 0;
  /// True for a GPU emulated on the CPU (CudaDevice on the Jeet GPU
  /// emulator): GPU code must be compiled for the emulation target, and
  /// timings say nothing about a GPU.
  virtual bool isEmulated() const { return false; }

  ExecutionStats executionStats() const;
  void resetExecutionStats();
  /// Counts one kernel launch (called by the launch paths).
  void recordKernelLaunch() { kernelsLaunched_.fetch_add(1); }

protected:
  Device(std::string name, DeviceKind kind,
         std::unique_ptr<CachingAllocator> allocator);
  Device(std::string name, DeviceKind kind);
  void setAllocator(std::unique_ptr<CachingAllocator> allocator);

private:
  std::string name_;
  DeviceKind kind_;
  std::unique_ptr<CachingAllocator> allocator_;
  std::atomic<uint64_t> kernelsLaunched_{0};
};

/// The CPU, with an aligned-malloc backend.
class HostDevice : public Device {
public:
  HostDevice();
  Status copyHostToDevice(void *dst, const void *src, size_t bytes,
                          void *stream = nullptr) override;
  Status copyDeviceToHost(void *dst, const void *src, size_t bytes,
                          void *stream = nullptr) override;
  Status copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                            void *stream = nullptr) override;
  Status zero(void *dst, size_t bytes, void *stream = nullptr) override;
  Status synchronize() override { return Status(); }
};

/// The allocator backend of HostDevice (256-byte aligned malloc).
std::unique_ptr<AllocatorBackend> createHostAllocatorBackend();

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

class CudaDevice;
struct CudaOptions;

/// The process-wide host device.
Device &getHostDevice();

/// The CUDA device with this ordinal, opened on first use with the options of
/// setCudaOptions() (default: libcuda.so.1, or $JEET_CUDA_DRIVER when set).
/// A failure is remembered and returned again (DeviceUnavailable with the
/// precise reason) without retrying.
StatusOr<CudaDevice *> getCudaDevice(int ordinal = 0);

/// Sets the options for CUDA devices opened from now on, and closes the ones
/// opened before (none of their tensors, modules or streams may still be in
/// use) and forgets remembered failures. The ordinal in `options` is ignored.
void setCudaOptions(const CudaOptions &options);

/// The current device of the calling thread (default: the host device).
Device &currentDevice();
/// Null restores the default (host).
void setCurrentDevice(Device *device);

struct DeviceInfo {
  std::string name; ///< "host", "cuda:0"
  DeviceKind kind;
  bool available;
  std::string reason;      ///< why it is unavailable (empty when available)
  std::string description; ///< e.g. GPU name, compute capability, driver
  bool emulated = false;   ///< the Jeet GPU emulator (kernels on the CPU)
};

/// The host device, then CUDA device 0 (and any further CUDA devices the
/// driver reports), each with its availability and the reason.
std::vector<DeviceInfo> listDevices();

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_DEVICE_H
