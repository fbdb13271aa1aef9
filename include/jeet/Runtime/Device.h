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
#include <utility>
#include <vector>

namespace jeet {
namespace runtime {

enum class DeviceKind { Host, Cuda };

const char *deviceKindName(DeviceKind kind); // "host", "cuda"

/// Execution statistics of a device: what the host asked of it. The field
/// names are part of the API (Python and the C API use the same keys).
struct ExecutionStats {
  /// Kernels launched one by one (cuLaunchKernel); the kernels of a replayed
  /// CUDA graph are not counted here but in graph_launches.
  uint64_t kernels_launched = 0;
  /// CUDA graphs launched (cuGraphLaunch): one per replayed execution.
  uint64_t graph_launches = 0;
  /// Bytes copied from host memory to the device, and back.
  uint64_t h2d_bytes = 0;
  uint64_t d2h_bytes = 0;
  /// Times the host waited for the device (a stream or an event).
  uint64_t synchronizations = 0;

  /// The fields as (name, value) pairs, in declaration order.
  std::vector<std::pair<const char *, uint64_t>> items() const;
};

class Device {
public:
  virtual ~Device();

  /// "host", "cuda:0".
  const std::string &name() const { return name_; }
  DeviceKind kind() const { return kind_; }

  /// The caching allocator that owns this device's memory.
  CachingAllocator &allocator() { return *allocator_; }

  /// Copies. Host to device is queued on `stream` (the default stream when
  /// null) behind the work already there, the host data being staged before
  /// the call returns; device to host waits for `stream` (for the whole
  /// device when null) first; device to device waits too.
  virtual Status copyHostToDevice(void *dst, const void *src, size_t bytes,
                                  void *stream = nullptr) = 0;
  virtual Status copyDeviceToHost(void *dst, const void *src, size_t bytes,
                                  void *stream = nullptr) = 0;
  virtual Status copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                                    void *stream = nullptr) = 0;
  /// Fills `bytes` bytes at `dst` with zero, queued on `stream` (the default
  /// stream when null).
  virtual Status zero(void *dst, size_t bytes, void *stream = nullptr) = 0;
  /// Fills `bytes` at `ptr` with 0xFF bytes (NaN in every float type, -1 in
  /// the integers), queued on `stream` (the default stream when null), when
  /// the poison of this device's kind was asked for as it opened
  /// (JEET_POISON_HOST_MEMORY on the host, JEET_POISON_DEVICE_MEMORY on a
  /// CUDA device, whole words only there); does nothing otherwise. Memory
  /// about to be reused is poisoned so that a kernel reading it before
  /// writing it reads NaN, not what was left there. A debugging aid: a
  /// failed fill is not reported.
  virtual void poison(void *ptr, size_t bytes, void *stream = nullptr) = 0;
  /// Waits for all work queued on the device.
  virtual Status synchronize() = 0;
  /// Waits for the work queued on one stream.
  virtual Status synchronizeStream(void * /*stream*/) { return Status(); }
  /// The stream the device's work is queued on when none is given (null on
  /// the host, where work is synchronous). Buffers allocated without a
  /// stream belong to it: a freed one is reused by later work on the same
  /// stream only, until the stream is synchronized.
  virtual void *defaultStream() const { return nullptr; }
  /// Ok, or the error of the asynchronous work that was queued on `stream`
  /// under `ticket` (see CudaDevice::noteSubmission) and failed.
  virtual Status submissionStatus(void * /*stream*/,
                                  uint64_t /*ticket*/) const {
    return Status();
  }
  /// True for a GPU emulated on the CPU (CudaDevice on the Jeet GPU
  /// emulator): GPU code must be compiled for the emulation target, and
  /// timings say nothing about a GPU.
  virtual bool isEmulated() const { return false; }

  ExecutionStats executionStats() const;
  void resetExecutionStats();
  /// Count what the device is asked to do (called by the launch, copy and
  /// wait paths).
  void recordKernelLaunch() { kernelsLaunched_.fetch_add(1); }
  void recordGraphLaunch() { graphLaunches_.fetch_add(1); }
  void recordHostToDevice(uint64_t bytes) { h2dBytes_.fetch_add(bytes); }
  void recordDeviceToHost(uint64_t bytes) { d2hBytes_.fetch_add(bytes); }
  void recordSynchronization() { synchronizations_.fetch_add(1); }

  /// Expires when the device is closed (setCudaOptions): buffers hold it to
  /// tell a live device from a closed one.
  std::weak_ptr<const char> lifetime() const { return lifetime_; }

protected:
  Device(std::string name, DeviceKind kind,
         std::unique_ptr<CachingAllocator> allocator);
  Device(std::string name, DeviceKind kind);
  void setAllocator(std::unique_ptr<CachingAllocator> allocator);

private:
  std::string name_;
  DeviceKind kind_;
  std::unique_ptr<CachingAllocator> allocator_;
  std::shared_ptr<const char> lifetime_ = std::make_shared<const char>(0);
  std::atomic<uint64_t> kernelsLaunched_{0};
  std::atomic<uint64_t> graphLaunches_{0};
  std::atomic<uint64_t> h2dBytes_{0};
  std::atomic<uint64_t> d2hBytes_{0};
  std::atomic<uint64_t> synchronizations_{0};
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
  void poison(void *ptr, size_t bytes, void *stream = nullptr) override;
  Status synchronize() override { return Status(); }

private:
  /// JEET_POISON_HOST_MEMORY, read when made.
  const bool poison_;
};

/// The allocator backend of HostDevice (256-byte aligned malloc).
std::unique_ptr<AllocatorBackend> createHostAllocatorBackend();

/// Whether JEET_POISON_HOST_MEMORY asks for host buffers filled with 0xFF
/// bytes (NaN in every float type) when handed out and when freed, read
/// when called (the host backend reads it once, when created).
bool hostMemoryPoisonRequested();

/// Fills `bytes` at `ptr` with the poison of JEET_POISON_HOST_MEMORY.
void poisonHostMemory(void *ptr, size_t bytes);

/// Whether JEET_POISON_DEVICE_MEMORY asks for CUDA device blocks filled with
/// 0xFF bytes when the allocator hands them out (a memset on the block's
/// stream; a pooled arena each time an execution takes it), as
/// JEET_POISON_HOST_MEMORY does for the host's.
bool deviceMemoryPoisonRequested();

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
