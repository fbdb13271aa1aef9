//===- Driver.cpp - Initialisation, the device, errors, configuration -----===//

#include "Driver.h"
#include "Launch.h"
#include "Memory.h"
#include "Streams.h"

#include "jeet/Emulator/Emulator.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

using namespace jeet::emulator;

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

namespace {
constexpr size_t kDefaultStackKiB = 64;
constexpr size_t kMinStackKiB = 16;
constexpr size_t kFallbackCapacity = size_t(16) << 30;

std::atomic<int> activeChecks{-1};
std::atomic<bool> isInitialized{false};
thread_local std::string lastReport;

int parseChecks(const char *text) {
  if (!text || !*text)
    return JEET_EMULATOR_CHECK_MEMORY | JEET_EMULATOR_CHECK_RACES;
  std::string value(text);
  if (value == "all" || value == "1")
    return JEET_EMULATOR_CHECK_MEMORY | JEET_EMULATOR_CHECK_RACES;
  if (value == "none" || value == "0")
    return 0;
  int checks = 0;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string::npos)
      end = value.size();
    std::string item = value.substr(start, end - start);
    if (item == "memcheck")
      checks |= JEET_EMULATOR_CHECK_MEMORY;
    else if (item == "racecheck")
      checks |= JEET_EMULATOR_CHECK_RACES;
    else if (!item.empty())
      std::fprintf(stderr,
                   "Jeet GPU emulator: ignoring '%s' in JEET_EMULATOR_CHECKS "
                   "(expected all, none, or a comma list of memcheck, "
                   "racecheck)\n",
                   item.c_str());
    start = end + 1;
  }
  return checks;
}

/// "8G", "512M", "1048576": bytes, or 0 when malformed.
size_t parseBytes(const char *text) {
  if (!text || !*text)
    return 0;
  char *end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text)
    return 0;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
  case 'K':
    value <<= 10;
    break;
  case 'M':
    value <<= 20;
    break;
  case 'G':
    value <<= 30;
    break;
  case '\0':
    break;
  default:
    return 0;
  }
  return static_cast<size_t>(value);
}

Config readConfig() {
  Config result;
  result.checks = parseChecks(std::getenv("JEET_EMULATOR_CHECKS"));
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  result.threads = cores;
  if (const char *text = std::getenv("JEET_EMULATOR_THREADS")) {
    long value = std::strtol(text, nullptr, 10);
    if (value > 0)
      result.threads = static_cast<unsigned>(value);
  }
  size_t stackKiB = kDefaultStackKiB;
  if (const char *text = std::getenv("JEET_EMULATOR_STACK_KB")) {
    long value = std::strtol(text, nullptr, 10);
    if (value > 0)
      stackKiB = std::max<size_t>(static_cast<size_t>(value), kMinStackKiB);
  }
  result.stackBytes = stackKiB << 10;
  result.capacity = parseBytes(std::getenv("JEET_EMULATOR_MEMORY"));
  if (result.capacity == 0) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    result.capacity = pages > 0 && page > 0 ? static_cast<size_t>(pages) *
                                                  static_cast<size_t>(page) / 2
                                            : kFallbackCapacity;
  }
  return result;
}
} // namespace

Config &jeet::emulator::config() {
  static Config *instance = new Config(readConfig());
  return *instance;
}

int jeet::emulator::currentChecks() {
  int checks = activeChecks.load(std::memory_order_relaxed);
  return checks < 0 ? config().checks : checks;
}

std::mutex &jeet::emulator::deviceMutex() {
  static std::mutex *instance = new std::mutex();
  return *instance;
}

bool jeet::emulator::initialized() { return isInitialized.load(); }

CUresult jeet::emulator::fail(CUresult code, std::string detail) {
  lastReport = std::move(detail);
  return code;
}

std::string jeet::emulator::formatAddress(uintptr_t address) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx",
                static_cast<unsigned long long>(address));
  return text;
}

//===----------------------------------------------------------------------===//
// The emulator's own exports
//===----------------------------------------------------------------------===//

JEET_EMU_EXPORT int jeetEmulatorVersion(void) { return JEET_EMULATOR_VERSION; }

JEET_EMU_EXPORT const char *jeetEmulatorLastError(void) {
  return lastReport.c_str();
}

JEET_EMU_EXPORT void jeetEmulatorSetMemoryCapacity(size_t bytes) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  memory().setCapacity(bytes);
}

JEET_EMU_EXPORT void jeetEmulatorSetChecks(int checks) {
  activeChecks.store(checks &
                     (JEET_EMULATOR_CHECK_MEMORY | JEET_EMULATOR_CHECK_RACES));
}

JEET_EMU_EXPORT int jeetEmulatorChecks(void) { return currentChecks(); }

//===----------------------------------------------------------------------===//
// Initialisation and the device
//===----------------------------------------------------------------------===//

namespace {
/// The primary context: there is one device and one context.
struct CUctx_st {
  int device = 0;
} primaryContext;

thread_local CUctx_st *currentContext = nullptr;

CUresult checkDevice(int device) {
  if (!initialized())
    return fail(kNotInitialized);
  if (device != 0)
    return fail(kInvalidDevice, "the emulator has one device, ordinal 0");
  return kSuccess;
}
} // namespace

JEET_EMU_EXPORT CUresult cuInit(unsigned flags) {
  if (flags != 0)
    return fail(kInvalidValue, "cuInit flags must be 0");
  config();
  isInitialized.store(true);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return fail(kInvalidValue);
  *version = kDriverVersion;
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuDeviceGetCount(int *count) {
  if (!initialized())
    return fail(kNotInitialized);
  if (!count)
    return fail(kInvalidValue);
  *count = 1;
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuDeviceGet(int *device, int ordinal) {
  if (CUresult result = checkDevice(ordinal))
    return result;
  if (!device)
    return fail(kInvalidValue);
  *device = ordinal;
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuDeviceGetName(char *name, int length, int device) {
  if (CUresult result = checkDevice(device))
    return result;
  if (!name || length <= 0)
    return fail(kInvalidValue);
  std::snprintf(name, static_cast<size_t>(length), "%s",
                JEET_EMULATOR_DEVICE_NAME);
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, int device) {
  if (CUresult result = checkDevice(device))
    return result;
  if (!bytes)
    return fail(kInvalidValue);
  std::lock_guard<std::mutex> lock(deviceMutex());
  *bytes = memory().capacity();
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute,
                                              int device) {
  if (CUresult result = checkDevice(device))
    return result;
  if (!value)
    return fail(kInvalidValue);
  // CUdevice_attribute values from cuda.h.
  switch (attribute) {
  case 1: // MAX_THREADS_PER_BLOCK
    *value = kMaxThreadsPerBlock;
    return kSuccess;
  case 2: // MAX_BLOCK_DIM_X
    *value = kMaxBlockDimX;
    return kSuccess;
  case 3: // MAX_BLOCK_DIM_Y
    *value = kMaxBlockDimY;
    return kSuccess;
  case 4: // MAX_BLOCK_DIM_Z
    *value = kMaxBlockDimZ;
    return kSuccess;
  case 5: // MAX_GRID_DIM_X
    *value = static_cast<int>(kMaxGridDimX);
    return kSuccess;
  case 6: // MAX_GRID_DIM_Y
    *value = kMaxGridDimY;
    return kSuccess;
  case 7: // MAX_GRID_DIM_Z
    *value = kMaxGridDimZ;
    return kSuccess;
  case 8:  // MAX_SHARED_MEMORY_PER_BLOCK
  case 97: // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN (no opt-in emulated)
    *value = static_cast<int>(kMaxSharedPerBlock);
    return kSuccess;
  case 10: // WARP_SIZE
    *value = kWarpSize;
    return kSuccess;
  case 16: // MULTIPROCESSOR_COUNT: the host threads that run blocks
    *value = static_cast<int>(config().threads);
    return kSuccess;
  case 41: // UNIFIED_ADDRESSING
    *value = 1;
    return kSuccess;
  case 75: // COMPUTE_CAPABILITY_MAJOR
    *value = kComputeCapabilityMajor;
    return kSuccess;
  case 76: // COMPUTE_CAPABILITY_MINOR
    *value = kComputeCapabilityMinor;
    return kSuccess;
  default:
    return fail(kInvalidValue, "device attribute " + std::to_string(attribute) +
                                   " is not emulated");
  }
}

JEET_EMU_EXPORT CUresult cuDevicePrimaryCtxRetain(CUctx_st **context,
                                                  int device) {
  if (CUresult result = checkDevice(device))
    return result;
  if (!context)
    return fail(kInvalidValue);
  *context = &primaryContext;
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  return checkDevice(device);
}

JEET_EMU_EXPORT CUresult cuCtxSetCurrent(CUctx_st *context) {
  if (!initialized())
    return fail(kNotInitialized);
  if (context && context != &primaryContext)
    return fail(kInvalidContext, "not a context of the emulator");
  currentContext = context;
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuCtxGetCurrent(CUctx_st **context) {
  if (!context)
    return fail(kInvalidValue);
  *context = currentContext;
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuCtxSynchronize(void) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  return queues().synchronizeAll();
}

//===----------------------------------------------------------------------===//
// Error names
//===----------------------------------------------------------------------===//

namespace {
struct ErrorInfo {
  CUresult code;
  const char *name;
  const char *text;
};
const ErrorInfo kErrors[] = {
    {kSuccess, "CUDA_SUCCESS", "no error"},
    {kInvalidValue, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {kNotInitialized, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {kNoDevice, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {kInvalidImage, "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {kInvalidContext, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {kNoBinaryForGpu, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {kInvalidPtx, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {kNotFound, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {kNotReady, "CUDA_ERROR_NOT_READY", "device not ready"},
    {kIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {kLaunchOutOfResources, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {kMisalignedAddress, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {kLaunchFailed, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {kNotSupported, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {kUnknown, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorInfo *findError(CUresult code) {
  for (const ErrorInfo &info : kErrors)
    if (info.code == code)
      return &info;
  return nullptr;
}
} // namespace

JEET_EMU_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  if (!name)
    return kInvalidValue;
  const ErrorInfo *info = findError(error);
  *name = info ? info->name : nullptr;
  return info ? kSuccess : kInvalidValue;
}

JEET_EMU_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  if (!text)
    return kInvalidValue;
  const ErrorInfo *info = findError(error);
  *text = info ? info->text : nullptr;
  return info ? kSuccess : kInvalidValue;
}
