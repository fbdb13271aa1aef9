//===- CudaDriver.cpp - dlopen the CUDA driver, check its results ---------===//

#include "jeet/Runtime/CudaDriver.h"

#include <dlfcn.h>

using namespace jeet::runtime;

namespace {
template <typename F>
bool resolve(void *handle, const char *name, F &fn, std::string &missing) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
  if (!fn && missing.empty())
    missing = name;
  return fn != nullptr;
}
} // namespace

StatusOr<std::shared_ptr<CudaDriver>>
CudaDriver::load(const std::string &path) {
  dlerror();
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *error = dlerror();
    return deviceUnavailable("no CUDA driver: dlopen " + path +
                             " failed: " + (error ? error : "unknown error"));
  }
  auto driver = std::make_shared<CudaDriver>();
  driver->path = path;
  driver->handle = handle;
  std::string missing;
#define JEET_RESOLVE(name) resolve(handle, #name, driver->name, missing)
  JEET_RESOLVE(cuInit);
  JEET_RESOLVE(cuDriverGetVersion);
  JEET_RESOLVE(cuDeviceGet);
  JEET_RESOLVE(cuDeviceGetCount);
  JEET_RESOLVE(cuDeviceGetAttribute);
  JEET_RESOLVE(cuDeviceGetName);
  JEET_RESOLVE(cuDevicePrimaryCtxRetain);
  JEET_RESOLVE(cuCtxSetCurrent);
  JEET_RESOLVE(cuMemAlloc_v2);
  JEET_RESOLVE(cuMemFree_v2);
  JEET_RESOLVE(cuMemcpyHtoD_v2);
  JEET_RESOLVE(cuMemcpyDtoH_v2);
  JEET_RESOLVE(cuMemcpyDtoD_v2);
  JEET_RESOLVE(cuMemcpyAsync);
  JEET_RESOLVE(cuMemsetD32_v2);
  JEET_RESOLVE(cuMemsetD32Async);
  JEET_RESOLVE(cuMemGetInfo_v2);
  JEET_RESOLVE(cuModuleLoadDataEx);
  JEET_RESOLVE(cuModuleUnload);
  JEET_RESOLVE(cuModuleGetFunction);
  JEET_RESOLVE(cuLaunchKernel);
  JEET_RESOLVE(cuStreamCreate);
  JEET_RESOLVE(cuStreamDestroy_v2);
  JEET_RESOLVE(cuStreamSynchronize);
  JEET_RESOLVE(cuStreamWaitEvent);
  JEET_RESOLVE(cuEventCreate);
  JEET_RESOLVE(cuEventDestroy_v2);
  JEET_RESOLVE(cuEventRecord);
  JEET_RESOLVE(cuEventSynchronize);
  JEET_RESOLVE(cuEventElapsedTime);
  JEET_RESOLVE(cuGetErrorName);
  JEET_RESOLVE(cuGetErrorString);
  if (!missing.empty())
    return deviceUnavailable("no CUDA driver: " + path + " lacks " + missing);
  // The emulator's additions (include/jeet/Emulator/Emulator.h); a real
  // driver has none of them.
  std::string absent;
  resolve(handle, "jeetEmulatorVersion", driver->jeetEmulatorVersion, absent);
  if (driver->jeetEmulatorVersion) {
    JEET_RESOLVE(jeetEmulatorLastError);
    JEET_RESOLVE(jeetEmulatorRegisterRegion);
    JEET_RESOLVE(jeetEmulatorUnregisterRegion);
    if (!missing.empty())
      return deviceUnavailable("no CUDA driver: the emulator " + path +
                               " lacks " + missing);
  }
#undef JEET_RESOLVE
  // The library stays loaded: modules, streams and pointers may outlive us.
  return driver;
}

std::string CudaDriver::errorName(CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) == cu::CUDA_SUCCESS &&
      name)
    return name;
  return "CUresult " + std::to_string(result);
}

std::string CudaDriver::errorString(CUresult result) const {
  const char *text = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &text) == cu::CUDA_SUCCESS &&
      text)
    return text;
  return "unknown error";
}

Status CudaDriver::check(CUresult result, const char *call,
                         const std::string &context) const {
  if (result == cu::CUDA_SUCCESS)
    return Status();
  std::string message = std::string(call) + " failed";
  if (!context.empty())
    message += " " + context;
  message += ": " + errorName(result) + " (" + errorString(result) + ")";
  if (jeetEmulatorLastError)
    if (const char *report = jeetEmulatorLastError(); report && *report)
      message += "\n" + std::string(report);
  return driverError(std::move(message));
}
