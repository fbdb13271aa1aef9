//===- Launch.cpp - Kernels, launches and the worker pool -----------------===//

#include "Launch.h"
#include "Module.h"
#include "Runner.h"
#include "Streams.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <thread>

using namespace jeet::emulator;

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

namespace {
struct AtomicStats {
  std::atomic<uint64_t> launches{0}, blocks{0}, threads{0}, barriers{0},
      shuffles{0}, globalChecks{0}, sharedChecks{0}, faults{0};
} globalStats;
} // namespace

void jeet::emulator::addStats(const JeetEmulatorStats &stats) {
  globalStats.blocks += stats.blocks;
  globalStats.threads += stats.threads;
  globalStats.barriers += stats.barriers;
  globalStats.shuffles += stats.shuffles;
  globalStats.globalChecks += stats.globalChecks;
  globalStats.sharedChecks += stats.sharedChecks;
}

JEET_EMU_EXPORT void jeetEmulatorGetStats(JeetEmulatorStats *stats) {
  if (!stats)
    return;
  stats->launches = globalStats.launches;
  stats->blocks = globalStats.blocks;
  stats->threads = globalStats.threads;
  stats->barriers = globalStats.barriers;
  stats->shuffles = globalStats.shuffles;
  stats->globalChecks = globalStats.globalChecks;
  stats->sharedChecks = globalStats.sharedChecks;
  stats->faults = globalStats.faults;
}

JEET_EMU_EXPORT void jeetEmulatorResetStats(void) {
  for (std::atomic<uint64_t> *counter :
       {&globalStats.launches, &globalStats.blocks, &globalStats.threads,
        &globalStats.barriers, &globalStats.shuffles, &globalStats.globalChecks,
        &globalStats.sharedChecks, &globalStats.faults})
    counter->store(0);
}

//===----------------------------------------------------------------------===//
// The worker pool
//===----------------------------------------------------------------------===//

namespace {
/// The runner of whichever host thread executes a launch: launches execute
/// one at a time (under the device lock), and it must outlive every host
/// thread, as JIT'ed modules may unload (and flush queued launches) while
/// the process exits.
Runner &launcherRunner() {
  static Runner *instance = new Runner();
  return *instance;
}

/// Host threads that run blocks of a launch alongside the thread that runs
/// the launch. Started on first need, parked between launches, never joined
/// (they live as long as the process).
class WorkerPool {
public:
  void run(LaunchJob &job, unsigned helpers) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      while (workers_ < helpers) {
        std::thread(&WorkerPool::workerMain, this, workers_).detach();
        ++workers_;
      }
      job_ = &job;
      wanted_ = helpers;
      active_ = helpers;
      ++generation_;
    }
    wake_.notify_all();
    launcherRunner().runBlocks(job);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return active_ == 0; });
    job_ = nullptr;
  }

private:
  void workerMain(unsigned index) {
    Runner runner; // workers live as long as the process
    uint64_t seen = 0;
    for (;;) {
      LaunchJob *job = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (index >= wanted_)
          continue;
        job = job_;
      }
      runner.runBlocks(*job);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--active_ == 0)
        done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  LaunchJob *job_ = nullptr;
  uint64_t generation_ = 0;
  unsigned workers_ = 0, wanted_ = 0, active_ = 0;
};

WorkerPool &pool() {
  static WorkerPool *instance = new WorkerPool();
  return *instance;
}

} // namespace

void LaunchJob::reportFault(CUresult code, std::string text, uint64_t block) {
  std::lock_guard<std::mutex> lock(faultMutex);
  if (error != kSuccess) {
    moreFaults = true;
    if (block >= faultBlock.load())
      return;
  }
  faultBlock.store(block);
  error = code;
  report = std::move(text);
}

CUresult jeet::emulator::executeLaunch(LaunchJob &job) {
  job.checks = currentChecks();
  ++globalStats.launches;
  uint64_t cap = std::max(1u, config().threads);
  unsigned helpers =
      static_cast<unsigned>(std::min<uint64_t>(cap, job.numBlocks) - 1);
  if (helpers == 0)
    launcherRunner().runBlocks(job);
  else
    pool().run(job, helpers);
  if (job.error == kSuccess)
    return kSuccess;
  ++globalStats.faults;
  if (job.moreFaults)
    job.report += "\n  (other blocks of this launch faulted too)";
  return job.error;
}

//===----------------------------------------------------------------------===//
// cuLaunchKernel
//===----------------------------------------------------------------------===//

namespace {
/// Parameters are copied at 16-byte aligned offsets.
constexpr size_t kParamAlignment = 16;

CUresult checkDimensions(const unsigned grid[3], const unsigned block[3],
                         const std::string &kernel) {
  const unsigned gridLimit[3] = {kMaxGridDimX, kMaxGridDimY, kMaxGridDimZ};
  const unsigned blockLimit[3] = {kMaxBlockDimX, kMaxBlockDimY, kMaxBlockDimZ};
  const char *axis[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || grid[d] > gridLimit[d])
      return fail(kInvalidValue, "launch of '" + kernel + "': grid " + axis[d] +
                                     " = " + std::to_string(grid[d]) +
                                     " (1 to " + std::to_string(gridLimit[d]) +
                                     ")");
    if (block[d] == 0 || block[d] > blockLimit[d])
      return fail(kInvalidValue, "launch of '" + kernel + "': block " +
                                     axis[d] + " = " +
                                     std::to_string(block[d]) + " (1 to " +
                                     std::to_string(blockLimit[d]) + ")");
  }
  uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  if (threads > kMaxThreadsPerBlock)
    return fail(kInvalidValue, "launch of '" + kernel +
                                   "': " + std::to_string(threads) +
                                   " threads per block (at most " +
                                   std::to_string(kMaxThreadsPerBlock) + ")");
  return kSuccess;
}
} // namespace

JEET_EMU_EXPORT CUresult cuLaunchKernel(Kernel *function, unsigned gridX,
                                        unsigned gridY, unsigned gridZ,
                                        unsigned blockX, unsigned blockY,
                                        unsigned blockZ,
                                        unsigned sharedMemBytes, void *handle,
                                        void **params, void **extra) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  if (!function || !isLiveKernel(function))
    return fail(kInvalidHandle, "cuLaunchKernel of an unknown function (was "
                                "its module unloaded?)");
  const Kernel &kernel = *function;
  auto job = std::make_shared<LaunchJob>();
  job->kernel = &kernel;
  job->grid[0] = gridX;
  job->grid[1] = gridY;
  job->grid[2] = gridZ;
  job->block[0] = blockX;
  job->block[1] = blockY;
  job->block[2] = blockZ;
  if (CUresult result = checkDimensions(job->grid, job->block, kernel.name))
    return result;
  job->threadsPerBlock = blockX * blockY * blockZ;
  job->numBlocks = uint64_t(gridX) * gridY * gridZ;
  job->staticSharedBytes = static_cast<size_t>(kernel.staticSharedBytes);
  job->dynamicSharedBytes = sharedMemBytes;
  size_t dynamicOffset = (job->staticSharedBytes + 15) / 16 * 16;
  job->sharedBytes = dynamicOffset + sharedMemBytes;
  if (job->sharedBytes > kMaxSharedPerBlock)
    return fail(kInvalidValue,
                "launch of '" + kernel.name + "' needs " +
                    std::to_string(job->sharedBytes) +
                    " bytes of shared memory per block (" +
                    std::to_string(job->staticSharedBytes) + " static, " +
                    std::to_string(sharedMemBytes) + " dynamic); at most " +
                    std::to_string(kMaxSharedPerBlock) + " without opt-in");
  if (extra)
    return fail(kNotSupported,
                "cuLaunchKernel with `extra` (packed "
                "parameters) is not emulated; pass kernelParams");
  if (!params && !kernel.paramSizes.empty())
    return fail(kInvalidValue, "launch of '" + kernel.name + "' takes " +
                                   std::to_string(kernel.paramSizes.size()) +
                                   " parameters; none given");
  Stream *stream = queues().stream(handle);
  if (!stream)
    return fail(kInvalidHandle, "cuLaunchKernel on an unknown stream");
  // Parameters are read now, as the driver does.
  size_t total = 0;
  for (int64_t size : kernel.paramSizes)
    total += (static_cast<size_t>(size) + kParamAlignment - 1) /
             kParamAlignment * kParamAlignment;
  job->paramStorage.resize(total);
  size_t offset = 0;
  for (size_t i = 0; i < kernel.paramSizes.size(); ++i) {
    if (!params[i])
      return fail(kInvalidValue, "launch of '" + kernel.name + "': parameter " +
                                     std::to_string(i) + " is null");
    size_t size = static_cast<size_t>(kernel.paramSizes[i]);
    std::memcpy(job->paramStorage.data() + offset, params[i], size);
    offset += (size + kParamAlignment - 1) / kParamAlignment * kParamAlignment;
  }
  offset = 0;
  for (int64_t size : kernel.paramSizes) {
    job->params.push_back(job->paramStorage.data() + offset);
    offset += (static_cast<size_t>(size) + kParamAlignment - 1) /
              kParamAlignment * kParamAlignment;
  }
  Operation operation{Operation::Kind::Launch};
  operation.launch = std::move(job);
  queues().enqueue(*stream, std::move(operation));
  return kSuccess;
}
