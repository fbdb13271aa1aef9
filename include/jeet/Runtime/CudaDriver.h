//===- CudaDriver.h - The CUDA driver API, loaded with dlopen ---*- C++ -*-===//
//
// The few driver types and entry points the runtime uses, declared here so
// that nothing needs cuda.h, and resolved from libcuda.so.1 (or another path)
// at run time. The project builds, links and runs on machines with no driver.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_RUNTIME_CUDADRIVER_H
#define JEET_RUNTIME_CUDADRIVER_H

#include "jeet/Runtime/Status.h"

#include <cstddef>
#include <memory>
#include <string>

struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace jeet {
namespace runtime {
namespace cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
using CUjit_option = int;

// Values from cuda.h (stable ABI).
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_IMAGE = 200;
constexpr CUresult CUDA_ERROR_INVALID_CONTEXT = 201;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
constexpr CUresult CUDA_ERROR_INVALID_HANDLE = 400;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;
constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
constexpr CUresult CUDA_ERROR_MISALIGNED_ADDRESS = 716;
constexpr CUresult CUDA_ERROR_LAUNCH_FAILED = 719;
constexpr CUresult CUDA_ERROR_UNKNOWN = 999;

constexpr CUjit_option CU_JIT_WALL_TIME = 2;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_OPTIMIZATION_LEVEL = 7;
constexpr CUjit_option CU_JIT_LOG_VERBOSE = 12;

constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;

} // namespace cu

/// The resolved driver entry points. Obtain with CudaDriver::load().
struct CudaDriver {
  using CUresult = cu::CUresult;

  /// dlopens `path` and resolves every entry point. DeviceUnavailable:
  /// "no CUDA driver: dlopen <path> failed: <dlerror>", or
  /// "no CUDA driver: <path> lacks <symbol>". The library stays loaded for
  /// the life of the process.
  static StatusOr<std::shared_ptr<CudaDriver>> load(const std::string &path);

  /// Ok for CUDA_SUCCESS, else DriverError
  /// "<call> failed[ <context>]: CUDA_ERROR_X (<description>)", followed on
  /// the emulator by its report of the failure (the faulting kernel, block,
  /// thread and address, the race, why a module was refused...).
  Status check(CUresult result, const char *call,
               const std::string &context = std::string()) const;
  /// "CUDA_ERROR_X" (or "CUresult <n>").
  std::string errorName(CUresult result) const;
  std::string errorString(CUresult result) const;

  std::string path;
  void *handle = nullptr;

  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *version) = nullptr;
  CUresult (*cuDeviceGet)(cu::CUdevice *device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute,
                                   cu::CUdevice device) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int length,
                              cu::CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(cu::CUcontext *context,
                                       cu::CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(cu::CUcontext context) = nullptr;
  CUresult (*cuMemAlloc_v2)(cu::CUdeviceptr *ptr, size_t bytes) = nullptr;
  CUresult (*cuMemFree_v2)(cu::CUdeviceptr ptr) = nullptr;
  CUresult (*cuMemcpyHtoD_v2)(cu::CUdeviceptr dst, const void *src,
                              size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH_v2)(void *dst, cu::CUdeviceptr src,
                              size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoD_v2)(cu::CUdeviceptr dst, cu::CUdeviceptr src,
                              size_t bytes) = nullptr;
  CUresult (*cuMemcpyAsync)(cu::CUdeviceptr dst, cu::CUdeviceptr src,
                            size_t bytes, cu::CUstream stream) = nullptr;
  CUresult (*cuMemsetD32_v2)(cu::CUdeviceptr dst, unsigned value,
                             size_t count) = nullptr;
  CUresult (*cuMemsetD32Async)(cu::CUdeviceptr dst, unsigned value,
                               size_t count, cu::CUstream stream) = nullptr;
  CUresult (*cuMemGetInfo_v2)(size_t *free, size_t *total) = nullptr;
  CUresult (*cuModuleLoadDataEx)(cu::CUmodule *module, const void *image,
                                 unsigned numOptions, cu::CUjit_option *options,
                                 void **optionValues) = nullptr;
  CUresult (*cuModuleUnload)(cu::CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(cu::CUfunction *function, cu::CUmodule module,
                                  const char *name) = nullptr;
  CUresult (*cuLaunchKernel)(cu::CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedMemBytes, cu::CUstream stream,
                             void **params, void **extra) = nullptr;
  CUresult (*cuStreamCreate)(cu::CUstream *stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy_v2)(cu::CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(cu::CUstream stream) = nullptr;
  CUresult (*cuStreamWaitEvent)(cu::CUstream stream, cu::CUevent event,
                                unsigned flags) = nullptr;
  CUresult (*cuEventCreate)(cu::CUevent *event, unsigned flags) = nullptr;
  CUresult (*cuEventDestroy_v2)(cu::CUevent event) = nullptr;
  CUresult (*cuEventRecord)(cu::CUevent event, cu::CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(cu::CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float *ms, cu::CUevent start,
                                 cu::CUevent end) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char **name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char **text) = nullptr;

  /// True when the library is the Jeet GPU emulator
  /// (libjeet_cuda_emulator.so, include/jeet/Emulator/Emulator.h), which
  /// runs kernels compiled for the emulation target on the CPU.
  bool isEmulator() const { return jeetEmulatorVersion != nullptr; }

  // Resolved when present: only the emulator exports them.
  int (*jeetEmulatorVersion)() = nullptr;
  const char *(*jeetEmulatorLastError)() = nullptr;
  void (*jeetEmulatorRegisterRegion)(const void *ptr, size_t bytes,
                                     void *stream) = nullptr;
  void (*jeetEmulatorUnregisterRegion)(const void *ptr, void *stream) = nullptr;
};

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_CUDADRIVER_H
