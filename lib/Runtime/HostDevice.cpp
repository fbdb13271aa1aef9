//===- HostDevice.cpp - The CPU as a device -------------------------------===//

#include "jeet/Runtime/Device.h"

#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace jeet::runtime;

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

const char *jeet::runtime::deviceKindName(DeviceKind kind) {
  return kind == DeviceKind::Host ? "host" : "cuda";
}

Device::Device(std::string name, DeviceKind kind,
               std::unique_ptr<CachingAllocator> allocator)
    : name_(std::move(name)), kind_(kind), allocator_(std::move(allocator)) {}

Device::Device(std::string name, DeviceKind kind)
    : name_(std::move(name)), kind_(kind) {}

Device::~Device() = default;

void Device::setAllocator(std::unique_ptr<CachingAllocator> allocator) {
  allocator_ = std::move(allocator);
}

std::vector<std::pair<const char *, uint64_t>> ExecutionStats::items() const {
  return {{"kernels_launched", kernels_launched},
          {"graph_launches", graph_launches},
          {"h2d_bytes", h2d_bytes},
          {"d2h_bytes", d2h_bytes},
          {"synchronizations", synchronizations}};
}

ExecutionStats Device::executionStats() const {
  ExecutionStats stats;
  stats.kernels_launched = kernelsLaunched_.load();
  stats.graph_launches = graphLaunches_.load();
  stats.h2d_bytes = h2dBytes_.load();
  stats.d2h_bytes = d2hBytes_.load();
  stats.synchronizations = synchronizations_.load();
  return stats;
}

void Device::resetExecutionStats() {
  for (std::atomic<uint64_t> *counter :
       {&kernelsLaunched_, &graphLaunches_, &h2dBytes_, &d2hBytes_,
        &synchronizations_})
    counter->store(0);
}

//===----------------------------------------------------------------------===//
// HostDevice
//===----------------------------------------------------------------------===//

namespace {
class HostBackend : public AllocatorBackend {
  static constexpr size_t kHugePage = 2 << 20;

public:
  StatusOr<void *> rawAlloc(size_t bytes) override {
    // Segments of a huge page or more start on a huge-page boundary and ask
    // the kernel for transparent huge pages: kernels streaming through
    // hundreds of MiB then miss the TLB 512x less often.
    size_t alignment =
        bytes >= kHugePage ? kHugePage : CachingAllocator::kAlignment;
    size_t size = (bytes + alignment - 1) / alignment * alignment;
    void *ptr = std::aligned_alloc(alignment, size);
    if (!ptr)
      return outOfMemory("host malloc of " + std::to_string(bytes) +
                         " bytes failed");
#ifdef MADV_HUGEPAGE
    if (alignment == kHugePage)
      (void)madvise(ptr, size, MADV_HUGEPAGE); // Only a hint.
#endif
    return ptr;
  }
  void rawFree(void *ptr) override { std::free(ptr); }

  /// With JEET_POISON_HOST_MEMORY=1, every block is filled with 0xFF bytes
  /// when it is handed out and again when it comes back (NaN in every float
  /// type, -1 in the integers): a kernel that reads a buffer before writing
  /// it, or after its free, reads NaN instead of whatever the buffer held
  /// last, which an old value can make look right. For tests and fuzzing.
  void blockAllocated(void *ptr, size_t bytes, void *) override {
    if (poison)
      poisonHostMemory(ptr, bytes);
  }
  void blockFreed(void *ptr, size_t bytes, void *) override {
    if (poison)
      poisonHostMemory(ptr, bytes);
  }

private:
  const bool poison = hostMemoryPoisonRequested();
};
} // namespace

/// Whether the environment variable `name` is set to something but "0".
static bool isSwitchedOn(const char *name) {
  const char *value = std::getenv(name);
  return value && *value && std::strcmp(value, "0") != 0;
}

bool jeet::runtime::hostMemoryPoisonRequested() {
  return isSwitchedOn("JEET_POISON_HOST_MEMORY");
}

bool jeet::runtime::deviceMemoryPoisonRequested() {
  return isSwitchedOn("JEET_POISON_DEVICE_MEMORY");
}

void jeet::runtime::poisonHostMemory(void *ptr, size_t bytes) {
  if (bytes)
    std::memset(ptr, 0xFF, bytes);
}

std::unique_ptr<AllocatorBackend> jeet::runtime::createHostAllocatorBackend() {
  return std::make_unique<HostBackend>();
}

HostDevice::HostDevice()
    : Device("host", DeviceKind::Host,
             std::make_unique<CachingAllocator>(createHostAllocatorBackend(),
                                                "host")),
      poison_(hostMemoryPoisonRequested()) {}

Status HostDevice::copyHostToDevice(void *dst, const void *src, size_t bytes,
                                    void *) {
  if (bytes)
    std::memcpy(dst, src, bytes);
  return Status();
}

Status HostDevice::copyDeviceToHost(void *dst, const void *src, size_t bytes,
                                    void *) {
  if (bytes)
    std::memcpy(dst, src, bytes);
  return Status();
}

Status HostDevice::copyDeviceToDevice(void *dst, const void *src, size_t bytes,
                                      void *) {
  if (bytes)
    std::memmove(dst, src, bytes);
  return Status();
}

Status HostDevice::zero(void *dst, size_t bytes, void *) {
  if (bytes)
    std::memset(dst, 0, bytes);
  return Status();
}

void HostDevice::poison(void *ptr, size_t bytes, void *) {
  if (poison_)
    poisonHostMemory(ptr, bytes);
}
