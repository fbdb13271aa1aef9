//===- CudaDevice.cpp - An NVIDIA GPU through the driver API --------------===//

#include "jeet/Runtime/CudaDevice.h"

#include "jeet/Emulator/Emulator.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace jeet::runtime;
using namespace jeet::runtime::cu;

//===----------------------------------------------------------------------===//
// Versions
//===----------------------------------------------------------------------===//

int jeet::runtime::minDriverVersionForPtx(int ptxVersion) {
  // PTX ISA version (major*10+minor) -> first CUDA release that JITs it.
  struct Entry {
    int ptx;
    int driver;
  };
  static const Entry table[] = {
      {60, 9000},  {61, 9010},  {62, 9020},  {63, 10000}, {64, 10010},
      {65, 10020}, {70, 11000}, {71, 11010}, {72, 11020}, {73, 11030},
      {74, 11040}, {75, 11050}, {76, 11060}, {77, 11070}, {78, 11080},
      {80, 12000}, {81, 12010}, {82, 12020}, {83, 12030}, {84, 12040},
      {85, 12050}, {86, 12070}, {87, 12080}, {88, 12090}, {90, 13000},
  };
  for (const Entry &entry : table)
    if (entry.ptx == ptxVersion)
      return entry.driver;
  return 0;
}

std::string jeet::runtime::formatDriverVersion(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string((version % 1000) / 10);
}

static std::string formatCapability(int cc) {
  return std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}

//===----------------------------------------------------------------------===//
// Allocator backend
//===----------------------------------------------------------------------===//

namespace {
CUdeviceptr devicePtr(const void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

class CudaBackend : public AllocatorBackend {
public:
  explicit CudaBackend(CudaDevice &device) : device_(device) {}

  StatusOr<void *> rawAlloc(size_t bytes) override {
    JEET_RETURN_IF_ERROR(device_.activate());
    const CudaDriver &driver = device_.driver();
    CUdeviceptr ptr = 0;
    CUresult result = driver.cuMemAlloc_v2(&ptr, bytes);
    if (result != CUDA_SUCCESS) {
      Status status = driver.check(result, "cuMemAlloc_v2",
                                   "(" + std::to_string(bytes) + " bytes on " +
                                       device_.name() + ")");
      if (result == CUDA_ERROR_OUT_OF_MEMORY)
        return outOfMemory(status.message());
      return status;
    }
    return reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
  }

  void rawFree(void *ptr) override {
    if (device_.activate().ok())
      device_.driver().cuMemFree_v2(
          static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr)));
  }

  // The emulator checks kernel accesses against the tensors' blocks, not
  // the allocator's segments (a real driver is not told).
  void blockAllocated(void *ptr, size_t bytes, void *stream) override {
    const CudaDriver &driver = device_.driver();
    if (driver.jeetEmulatorRegisterRegion)
      driver.jeetEmulatorRegisterRegion(ptr, bytes, stream);
    // JEET_POISON_DEVICE_MEMORY: filled on its stream before any use (a
    // freed block handed out again is a live region once more, so the
    // emulator's checks do not see a read of what its last owner left).
    device_.poison(ptr, bytes, stream);
  }

  void blockFreed(void *ptr, size_t, void *stream) override {
    const CudaDriver &driver = device_.driver();
    if (driver.jeetEmulatorUnregisterRegion)
      driver.jeetEmulatorUnregisterRegion(ptr, stream);
  }

private:
  CudaDevice &device_;
};

std::atomic<uint64_t> nextDeviceId{1};

/// The most distinct labels of queued work an error names.
constexpr size_t kMaxPendingLabels = 8;
thread_local uint64_t activeDeviceId = 0;
} // namespace

//===----------------------------------------------------------------------===//
// Opening
//===----------------------------------------------------------------------===//

CudaDevice::CudaDevice(std::shared_ptr<CudaDriver> driver, int ordinal)
    : Device("cuda:" + std::to_string(ordinal), DeviceKind::Cuda),
      driver_(std::move(driver)), ordinal_(ordinal),
      id_(nextDeviceId.fetch_add(1)) {}

StatusOr<std::unique_ptr<CudaDevice>>
CudaDevice::open(const CudaOptions &options) {
  StatusOr<std::shared_ptr<CudaDriver>> loaded =
      CudaDriver::load(options.driverPath);
  if (!loaded.ok())
    return loaded.status();
  std::shared_ptr<CudaDriver> driver = std::move(*loaded);
  auto unavailable = [&](CUresult result, const char *call) {
    return deviceUnavailable(driver->check(result, call).message());
  };

  if (driver->isEmulator() &&
      driver->jeetEmulatorVersion() != JEET_EMULATOR_VERSION)
    return deviceUnavailable(
        "the Jeet GPU emulator " + options.driverPath + " has interface " +
        "version " + std::to_string(driver->jeetEmulatorVersion()) +
        ", this runtime expects " + std::to_string(JEET_EMULATOR_VERSION) +
        " (use the emulator built with this runtime)");
  if (CUresult result = driver->cuInit(0))
    return unavailable(result, "cuInit");
  int version = 0;
  if (CUresult result = driver->cuDriverGetVersion(&version))
    return unavailable(result, "cuDriverGetVersion");
  if (options.requiredPtxVersion > 0) {
    int needed = minDriverVersionForPtx(options.requiredPtxVersion);
    if (needed > 0 && version < needed)
      return deviceUnavailable(
          "driver version " + formatDriverVersion(version) + " is older than " +
          formatDriverVersion(needed) + " needed for PTX ISA " +
          formatCapability(options.requiredPtxVersion) +
          " (update the NVIDIA driver, or compile for an older PTX ISA)");
  }
  int count = 0;
  if (CUresult result = driver->cuDeviceGetCount(&count))
    return unavailable(result, "cuDeviceGetCount");
  if (count == 0)
    return deviceUnavailable("no CUDA device");
  if (options.ordinal < 0 || options.ordinal >= count)
    return deviceUnavailable(
        "CUDA device ordinal " + std::to_string(options.ordinal) +
        " out of range: " + std::to_string(count) + " device(s)");

  std::unique_ptr<CudaDevice> device(new CudaDevice(driver, options.ordinal));
  device->driverVersion_ = version;
  if (CUresult result = driver->cuDeviceGet(&device->device_, options.ordinal))
    return unavailable(result, "cuDeviceGet");
  char name[256] = {0};
  if (CUresult result =
          driver->cuDeviceGetName(name, sizeof(name) - 1, device->device_))
    return unavailable(result, "cuDeviceGetName");
  device->deviceName_ = name;
  int major = 0, minor = 0;
  if (CUresult result = driver->cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
          device->device_))
    return unavailable(result, "cuDeviceGetAttribute");
  if (CUresult result = driver->cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
          device->device_))
    return unavailable(result, "cuDeviceGetAttribute");
  device->computeCapability_ = major * 10 + minor;
  if (options.minComputeCapability > 0 &&
      device->computeCapability_ < options.minComputeCapability)
    return deviceUnavailable(
        "compute capability " + formatCapability(device->computeCapability_) +
        " is older than sm_" + std::to_string(options.minComputeCapability) +
        " the code was compiled for");
  if (CUresult result =
          driver->cuDevicePrimaryCtxRetain(&device->context_, device->device_))
    return unavailable(result, "cuDevicePrimaryCtxRetain");
  if (Status status = device->activate(); !status.ok())
    return deviceUnavailable(status.message());
  CUstream stream = nullptr;
  if (CUresult result = driver->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING))
    return unavailable(result, "cuStreamCreate");
  device->stream_ = stream;
  device->setAllocator(std::make_unique<CachingAllocator>(
      std::make_unique<CudaBackend>(*device), device->name()));
  return device;
}

CudaDevice::~CudaDevice() {
  // The allocator's backend calls the driver: release memory first.
  setAllocator(nullptr);
  if (!activate().ok())
    return;
  for (auto &entry : modules_)
    driver_->cuModuleUnload(entry.second->handle());
  for (auto &entry : streams_)
    driver_->cuStreamDestroy_v2(static_cast<CUstream>(entry.first));
  if (stream_)
    driver_->cuStreamDestroy_v2(static_cast<CUstream>(stream_));
  if (activeDeviceId == id_)
    activeDeviceId = 0;
}

std::string CudaDevice::description() const {
  std::string text = deviceName_ + ", sm_" +
                     std::to_string(computeCapability_) + ", driver " +
                     formatDriverVersion(driverVersion_);
  if (isEmulator())
    text += " (emulated: kernels run on the host CPU; no GPU speed)";
  return text;
}

Status CudaDevice::activate() {
  if (activeDeviceId == id_)
    return Status();
  JEET_RETURN_IF_ERROR(
      driver_->check(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"));
  activeDeviceId = id_;
  return Status();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Status CudaDevice::copyHostToDevice(void *dst, const void *src, size_t bytes,
                                    void *stream) {
  if (!bytes)
    return Status();
  JEET_RETURN_IF_ERROR(activate());
  // Queued on the stream behind the work that may still use the memory; the
  // driver stages pageable host memory before returning.
  JEET_RETURN_IF_ERROR(
      driver_->check(driver_->cuMemcpyHtoDAsync_v2(
                         devicePtr(dst), src, bytes,
                         static_cast<CUstream>(stream ? stream : stream_)),
                     "cuMemcpyHtoDAsync_v2"));
  recordHostToDevice(bytes);
  return Status();
}

Status CudaDevice::copyDeviceToHost(void *dst, const void *src, size_t bytes,
                                    void *stream) {
  JEET_RETURN_IF_ERROR(stream ? synchronizeStream(stream) : synchronize());
  if (!bytes)
    return Status();
  JEET_RETURN_IF_ERROR(driver_->check(
      driver_->cuMemcpyDtoH_v2(dst, devicePtr(src), bytes), "cuMemcpyDtoH_v2"));
  recordDeviceToHost(bytes);
  return Status();
}

Status CudaDevice::copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                                      void *stream) {
  if (!bytes)
    return Status();
  return copyAsync(dst, src, bytes, stream ? stream : stream_);
}

Status CudaDevice::zero(void *dst, size_t bytes, void *stream) {
  CUstream on = static_cast<CUstream>(stream ? stream : stream_);
  JEET_RETURN_IF_ERROR(activate());
  if (bytes / 4)
    JEET_RETURN_IF_ERROR(driver_->check(
        driver_->cuMemsetD32Async(devicePtr(dst), 0, bytes / 4, on),
        "cuMemsetD32Async"));
  if (size_t tail = bytes % 4) {
    static const char zeros[4] = {0, 0, 0, 0};
    JEET_RETURN_IF_ERROR(
        driver_->check(driver_->cuMemcpyHtoDAsync_v2(
                           devicePtr(static_cast<char *>(dst) + bytes - tail),
                           zeros, tail, on),
                       "cuMemcpyHtoDAsync_v2"));
  }
  return Status();
}

Status CudaDevice::copyAsync(void *dst, const void *src, size_t bytes,
                             void *stream) {
  JEET_RETURN_IF_ERROR(activate());
  return driver_->check(driver_->cuMemcpyAsync(devicePtr(dst), devicePtr(src),
                                               bytes,
                                               static_cast<CUstream>(stream)),
                        "cuMemcpyAsync");
}

Status CudaDevice::memset32(void *dst, uint32_t value, size_t count,
                            void *stream) {
  JEET_RETURN_IF_ERROR(activate());
  return driver_->check(
      driver_->cuMemsetD32Async(devicePtr(dst), value, count,
                                static_cast<CUstream>(stream)),
      "cuMemsetD32Async");
}

void CudaDevice::poison(void *ptr, size_t bytes, void *stream) {
  if (poison_ && bytes >= 4)
    (void)memset32(ptr, 0xFFFFFFFFu, bytes / 4, stream ? stream : stream_);
}

StatusOr<std::pair<size_t, size_t>> CudaDevice::memInfo() {
  JEET_RETURN_IF_ERROR(activate());
  size_t free = 0, total = 0;
  JEET_RETURN_IF_ERROR(
      driver_->check(driver_->cuMemGetInfo_v2(&free, &total), "cuMemGetInfo"));
  return std::make_pair(free, total);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

StatusOr<void *> CudaDevice::createStream() {
  JEET_RETURN_IF_ERROR(activate());
  CUstream stream = nullptr;
  JEET_RETURN_IF_ERROR(
      driver_->check(driver_->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                     "cuStreamCreate"));
  std::lock_guard<std::mutex> lock(mutex_);
  streams_[stream] = true;
  return static_cast<void *>(stream);
}

Status CudaDevice::destroyStream(void *stream) {
  JEET_RETURN_IF_ERROR(synchronizeStream(stream));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    streams_.erase(stream);
  }
  return driver_->check(
      driver_->cuStreamDestroy_v2(static_cast<CUstream>(stream)),
      "cuStreamDestroy_v2");
}

Status CudaDevice::synchronizeStream(void *stream) {
  JEET_RETURN_IF_ERROR(activate());
  recordSynchronization();
  Status status = driver_->check(
      driver_->cuStreamSynchronize(static_cast<CUstream>(stream)),
      "cuStreamSynchronize");
  // The stream has run (or abandoned) everything queued so far: its freed
  // blocks are safe anywhere, even after a failure.
  allocator().streamSynchronized(stream);
  return settleSubmissions(stream, std::move(status));
}

uint64_t CudaDevice::noteSubmission(void *stream, const std::string &label) {
  std::lock_guard<std::mutex> lock(submissionsMutex_);
  Submissions &state = submissions_[stream ? stream : stream_];
  for (auto &entry : state.pending)
    if (entry.first == label) {
      ++entry.second;
      return ++state.submitted;
    }
  if (state.pending.size() < kMaxPendingLabels)
    state.pending.emplace_back(label, 1);
  return ++state.submitted;
}

Status CudaDevice::submissionStatus(void *stream, uint64_t ticket) const {
  std::lock_guard<std::mutex> lock(submissionsMutex_);
  auto it = submissions_.find(stream ? stream : stream_);
  if (it == submissions_.end())
    return Status();
  for (const Submissions::Failure &failure : it->second.failures)
    if (ticket >= failure.first && ticket <= failure.last)
      return failure.status;
  return Status();
}

Status CudaDevice::settleSubmissions(void *stream, Status error) {
  std::lock_guard<std::mutex> lock(submissionsMutex_);
  auto it = submissions_.find(stream);
  if (it == submissions_.end())
    return error;
  Submissions &state = it->second;
  if (!error.ok() && state.submitted > state.waited) {
    std::string queued;
    for (const auto &[label, count] : state.pending)
      queued += (queued.empty() ? "" : ", ") + label +
                (count > 1 ? " (x" + std::to_string(count) + ")" : "");
    error = Status(error.code(), "asynchronous work on " + name() +
                                     " failed; queued since the last wait: " +
                                     queued + "\n" + error.message());
    state.failures.push_back({state.waited + 1, state.submitted, error});
  }
  state.waited = state.submitted;
  state.pending.clear();
  return error;
}

Status CudaDevice::synchronize() {
  std::vector<void *> streams{stream_};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto &entry : streams_)
      streams.push_back(entry.first);
  }
  for (void *stream : streams)
    JEET_RETURN_IF_ERROR(synchronizeStream(stream));
  return Status();
}

Status CudaDevice::orderStreams(void *producer, void *consumer) {
  if (producer == consumer)
    return Status();
  StatusOr<void *> event = createEvent(/*timing=*/false);
  if (!event.ok())
    return event.status();
  Status status = recordEvent(*event, producer);
  if (status.ok())
    status = streamWaitEvent(consumer, *event);
  // An event may be destroyed while a stream still waits for it.
  Status destroyed = destroyEvent(*event);
  return status.ok() ? destroyed : status;
}

Status CudaDevice::streamWaitEvent(void *stream, void *event) {
  JEET_RETURN_IF_ERROR(activate());
  return driver_->check(
      driver_->cuStreamWaitEvent(static_cast<CUstream>(stream),
                                 static_cast<CUevent>(event), 0),
      "cuStreamWaitEvent");
}

StatusOr<void *> CudaDevice::createEvent(bool timing) {
  JEET_RETURN_IF_ERROR(activate());
  CUevent event = nullptr;
  JEET_RETURN_IF_ERROR(driver_->check(
      driver_->cuEventCreate(&event, timing ? CU_EVENT_DEFAULT
                                            : CU_EVENT_DISABLE_TIMING),
      "cuEventCreate"));
  return static_cast<void *>(event);
}

Status CudaDevice::destroyEvent(void *event) {
  return driver_->check(driver_->cuEventDestroy_v2(static_cast<CUevent>(event)),
                        "cuEventDestroy_v2");
}

Status CudaDevice::recordEvent(void *event, void *stream) {
  JEET_RETURN_IF_ERROR(activate());
  return driver_->check(driver_->cuEventRecord(static_cast<CUevent>(event),
                                               static_cast<CUstream>(stream)),
                        "cuEventRecord");
}

Status CudaDevice::synchronizeEvent(void *event) {
  JEET_RETURN_IF_ERROR(activate());
  recordSynchronization();
  return driver_->check(
      driver_->cuEventSynchronize(static_cast<CUevent>(event)),
      "cuEventSynchronize");
}

StatusOr<float> CudaDevice::elapsedMs(void *start, void *end) {
  JEET_RETURN_IF_ERROR(synchronizeEvent(end));
  float ms = 0;
  JEET_RETURN_IF_ERROR(driver_->check(
      driver_->cuEventElapsedTime(&ms, static_cast<CUevent>(start),
                                  static_cast<CUevent>(end)),
      "cuEventElapsedTime"));
  return ms;
}
