//===- CudaModule.cpp - Loading modules and launching kernels -------------===//

#include "jeet/Runtime/CudaDevice.h"

#include <cstdint>
#include <cstring>

using namespace jeet::runtime;
using namespace jeet::runtime::cu;

//===----------------------------------------------------------------------===//
// CudaModule
//===----------------------------------------------------------------------===//

/// A kernel's parameters take at most 32 KiB (CUDA 12.1 and later), so no
/// kernel has more parameters than that: the bound of the loop that asks the
/// driver for their sizes.
static constexpr size_t kMaxKernelParams = 32768;

StatusOr<CudaKernel *> CudaModule::getFunction(const std::string &kernelName) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(kernelName);
  if (it != kernels_.end())
    return it->second.get();
  ++lookups_;
  CUfunction function = nullptr;
  JEET_RETURN_IF_ERROR(driver_.check(
      driver_.cuModuleGetFunction(&function, handle_, kernelName.c_str()),
      "cuModuleGetFunction",
      "for kernel '" + kernelName + "' in module '" + name_ + "'"));
  auto kernel = std::make_unique<CudaKernel>();
  kernel->function = function;
  kernel->name = kernelName;
  kernel->module = this;
  CudaKernel *result = kernel.get();
  kernels_[kernelName] = std::move(kernel);
  return result;
}

void CudaModule::resolveParams(CudaKernel &kernel, size_t count) {
  if (kernel.paramsResolved.load(std::memory_order_acquire))
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (kernel.paramsResolved.load(std::memory_order_relaxed))
    return;
  std::vector<size_t> sizes;
  if (driver_.cuFuncGetParamInfo && count <= kMaxKernelParams) {
    for (size_t index = 0; index < count; ++index) {
      size_t offset = 0, size = 0;
      if (driver_.cuFuncGetParamInfo(kernel.function, index, &offset, &size) !=
          CUDA_SUCCESS) {
        sizes.clear();
        break;
      }
      sizes.push_back(size);
    }
  }
  kernel.paramSizes = std::move(sizes);
  kernel.paramsResolved.store(true, std::memory_order_release);
}

size_t CudaModule::numDriverLookups() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lookups_;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {
/// e_machine (ELF header offset 18, little endian) of the host objects the
/// GPU emulation target writes.
#if defined(__aarch64__)
constexpr uint16_t kMachineHost = 183;
constexpr const char *kHostCode = "AArch64 host code";
#else
constexpr uint16_t kMachineHost = 62;
constexpr const char *kHostCode = "x86-64 host code";
#endif
constexpr size_t kElfMachineOffset = 18;
} // namespace

static ModuleFormat detectFormat(const void *data, size_t size) {
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  if (size >= 4 && std::memcmp(bytes,
                               "\x7f"
                               "ELF",
                               4) == 0) {
    uint16_t machine = 0;
    if (size >= kElfMachineOffset + 2)
      machine = static_cast<uint16_t>(bytes[kElfMachineOffset] |
                                      bytes[kElfMachineOffset + 1] << 8);
    // Cubins (e_machine 190, EM_CUDA) and anything else go to the driver.
    return machine == kMachineHost ? ModuleFormat::Emulator
                                   : ModuleFormat::Cubin;
  }
  if (size >= 4 && bytes[0] == 0x50 && bytes[1] == 0xed && bytes[2] == 0x55 &&
      bytes[3] == 0xba)
    return ModuleFormat::Fatbin;
  return ModuleFormat::Ptx;
}

static const char *formatName(ModuleFormat format) {
  switch (format) {
  case ModuleFormat::Ptx:
    return "PTX";
  case ModuleFormat::Cubin:
    return "cubin";
  case ModuleFormat::Fatbin:
    return "fatbin";
  case ModuleFormat::Emulator:
    return "emulator object";
  case ModuleFormat::Auto:
    break;
  }
  return "auto";
}

StatusOr<CudaModule *> CudaDevice::loadModule(const void *data, size_t size,
                                              ModuleFormat format,
                                              const std::string &name,
                                              int optLevel) {
  if (!data)
    return invalidArgument("loadModule of module '" + name +
                           "': no data given");
  if (format == ModuleFormat::Auto)
    format = detectFormat(data, size);
  if (format == ModuleFormat::Emulator && !isEmulator())
    return invalidArgument(
        "module '" + name + "' was compiled for the Jeet GPU emulator (" +
        kHostCode + "), not for this GPU (" + description() +
        "); compile with target=ptx, or run it on the emulator "
        "(JEET_CUDA_DRIVER=<build>/lib/libjeet_cuda_emulator.so)");
  // PTX must be NUL-terminated for the driver.
  std::string ptx;
  const void *image = data;
  if (format == ModuleFormat::Ptx) {
    const char *text = static_cast<const char *>(data);
    if (size == 0 || text[size - 1] != '\0') {
      ptx.assign(text, size == 0 ? std::strlen(text) : size);
      image = ptx.c_str();
    }
  }
  JEET_RETURN_IF_ERROR(activate());

  constexpr size_t kLogSize = 16384;
  std::string infoLog(kLogSize, '\0'), errorLog(kLogSize, '\0');
  CUjit_option options[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {infoLog.data(),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(kLogSize)),
                    errorLog.data(),
                    reinterpret_cast<void *>(static_cast<uintptr_t>(kLogSize)),
                    reinterpret_cast<void *>(
                        static_cast<uintptr_t>(optLevel < 0 ? 0 : optLevel))};
  unsigned numOptions = format == ModuleFormat::Ptx && optLevel >= 0 ? 5 : 4;
  CUmodule handle = nullptr;
  CUresult result =
      driver_->cuModuleLoadDataEx(&handle, image, numOptions, options, values);
  infoLog.resize(std::strlen(infoLog.c_str()));
  errorLog.resize(std::strlen(errorLog.c_str()));
  if (result != CUDA_SUCCESS) {
    Status status =
        driver_->check(result, "cuModuleLoadDataEx",
                       "for module '" + name + "' (" + formatName(format) +
                           ", " + std::to_string(size) + " bytes)");
    std::string message = status.message();
    if (!errorLog.empty())
      message += "\nJIT error log:\n" + errorLog;
    return driverError(std::move(message));
  }
  std::unique_ptr<CudaModule> module(
      new CudaModule(*driver_, handle, name, std::move(infoLog)));
  CudaModule *raw = module.get();
  std::lock_guard<std::mutex> lock(mutex_);
  modules_[raw] = std::move(module);
  return raw;
}

Status CudaDevice::unloadModule(CudaModule *module) {
  std::unique_ptr<CudaModule> owned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = modules_.find(module);
    if (it == modules_.end())
      return invalidArgument("unloadModule of a module " + name() +
                             " does not hold");
    owned = std::move(it->second);
    modules_.erase(it);
  }
  JEET_RETURN_IF_ERROR(activate());
  return driver_->check(driver_->cuModuleUnload(owned->handle()),
                        "cuModuleUnload", "for module '" + owned->name() + "'");
}

size_t CudaDevice::numLoadedModules() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return modules_.size();
}

bool CudaDevice::ownsModule(const void *module) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return modules_.count(module) != 0;
}

//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

Status CudaDevice::launch(const CudaKernel &kernel, Dim3 grid, Dim3 block,
                          unsigned sharedMemBytes, void *stream, void **params,
                          void **extra) {
  std::string context =
      "for kernel '" + kernel.name + "' in module '" +
      (kernel.module ? kernel.module->name() : std::string("?")) + "' (grid " +
      std::to_string(grid.x) + "x" + std::to_string(grid.y) + "x" +
      std::to_string(grid.z) + ", block " + std::to_string(block.x) + "x" +
      std::to_string(block.y) + "x" + std::to_string(block.z) + ")";
  JEET_RETURN_IF_ERROR(activate());
  JEET_RETURN_IF_ERROR(driver_->check(
      driver_->cuLaunchKernel(kernel.function, grid.x, grid.y, grid.z, block.x,
                              block.y, block.z, sharedMemBytes,
                              static_cast<CUstream>(stream), params, extra),
      "cuLaunchKernel", context));
  recordKernelLaunch();
  return Status();
}
