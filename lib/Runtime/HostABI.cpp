//===- HostABI.cpp - mgpu* and _mlir_memref_to_llvm_* ---------------------===//

#include "jeet/Runtime/HostABI.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Execution.h"

#include <cstring>
#include <limits>
#include <mutex>
#include <unordered_map>

using namespace jeet::runtime;

//===----------------------------------------------------------------------===//
// Last error
//===----------------------------------------------------------------------===//

namespace {
thread_local Status lastError;
thread_local int defaultOrdinal = 0;
} // namespace

void jeet::runtime::recordLastError(const Status &status) {
  if (!status.ok() && lastError.ok())
    lastError = status;
}

Status jeet::runtime::takeLastError() {
  Status status = std::move(lastError);
  lastError = Status();
  return status;
}

bool jeet::runtime::hasLastError() { return !lastError.ok(); }

static bool report(const Status &status) {
  recordLastError(status);
  return status.ok();
}

/// The device the mgpu* functions act on.
static CudaDevice *target() {
  Device &device = currentDevice();
  if (device.kind() == DeviceKind::Cuda)
    return static_cast<CudaDevice *>(&device);
  StatusOr<CudaDevice *> cuda = getCudaDevice(defaultOrdinal);
  if (!cuda.ok()) {
    recordLastError(cuda.status());
    return nullptr;
  }
  return *cuda;
}

/// A name for a PTX module: its kernels, "module[k1,k2]".
static std::string moduleName(const void *data, size_t size) {
  const char *text = static_cast<const char *>(data);
  if (size >= 4 && std::memcmp(text,
                               "\x7f"
                               "ELF",
                               4) == 0)
    // e_machine 190 (EM_CUDA): a cubin; else a host object of the GPU
    // emulation target.
    return size > 18 && static_cast<unsigned char>(text[18]) == 190
               ? "cubin module"
               : "emulator module";
  std::string_view ptx(text, size ? size : std::strlen(text));
  std::string names;
  for (size_t pos = ptx.find(".entry"); pos != std::string_view::npos;
       pos = ptx.find(".entry", pos + 6)) {
    size_t begin = ptx.find_first_not_of(" \t\r\n", pos + 6);
    if (begin == std::string_view::npos)
      break;
    size_t end = ptx.find_first_of(" \t\r\n(", begin);
    if (!names.empty())
      names += ",";
    names += std::string(ptx.substr(begin, end - begin));
  }
  return "module[" + names + "]";
}

/// While a launch interceptor is installed (a CUDA graph is being built or
/// updated from the host code's launches), device work other than launches
/// is reported to it and not done.
static bool intercepted(const char *call) {
  LaunchInterceptor *current = currentLaunchInterceptor();
  if (current)
    current->unsupported(call);
  return current != nullptr;
}

static bool dimension(intptr_t value, const char *what, unsigned &out) {
  if (value < 1 || value > std::numeric_limits<int32_t>::max()) {
    recordLastError(invalidArgument("mgpuLaunchKernel: bad " +
                                    std::string(what) + " " +
                                    std::to_string(value)));
    return false;
  }
  out = static_cast<unsigned>(value);
  return true;
}

//===----------------------------------------------------------------------===//
// mgpu*
//===----------------------------------------------------------------------===//

extern "C" void *mgpuModuleLoad(void *data, size_t gpuBlobSize) {
  CudaDevice *device = target();
  if (!device)
    return nullptr;
  StatusOr<CudaModule *> module =
      device->loadModule(data, gpuBlobSize, ModuleFormat::Auto,
                         data ? moduleName(data, gpuBlobSize) : "module");
  if (!report(module.status()) || !module.ok())
    return nullptr;
  return *module;
}

extern "C" void *mgpuModuleLoadJIT(void *data, int optLevel) {
  CudaDevice *device = target();
  if (!device)
    return nullptr;
  if (!data) {
    recordLastError(invalidArgument("mgpuModuleLoadJIT: no PTX given"));
    return nullptr;
  }
  size_t size = std::strlen(static_cast<const char *>(data)) + 1;
  StatusOr<CudaModule *> module = device->loadModule(
      data, size, ModuleFormat::Ptx, moduleName(data, size - 1), optLevel);
  if (!module.ok()) {
    recordLastError(module.status());
    return nullptr;
  }
  return *module;
}

extern "C" void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  CudaDevice *device = target();
  if (!device)
    return;
  report(device->unloadModule(static_cast<CudaModule *>(module)));
}

extern "C" void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module || !name) {
    recordLastError(invalidArgument(
        "mgpuModuleGetFunction: null module (did the module load fail?)"));
    return nullptr;
  }
  StatusOr<CudaKernel *> kernel =
      static_cast<CudaModule *>(module)->getFunction(name);
  if (!kernel.ok()) {
    recordLastError(kernel.status());
    return nullptr;
  }
  return *kernel;
}

extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                 intptr_t gridZ, intptr_t blockX,
                                 intptr_t blockY, intptr_t blockZ, int32_t smem,
                                 void *stream, void **params, void **extra,
                                 size_t paramsCount) {
  if (!function) {
    recordLastError(invalidArgument(
        "mgpuLaunchKernel: null kernel (did the function lookup fail?)"));
    return;
  }
  CudaDevice *device = target();
  if (!device)
    return;
  Dim3 grid, block;
  if (!dimension(gridX, "grid x", grid.x) ||
      !dimension(gridY, "grid y", grid.y) ||
      !dimension(gridZ, "grid z", grid.z) ||
      !dimension(blockX, "block x", block.x) ||
      !dimension(blockY, "block y", block.y) ||
      !dimension(blockZ, "block z", block.z))
    return;
  CudaKernel &kernel = *static_cast<CudaKernel *>(function);
  // The parameters' sizes (CUDA-graph updates compare parameter bytes), asked
  // of the driver on the first launch, when their count is known.
  if (kernel.module && !extra)
    kernel.module->resolveParams(kernel, paramsCount);
  if (LaunchInterceptor *current = currentLaunchInterceptor()) {
    if (extra)
      current->unsupported("mgpuLaunchKernel with packed parameters");
    else
      report(current->launch(kernel, grid, block, static_cast<unsigned>(smem),
                             params));
    return;
  }
  report(device->launch(kernel, grid, block, static_cast<unsigned>(smem),
                        stream, params, extra));
}

extern "C" void *mgpuStreamCreate() {
  if (intercepted("mgpuStreamCreate"))
    return nullptr;
  CudaDevice *device = target();
  if (!device)
    return nullptr;
  StatusOr<void *> stream = device->createStream();
  if (!stream.ok()) {
    recordLastError(stream.status());
    return nullptr;
  }
  return *stream;
}

extern "C" void mgpuStreamDestroy(void *stream) {
  if (intercepted("mgpuStreamDestroy"))
    return;
  if (CudaDevice *device = target())
    report(device->destroyStream(stream));
}

extern "C" void mgpuStreamSynchronize(void *stream) {
  if (intercepted("mgpuStreamSynchronize"))
    return;
  if (CudaDevice *device = target())
    report(device->synchronizeStream(stream));
}

extern "C" void mgpuStreamWaitEvent(void *stream, void *event) {
  if (intercepted("mgpuStreamWaitEvent"))
    return;
  if (CudaDevice *device = target())
    report(device->streamWaitEvent(stream, event));
}

extern "C" void *mgpuEventCreate() {
  CudaDevice *device = target();
  if (!device)
    return nullptr;
  StatusOr<void *> event = device->createEvent(/*timing=*/false);
  if (!event.ok()) {
    recordLastError(event.status());
    return nullptr;
  }
  return *event;
}

extern "C" void mgpuEventDestroy(void *event) {
  if (CudaDevice *device = target())
    report(device->destroyEvent(event));
}

extern "C" void mgpuEventSynchronize(void *event) {
  if (intercepted("mgpuEventSynchronize"))
    return;
  if (CudaDevice *device = target())
    report(device->synchronizeEvent(event));
}

extern "C" void mgpuEventRecord(void *event, void *stream) {
  if (intercepted("mgpuEventRecord"))
    return;
  if (CudaDevice *device = target())
    report(device->recordEvent(event, stream));
}

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                              bool isHostShared) {
  if (intercepted("mgpuMemAlloc"))
    return nullptr;
  if (isHostShared) {
    recordLastError(invalidArgument(
        "mgpuMemAlloc: host-shared (managed) memory is not supported"));
    return nullptr;
  }
  CudaDevice *device = target();
  if (!device)
    return nullptr;
  StatusOr<void *> ptr = device->allocator().allocate(sizeBytes, stream);
  if (!ptr.ok()) {
    recordLastError(ptr.status());
    return nullptr;
  }
  return *ptr;
}

extern "C" void mgpuMemFree(void *ptr, void *stream) {
  if (intercepted("mgpuMemFree"))
    return;
  if (!ptr)
    return;
  CudaDevice *device = target();
  if (!device)
    return;
  report(stream ? device->allocator().free(ptr, stream)
                : device->allocator().free(ptr));
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           void *stream) {
  if (intercepted("mgpuMemcpy"))
    return;
  if (CudaDevice *device = target())
    report(device->copyAsync(dst, src, sizeBytes, stream));
}

extern "C" void mgpuMemset32(void *dst, unsigned value, size_t count,
                             void *stream) {
  if (intercepted("mgpuMemset32"))
    return;
  if (CudaDevice *device = target())
    report(device->memset32(dst, value, count, stream));
}

extern "C" void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {}

extern "C" void mgpuSetDefaultDevice(int32_t device) {
  defaultOrdinal = device;
  Device &current = currentDevice();
  if (current.kind() == DeviceKind::Cuda &&
      static_cast<CudaDevice &>(current).ordinal() != device)
    setCurrentDevice(nullptr);
}

//===----------------------------------------------------------------------===//
// _mlir_memref_to_llvm_*
//===----------------------------------------------------------------------===//

namespace {
// Pointers handed out by aligned_alloc with an alignment above 256, mapped to
// the block they lie in.
std::mutex overalignedMutex;
std::unordered_map<void *, void *> &overaligned() {
  static auto *map = new std::unordered_map<void *, void *>();
  return *map;
}
} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  StatusOr<void *> ptr = getHostDevice().allocator().allocate(size);
  if (!ptr.ok()) {
    recordLastError(ptr.status());
    return nullptr;
  }
  return *ptr;
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  if (alignment <= CachingAllocator::kAlignment)
    return _mlir_memref_to_llvm_alloc(size);
  if (alignment & (alignment - 1)) {
    recordLastError(invalidArgument("_mlir_memref_to_llvm_aligned_alloc: "
                                    "alignment " +
                                    std::to_string(alignment) +
                                    " is not a power of two"));
    return nullptr;
  }
  void *base = _mlir_memref_to_llvm_alloc(size + alignment);
  if (!base)
    return nullptr;
  uintptr_t address = reinterpret_cast<uintptr_t>(base);
  void *aligned =
      reinterpret_cast<void *>((address + alignment - 1) & ~(alignment - 1));
  if (aligned != base) {
    std::lock_guard<std::mutex> lock(overalignedMutex);
    overaligned()[aligned] = base;
  }
  return aligned;
}

extern "C" void jeetAllocationFailed(uint64_t bytes) {
  // The thread that failed recorded the allocator's own message on its own
  // slot; the caller gets one naming the size and the host's statistics.
  recordLastError(outOfMemory(
      "a buffer of " + std::to_string(bytes) +
      " bytes could not be allocated inside a parallel kernel; host memory: " +
      getHostDevice().allocator().stats().toString()));
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  {
    std::lock_guard<std::mutex> lock(overalignedMutex);
    auto it = overaligned().find(ptr);
    if (it != overaligned().end()) {
      ptr = it->second;
      overaligned().erase(it);
    }
  }
  recordLastError(getHostDevice().allocator().free(ptr));
}

//===----------------------------------------------------------------------===//
// Symbol table
//===----------------------------------------------------------------------===//

const HostSymbol *jeet::runtime::getHostABISymbols(size_t *count) {
#define JEET_SYMBOL(name)                                                      \
  { #name, reinterpret_cast < void *>(&name) }
  static const HostSymbol symbols[] = {
      JEET_SYMBOL(mgpuModuleLoad),
      JEET_SYMBOL(mgpuModuleLoadJIT),
      JEET_SYMBOL(mgpuModuleUnload),
      JEET_SYMBOL(mgpuModuleGetFunction),
      JEET_SYMBOL(mgpuLaunchKernel),
      JEET_SYMBOL(mgpuStreamCreate),
      JEET_SYMBOL(mgpuStreamDestroy),
      JEET_SYMBOL(mgpuStreamSynchronize),
      JEET_SYMBOL(mgpuStreamWaitEvent),
      JEET_SYMBOL(mgpuEventCreate),
      JEET_SYMBOL(mgpuEventDestroy),
      JEET_SYMBOL(mgpuEventSynchronize),
      JEET_SYMBOL(mgpuEventRecord),
      JEET_SYMBOL(mgpuMemAlloc),
      JEET_SYMBOL(mgpuMemFree),
      JEET_SYMBOL(mgpuMemcpy),
      JEET_SYMBOL(mgpuMemset32),
      JEET_SYMBOL(mgpuMemHostRegisterMemRef),
      JEET_SYMBOL(mgpuMemHostUnregisterMemRef),
      JEET_SYMBOL(mgpuSetDefaultDevice),
      JEET_SYMBOL(jeetAllocationFailed),
      JEET_SYMBOL(_mlir_memref_to_llvm_alloc),
      JEET_SYMBOL(_mlir_memref_to_llvm_aligned_alloc),
      JEET_SYMBOL(_mlir_memref_to_llvm_free),
  };
#undef JEET_SYMBOL
  if (count)
    *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}
