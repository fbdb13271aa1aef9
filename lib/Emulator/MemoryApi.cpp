//===- MemoryApi.cpp - cuMem* entry points and allocator regions ----------===//

#include "Memory.h"
#include "Streams.h"

#include "jeet/Emulator/Emulator.h"

#include <cstring>

using namespace jeet::emulator;

namespace {
using CUdeviceptr = unsigned long long;

uintptr_t address(CUdeviceptr ptr) { return static_cast<uintptr_t>(ptr); }

/// A device range a copy or memset reads or writes must lie in one live
/// allocation, as the driver requires.
CUresult checkDeviceRange(const char *call, const char *what, uintptr_t ptr,
                          size_t bytes) {
  if (memory().inAllocation(ptr, bytes))
    return kSuccess;
  return fail(kInvalidValue, std::string(call) + ": the " + what + " (" +
                                 memory().explainRange(ptr, bytes) + ")");
}

void fill32(uintptr_t dst, uint32_t value, size_t count) {
  uint32_t *words = reinterpret_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
}
} // namespace

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

JEET_EMU_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  if (!initialized())
    return fail(kNotInitialized);
  if (!ptr)
    return fail(kInvalidValue);
  std::lock_guard<std::mutex> lock(deviceMutex());
  uintptr_t base = 0;
  if (CUresult result = memory().allocate(bytes, &base))
    return result;
  *ptr = base;
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  // Work queued on any stream may still use the memory: run it first (the
  // driver's cuMemFree synchronises too).
  queues().flushAll();
  return memory().release(address(ptr));
}

JEET_EMU_EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  if (!free || !total)
    return fail(kInvalidValue);
  std::lock_guard<std::mutex> lock(deviceMutex());
  *total = memory().capacity();
  *free = *total - std::min(*total, memory().bytesInUse());
  return kSuccess;
}

JEET_EMU_EXPORT void jeetEmulatorRegisterRegion(const void *ptr, size_t bytes,
                                                void *streamHandle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  uintptr_t base = reinterpret_cast<uintptr_t>(ptr);
  Stream *stream = streamHandle ? queues().stream(streamHandle) : nullptr;
  if (!stream) {
    memory().registerRegion(base, bytes,
                            currentChecks() & JEET_EMULATOR_CHECK_MEMORY);
    return;
  }
  Operation operation{Operation::Kind::Register};
  operation.dst = base;
  operation.bytes = bytes;
  queues().enqueue(*stream, std::move(operation));
}

JEET_EMU_EXPORT void jeetEmulatorUnregisterRegion(const void *ptr,
                                                  void *streamHandle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  uintptr_t base = reinterpret_cast<uintptr_t>(ptr);
  Stream *stream = streamHandle ? queues().stream(streamHandle) : nullptr;
  if (!stream) {
    memory().unregisterRegion(base);
    return;
  }
  Operation operation{Operation::Kind::Unregister};
  operation.dst = base;
  queues().enqueue(*stream, std::move(operation));
}

//===----------------------------------------------------------------------===//
// Synchronous copies and memsets
//===----------------------------------------------------------------------===//

JEET_EMU_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src,
                                         size_t bytes) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  queues().flushForSynchronousCall();
  if (!bytes)
    return kSuccess;
  if (!src)
    return fail(kInvalidValue, "cuMemcpyHtoD: null source");
  if (CUresult result =
          checkDeviceRange("cuMemcpyHtoD", "destination", address(dst), bytes))
    return result;
  std::memcpy(reinterpret_cast<void *>(address(dst)), src, bytes);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src,
                                         size_t bytes) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  queues().flushForSynchronousCall();
  if (!bytes)
    return kSuccess;
  if (!dst)
    return fail(kInvalidValue, "cuMemcpyDtoH: null destination");
  if (CUresult result =
          checkDeviceRange("cuMemcpyDtoH", "source", address(src), bytes))
    return result;
  std::memcpy(dst, reinterpret_cast<const void *>(address(src)), bytes);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src,
                                         size_t bytes) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  queues().flushForSynchronousCall();
  if (!bytes)
    return kSuccess;
  if (CUresult result =
          checkDeviceRange("cuMemcpyDtoD", "source", address(src), bytes))
    return result;
  if (CUresult result =
          checkDeviceRange("cuMemcpyDtoD", "destination", address(dst), bytes))
    return result;
  std::memmove(reinterpret_cast<void *>(address(dst)),
               reinterpret_cast<const void *>(address(src)), bytes);
  return kSuccess;
}

static CUresult checkMemset(const char *call, CUdeviceptr dst, size_t count) {
  if (address(dst) % 4)
    return fail(kInvalidValue, std::string(call) + ": the destination " +
                                   formatAddress(address(dst)) +
                                   " is not 4-byte aligned");
  return checkDeviceRange(call, "destination", address(dst), count * 4);
}

JEET_EMU_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned value,
                                        size_t count) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  queues().flushForSynchronousCall();
  if (!count)
    return kSuccess;
  if (CUresult result = checkMemset("cuMemsetD32", dst, count))
    return result;
  fill32(address(dst), value, count);
  return kSuccess;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies and memsets
//===----------------------------------------------------------------------===//

/// Unified addressing: each side is device memory when it lies in a device
/// allocation, else host memory.
JEET_EMU_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
                                       size_t bytes, void *streamHandle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Stream *stream = queues().stream(streamHandle);
  if (!stream)
    return fail(kInvalidHandle, "cuMemcpyAsync on an unknown stream");
  if (!bytes)
    return kSuccess;
  if (!dst || !src)
    return fail(kInvalidValue, "cuMemcpyAsync: null pointer");
  bool deviceDst = memory().isDevice(address(dst));
  bool deviceSrc = memory().isDevice(address(src));
  if (deviceDst)
    if (CUresult result = checkDeviceRange("cuMemcpyAsync", "destination",
                                           address(dst), bytes))
      return result;
  if (deviceSrc)
    if (CUresult result =
            checkDeviceRange("cuMemcpyAsync", "source", address(src), bytes))
      return result;
  Operation operation{Operation::Kind::Copy};
  operation.dst = address(dst);
  operation.src = address(src);
  operation.bytes = bytes;
  if (!deviceSrc) {
    const char *source = reinterpret_cast<const char *>(address(src));
    operation.staged.assign(source, source + bytes);
  }
  queues().enqueue(*stream, std::move(operation));
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value,
                                          size_t count, void *streamHandle) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Stream *stream = queues().stream(streamHandle);
  if (!stream)
    return fail(kInvalidHandle, "cuMemsetD32Async on an unknown stream");
  if (!count)
    return kSuccess;
  if (CUresult result = checkMemset("cuMemsetD32Async", dst, count))
    return result;
  Operation operation{Operation::Kind::Memset32};
  operation.dst = address(dst);
  operation.bytes = count * 4;
  operation.value = value;
  queues().enqueue(*stream, std::move(operation));
  return kSuccess;
}
