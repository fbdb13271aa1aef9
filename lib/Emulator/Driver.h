//===- Driver.h - Shared pieces of the emulated CUDA driver -----*- C++ -*-===//
//
// libjeet_cuda_emulator.so exports the CUDA driver entry points the runtime
// resolves (include/jeet/Runtime/CudaDriver.h) and runs kernels compiled for
// the GPU emulation target (include/jeet/Emulator/KernelABI.h) on the host.
// This header holds what every part of it shares: the result codes, how a
// failing call records its detailed report, the configuration read from the
// environment, and the device lock.
//
// Concurrency: every piece of driver state (allocations, streams, events,
// modules) is guarded by the device lock. Queued work runs on the host thread
// that synchronises, with the lock held; a launch's blocks run on a small pool
// of workers while the launching thread holds the lock, so the allocation
// table the access checks read cannot change during a launch.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_EMULATOR_DRIVER_H
#define JEET_LIB_EMULATOR_DRIVER_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#define JEET_EMU_EXPORT extern "C" __attribute__((visibility("default")))

namespace jeet {
namespace emulator {

using CUresult = int;

// Values from cuda.h (stable ABI).
enum : CUresult {
  kSuccess = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kNotInitialized = 3,
  kNoDevice = 100,
  kInvalidDevice = 101,
  kInvalidImage = 200,
  kInvalidContext = 201,
  kNoBinaryForGpu = 209,
  kInvalidPtx = 218,
  kInvalidHandle = 400,
  kNotFound = 500,
  kNotReady = 600,
  kIllegalAddress = 700,
  kLaunchOutOfResources = 701,
  kMisalignedAddress = 716,
  kLaunchFailed = 719,
  kNotSupported = 801,
  kUnknown = 999,
};

/// cuDriverGetVersion: 13.0, new enough for every PTX ISA the compiler
/// records (the version check of CudaDevice::open passes).
constexpr int kDriverVersion = 13000;
constexpr int kComputeCapabilityMajor = 9;
constexpr int kComputeCapabilityMinor = 0;

// Launch limits of a compute capability 9.0 device.
constexpr unsigned kWarpSize = 32;
constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr unsigned kMaxBlockDimX = 1024, kMaxBlockDimY = 1024,
                   kMaxBlockDimZ = 64;
constexpr unsigned kMaxGridDimX = 0x7fffffff, kMaxGridDimY = 65535,
                   kMaxGridDimZ = 65535;
/// Shared memory a block may use without cuFuncSetAttribute (which the
/// runtime never calls): static plus dynamic bytes.
constexpr size_t kMaxSharedPerBlock = 48 * 1024;
/// Device allocations, like cuMemAlloc's, are 256-byte aligned (in fact
/// page aligned: each is its own mapping).
constexpr size_t kAllocationAlignment = 256;

/// The configuration, read once from the environment:
///   JEET_EMULATOR_CHECKS   all (default) | none | a comma list of memcheck,
///                          racecheck
///   JEET_EMULATOR_THREADS  host threads that run blocks (default: all cores)
///   JEET_EMULATOR_MEMORY   device capacity: bytes, or with K/M/G suffix
///                          (default: half of the host's memory)
///   JEET_EMULATOR_STACK_KB stack of each emulated thread (default 64)
struct Config {
  int checks;
  unsigned threads;
  size_t stackBytes;
  size_t capacity;
};
Config &config();

/// The checks launches run with now (jeetEmulatorSetChecks, else the
/// configuration): JEET_EMULATOR_CHECK_* bits.
int currentChecks();

/// Records `detail` as the calling thread's report (jeetEmulatorLastError)
/// and returns `code`. Every failing entry point returns through it.
CUresult fail(CUresult code, std::string detail = std::string());

/// The device lock (see the file comment).
std::mutex &deviceMutex();

/// CUDA_ERROR_NOT_INITIALIZED until cuInit succeeded.
bool initialized();

/// "0x7f12a4c00100".
std::string formatAddress(uintptr_t address);

} // namespace emulator
} // namespace jeet

#endif // JEET_LIB_EMULATOR_DRIVER_H
