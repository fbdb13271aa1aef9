//===- HostABI.h - Functions that compiled host code calls ------*- C++ -*-===//
//
// The C functions that MLIR's gpu-to-llvm lowering (mgpu*) and
// finalize-memref-to-llvm{use-generic-functions=true} (_mlir_memref_to_llvm_*)
// make the host code call. The mgpu* functions act on the calling thread's
// current device when it is a CUDA device, else on CUDA device
// mgpuSetDefaultDevice() chose (default 0), through its caching allocator.
// The _mlir_memref_to_llvm_* functions use the host device's caching
// allocator, so the JIT'ed CPU code's intermediates show in its statistics.
//
// None of them can return an error: a failure records the first error in a
// thread-local slot (read it with takeLastError()) and returns null or does
// nothing.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_RUNTIME_HOSTABI_H
#define JEET_RUNTIME_HOSTABI_H

#include "jeet/Runtime/Status.h"

#include <cstddef>
#include <cstdint>

extern "C" {
void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate();
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream);
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes);
void mgpuSetDefaultDevice(int32_t device);

/// Called by generated host code (jeet-cpu-check-allocations) when an
/// allocation of `bytes` failed inside a parallel region, on another thread:
/// records an OutOfMemory error on the calling thread.
void jeetAllocationFailed(uint64_t bytes);

void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *ptr);
}

namespace jeet {
namespace runtime {

struct HostSymbol {
  const char *name;
  void *address;
};

/// Every function above, for registering with the JIT
/// (ExecutionEngine::registerSymbols).
const HostSymbol *getHostABISymbols(size_t *count);

/// Returns the first error recorded on this thread since the last call (Ok
/// when none) and clears the slot.
Status takeLastError();
/// True when an error is recorded on this thread.
bool hasLastError();
/// Records `status` unless an error is already recorded (used by the host ABI
/// and the C API).
void recordLastError(const Status &status);

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_HOSTABI_H
