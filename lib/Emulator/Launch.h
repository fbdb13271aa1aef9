//===- Launch.h - Kernels, launches and the worker pool ---------*- C++ -*-===//
//
// cuLaunchKernel validates the launch as the driver would, copies the
// parameters (their sizes come from the kernel object) and queues the launch
// on its stream. When the stream runs it, the grid's blocks are shared out
// among the host's cores: a small pool of workers plus the thread that
// synchronises, each running whole blocks (Runner.h). The first fault ends
// the launch: no new block starts, running blocks are abandoned at their next
// scheduling point, and the report becomes the stream's error.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_EMULATOR_LAUNCH_H
#define JEET_LIB_EMULATOR_LAUNCH_H

#include "Driver.h"

#include "jeet/Emulator/Emulator.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace jeet {
namespace emulator {

struct Module;

/// A kernel of a loaded module (what a CUfunction points at).
struct Kernel {
  std::string name;
  void (*entry)(void **params) = nullptr;
  std::vector<int64_t> paramSizes;
  int64_t staticSharedBytes = 0;
  Module *module = nullptr;
};

/// One launch, from the moment it is queued until it has run.
struct LaunchJob {
  const Kernel *kernel = nullptr;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned threadsPerBlock = 1;
  uint64_t numBlocks = 1;
  size_t staticSharedBytes = 0;
  size_t dynamicSharedBytes = 0;
  /// Static bytes rounded up to 16, plus the dynamic bytes.
  size_t sharedBytes = 0;
  std::vector<char> paramStorage;
  std::vector<void *> params;

  // While it runs.
  int checks = 0;
  std::atomic<uint64_t> nextBlock{0};
  /// The lowest block that faulted (UINT64_MAX: none). Blocks after it are
  /// abandoned, blocks before it run on, so that the report is the same
  /// whatever the host threads' timing: that of the first faulting block.
  std::atomic<uint64_t> faultBlock{UINT64_MAX};

  // The outcome.
  std::mutex faultMutex;
  CUresult error = kSuccess;
  std::string report;
  bool moreFaults = false;

  /// Records the fault of block `block` (the lowest block's report is kept)
  /// and stops the blocks after it.
  void reportFault(CUresult code, std::string text, uint64_t block);
};

/// Runs every block of `job`; returns its error (CUDA_SUCCESS, or the code of
/// the fault with the report in job.report). Called with the device lock.
CUresult executeLaunch(LaunchJob &job);

/// Adds a finished runner's counters to the process-wide statistics.
void addStats(const JeetEmulatorStats &stats);

/// True when `kernel` belongs to a loaded module (a valid CUfunction).
bool isLiveKernel(const void *kernel);

} // namespace emulator
} // namespace jeet

#endif // JEET_LIB_EMULATOR_LAUNCH_H
