//===- Runner.h - Running the blocks of a launch on one host thread -*- C++
//-*-===//
//
// A Runner belongs to one host thread (a worker of the pool, or the thread
// that synchronises) and runs whole blocks. The threads of a block are fibers
// on stacks the runner reuses from block to block. Scheduling is cooperative
// and deterministic, warp by warp:
//
// - Each ready lane of a warp runs until it reaches a barrier, a shuffle, or
//   returns. When all lanes of the warp wait at a shuffle, values are
//   exchanged in lockstep and the lanes resume; a warp whose lanes split
//   between a shuffle and anything else is a divergent shuffle.
// - When every warp has reached a barrier (or returned), the barrier opens if
//   every thread of the block waits at the same barrier; a thread that
//   returned, or threads waiting at different barriers, are a divergent
//   barrier, reported instead of hanging.
//
// The runner also holds what the access checks need without any lock: the
// block's shared memory and its shadow (race detection), and a small cache of
// the device allocations recently hit. A failed check records the fault and
// switches to the scheduler for good; the block and the launch are abandoned.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_EMULATOR_RUNNER_H
#define JEET_LIB_EMULATOR_RUNNER_H

#include "Fiber.h"
#include "Launch.h"
#include "Memory.h"
#include "Shadow.h"

#include "jeet/Emulator/KernelABI.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jeet {
namespace emulator {

enum class ThreadStatus : uint8_t { Ready, AtBarrier, AtShuffle, Finished };

/// One emulated thread of the running block.
struct EmulatedThread {
  JeetEmuThreadState state;
  FiberContext context = nullptr;
  /// Its stack, once it has started.
  bool started = false;
  uint32_t stack = 0;
  uint32_t linear = 0;
  ThreadStatus status = ThreadStatus::Ready;
  const char *barrierSite = nullptr;
  int32_t shuffleValue = 0, shuffleOffset = 0, shuffleWidth = 0,
          shuffleMode = 0;
  int32_t shuffleResult = 0;
  int8_t shuffleValid = 0;
};

enum class FaultKind {
  GlobalAccess,
  SharedOutOfBounds,
  SharedRace,
  BarrierAfterReturn,
  BarrierMismatch,
  ShuffleDivergence,
  ShuffleMismatch,
  ShuffleMissingLanes,
  ShuffleInvalid,
};

/// What went wrong, recorded where it happened (possibly on a fiber's small
/// stack) and turned into a report by the scheduler.
struct Fault {
  FaultKind kind = FaultKind::GlobalAccess;
  uint32_t thread = 0;
  uint32_t other = 0;
  bool otherKnown = false;
  bool otherWrite = false;
  uintptr_t address = 0;
  int64_t bytes = 0;
  int32_t flags = 0;
  int64_t alignment = 0;
  const char *site = nullptr;
  const char *otherSite = nullptr;
  // Shuffles: the faulting and the other thread's width and mode, and where
  // the other thread is.
  int32_t width = 0, mode = 0, otherWidth = 0, otherMode = 0;
  ThreadStatus otherStatus = ThreadStatus::Ready;
};

class Runner {
public:
  Runner();
  ~Runner();
  Runner(const Runner &) = delete;
  Runner &operator=(const Runner &) = delete;

  /// Runs blocks of `job` until none is left or the launch is aborted.
  void runBlocks(LaunchJob &job);

  // Used by the kernel ABI functions.
  EmulatedThread *thread() const { return current_; }
  /// Records `fault` and leaves the running thread for good.
  [[noreturn]] void raise(const Fault &fault);
  /// Saves the running thread and returns to the scheduler.
  void yield();

  bool cachedGlobal(uintptr_t address, uint64_t bytes) const {
    for (const Range &range : cache_) {
      uint64_t offset = address - range.base;
      if (offset < range.size && bytes <= range.size - offset)
        return true;
    }
    return false;
  }
  void checkGlobalSlow(uintptr_t address, uint64_t bytes, int32_t flags,
                       int64_t alignment, const char *site);
  inline void checkShared(uintptr_t address, uint64_t bytes, int32_t flags,
                          const char *site);

  int checks = 0;
  JeetEmulatorStats stats{};

private:
  enum class BlockResult { Done, Faulted, Abandoned };

  bool prepare(LaunchJob &job);
  BlockResult runBlock(LaunchJob &job, uint64_t index);
  bool runWarp(unsigned first, unsigned last);
  bool exchange(unsigned first, unsigned last);
  bool openBarrier(unsigned count);
  void resume(EmulatedThread &thread);
  /// The lane after `thread` in its warp, when it has not started yet.
  EmulatedThread *nextToStart(const EmulatedThread &thread);
  uint32_t siteIndex(const char *site) {
    uintptr_t key = reinterpret_cast<uintptr_t>(site);
    const SiteSlot &slot =
        siteCache_[((key >> 4) ^ (key >> 12)) & (kSiteSlots - 1)];
    return slot.site == site && site ? slot.index : internSite(site);
  }
  uint32_t internSite(const char *site);
  [[noreturn]] void raiseSharedOutOfBounds(uintptr_t address, uint64_t bytes,
                                           int32_t flags, const char *site);
  [[noreturn]] void raiseRace(const char *site, int32_t flags,
                              uintptr_t address, uint64_t bytes,
                              const Conflict &conflict);
  std::string describeThread(uint32_t linear) const;
  std::string formatFault(CUresult *code) const;
  static void threadMain(void *argument);

  LaunchJob *job_ = nullptr;
  FiberStacks stacks_;
  std::vector<uint32_t> freeStacks_;
  std::vector<EmulatedThread> threads_;
  EmulatedThread *current_ = nullptr;
  FiberContext scheduler_ = nullptr;
  unsigned threadCount_ = 0;
  /// One past the last lane of the warp being run.
  unsigned warpEnd_ = 0;
  /// The launch's shared bytes per block (static and dynamic).
  uint64_t sharedBytes_ = 0;
  int64_t blockId_[3] = {0, 0, 0};

  // Shared memory, its shadow and the access sites seen in this launch.
  char *shared_ = nullptr;
  SharedShadow shadow_;
  std::vector<const char *> sites_;
  struct SiteSlot {
    const char *site = nullptr;
    uint32_t index = 0;
  };
  static constexpr unsigned kSiteSlots = 256;
  SiteSlot siteCache_[kSiteSlots];

  static constexpr unsigned kCachedRanges = 4;
  Range cache_[kCachedRanges];
  unsigned cacheNext_ = 0;

  bool faulted_ = false;
  Fault fault_;
};

/// The runner of the thread that runs emulated threads now (null elsewhere).
extern __thread Runner *currentRunner
    __attribute__((tls_model("initial-exec")));

} // namespace emulator
} // namespace jeet

#endif // JEET_LIB_EMULATOR_RUNNER_H
