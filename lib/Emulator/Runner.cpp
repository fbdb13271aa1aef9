//===- Runner.cpp - Running the blocks of a launch on one host thread -----===//

#include "Runner.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace jeet::emulator;

__thread Runner *jeet::emulator::currentRunner = nullptr;

namespace {

/// Shared memory starts each block filled with this byte (NaN as a float, -1
/// as an integer): hardware leaves it undefined, and a kernel that reads what
/// it never wrote should show it.
constexpr int kSharedPoison = 0xff;
constexpr size_t kSharedAlignment = 64;

bool sameSite(const char *a, const char *b) {
  return a == b || (a && b && std::strcmp(a, b) == 0);
}
} // namespace

Runner::Runner() : threads_(kMaxThreadsPerBlock) {
  shared_ = static_cast<char *>(
      std::aligned_alloc(kSharedAlignment, kMaxSharedPerBlock));
}

Runner::~Runner() { std::free(shared_); }

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

bool Runner::prepare(LaunchJob &job) {
  if (!shared_ || !shadow_.allocate(kMaxSharedPerBlock) ||
      !stacks_.reserve(job.threadsPerBlock, config().stackBytes)) {
    job.reportFault(kOutOfMemory,
                    "Jeet GPU emulator: no host memory for the stacks and "
                    "shared memory of a block of " +
                        std::to_string(job.threadsPerBlock) + " threads",
                    /*block=*/0);
    return false;
  }
  job_ = &job;
  checks = job.checks;
  threadCount_ = job.threadsPerBlock;
  sharedBytes_ = job.sharedBytes;
  sites_.clear();
  std::fill(std::begin(siteCache_), std::end(siteCache_), SiteSlot());
  // The allocation table may have changed since the last launch.
  std::fill(std::begin(cache_), std::end(cache_), Range());
  cacheNext_ = 0;
  return true;
}

void Runner::runBlocks(LaunchJob &job) {
  if (!prepare(job))
    return;
  currentRunner = this;
  for (;;) {
    uint64_t index = job.nextBlock.fetch_add(1);
    if (index >= job.numBlocks ||
        index > job.faultBlock.load(std::memory_order_relaxed))
      break;
    BlockResult result = runBlock(job, index);
    if (result == BlockResult::Faulted) {
      CUresult code = kLaunchFailed;
      std::string report = formatFault(&code);
      job.reportFault(code, std::move(report), index);
    }
    if (result != BlockResult::Done)
      break;
  }
  currentRunner = nullptr;
  job_ = nullptr;
  addStats(stats);
  stats = JeetEmulatorStats();
}

Runner::BlockResult Runner::runBlock(LaunchJob &job, uint64_t index) {
  const uint64_t gridX = job.grid[0], gridY = job.grid[1];
  blockId_[0] = static_cast<int64_t>(index % gridX);
  blockId_[1] = static_cast<int64_t>((index / gridX) % gridY);
  blockId_[2] = static_cast<int64_t>(index / (gridX * gridY));
  std::memset(shared_, kSharedPoison, job.sharedBytes);
  int64_t id[3] = {0, 0, 0};
  for (unsigned i = 0; i < threadCount_; ++i) {
    EmulatedThread &thread = threads_[i];
    JeetEmuThreadState &state = thread.state;
    for (int d = 0; d < 3; ++d) {
      state.threadId[d] = id[d];
      state.blockId[d] = blockId_[d];
      state.blockDim[d] = job.block[d];
      state.gridDim[d] = job.grid[d];
    }
    // x fastest, as CUDA numbers the threads of a block.
    for (int d = 0; d < 3 && ++id[d] == job.block[d]; ++d)
      id[d] = 0;
    state.shared = shared_;
    state.laneId = i % kWarpSize;
    thread.linear = i;
    thread.status = ThreadStatus::Ready;
    thread.barrierSite = nullptr;
    thread.started = false; // gets a stack when it starts
  }
  // Every stack is free; the last freed is reused first (still in cache).
  freeStacks_.clear();
  for (unsigned i = threadCount_; i-- > 0;)
    freeStacks_.push_back(i);
  shadow_.advance(job.sharedBytes);
  faulted_ = false;
  ++stats.blocks;
  stats.threads += threadCount_;
  for (;;) {
    for (unsigned first = 0; first < threadCount_; first += kWarpSize)
      if (!runWarp(first, std::min(threadCount_, first + kWarpSize)))
        return BlockResult::Faulted;
    if (index > job.faultBlock.load(std::memory_order_relaxed))
      return BlockResult::Abandoned;
    unsigned waiting = 0;
    for (unsigned i = 0; i < threadCount_; ++i)
      waiting += threads_[i].status == ThreadStatus::AtBarrier;
    if (waiting == 0)
      return BlockResult::Done;
    if (!openBarrier(threadCount_))
      return BlockResult::Faulted;
  }
}

bool Runner::runWarp(unsigned first, unsigned last) {
  warpEnd_ = last;
  for (;;) {
    bool shuffling = false;
    for (unsigned i = first; i < last; ++i) {
      EmulatedThread &thread = threads_[i];
      if (thread.status == ThreadStatus::Ready) {
        resume(thread);
        if (faulted_)
          return false;
      }
      shuffling |= thread.status == ThreadStatus::AtShuffle;
    }
    if (!shuffling)
      return true;
    if (!exchange(first, last))
      return false;
  }
}

bool Runner::exchange(unsigned first, unsigned last) {
  const EmulatedThread *shuffler = nullptr;
  for (unsigned i = first; i < last && !shuffler; ++i)
    if (threads_[i].status == ThreadStatus::AtShuffle)
      shuffler = &threads_[i];
  Fault fault;
  fault.thread = shuffler->linear;
  fault.width = shuffler->shuffleWidth;
  fault.mode = shuffler->shuffleMode;
  for (unsigned i = first; i < last; ++i) {
    const EmulatedThread &thread = threads_[i];
    fault.other = thread.linear;
    fault.otherKnown = true;
    fault.otherStatus = thread.status;
    fault.otherSite = thread.barrierSite;
    fault.otherWidth = thread.shuffleWidth;
    fault.otherMode = thread.shuffleMode;
    if (thread.status != ThreadStatus::AtShuffle)
      fault.kind = FaultKind::ShuffleDivergence;
    else if (thread.shuffleWidth != fault.width ||
             thread.shuffleMode != fault.mode)
      fault.kind = FaultKind::ShuffleMismatch;
    else
      continue;
    fault_ = fault;
    return false;
  }
  const int32_t width = fault.width, mode = fault.mode;
  fault.otherKnown = false;
  if (width < 1 || width > static_cast<int32_t>(kWarpSize) ||
      (width & (width - 1)) || mode < JEET_EMU_SHUFFLE_XOR ||
      mode > JEET_EMU_SHUFFLE_IDX) {
    fault.kind = FaultKind::ShuffleInvalid;
    fault_ = fault;
    return false;
  }
  // gpu.shuffle: the first `width` lanes of the warp take part.
  if (last - first < static_cast<unsigned>(width)) {
    fault.kind = FaultKind::ShuffleMissingLanes;
    fault_ = fault;
    return false;
  }
  for (unsigned i = first; i < last; ++i) {
    EmulatedThread &thread = threads_[i];
    int64_t lane = i - first, offset = thread.shuffleOffset, source = lane;
    switch (mode) {
    case JEET_EMU_SHUFFLE_XOR:
      source = lane ^ offset;
      break;
    case JEET_EMU_SHUFFLE_DOWN:
      source = lane + offset;
      break;
    case JEET_EMU_SHUFFLE_UP:
      source = lane - offset;
      break;
    default:
      source = offset;
      break;
    }
    bool valid = lane < width && source >= 0 && source < width;
    thread.shuffleResult =
        valid ? threads_[first + source].shuffleValue : thread.shuffleValue;
    thread.shuffleValid = valid;
    thread.status = ThreadStatus::Ready;
  }
  ++stats.shuffles;
  return true;
}

bool Runner::openBarrier(unsigned count) {
  const EmulatedThread *waiter = nullptr;
  for (unsigned i = 0; i < count && !waiter; ++i)
    if (threads_[i].status == ThreadStatus::AtBarrier)
      waiter = &threads_[i];
  for (unsigned i = 0; i < count; ++i) {
    const EmulatedThread &thread = threads_[i];
    if (thread.status == ThreadStatus::AtBarrier &&
        sameSite(thread.barrierSite, waiter->barrierSite))
      continue;
    fault_ = Fault();
    fault_.kind = thread.status == ThreadStatus::Finished
                      ? FaultKind::BarrierAfterReturn
                      : FaultKind::BarrierMismatch;
    fault_.thread = waiter->linear;
    fault_.site = waiter->barrierSite;
    fault_.other = thread.linear;
    fault_.otherKnown = true;
    fault_.otherSite = thread.barrierSite;
    return false;
  }
  for (unsigned i = 0; i < count; ++i)
    threads_[i].status = ThreadStatus::Ready;
  shadow_.advance(sharedBytes_);
  ++stats.barriers;
  return true;
}

//===----------------------------------------------------------------------===//
// Fibers
//===----------------------------------------------------------------------===//

void Runner::resume(EmulatedThread &thread) {
  if (!thread.started) {
    thread.started = true;
    thread.stack = freeStacks_.back();
    freeStacks_.pop_back();
    thread.context =
        fiberCreate(stacks_.top(thread.stack), stacks_.usableBytes(),
                    &Runner::threadMain, &thread);
  }
  current_ = &thread;
  fiberSwitch(&scheduler_, thread.context);
  // The fiber may have run later lanes after this one (threadMain).
  if (current_->status == ThreadStatus::Finished)
    freeStacks_.push_back(current_->stack);
  current_ = nullptr;
}

EmulatedThread *Runner::nextToStart(const EmulatedThread &thread) {
  uint32_t next = thread.linear + 1;
  if (next >= warpEnd_ || threads_[next].started)
    return nullptr;
  return &threads_[next];
}

void Runner::yield() { fiberSwitch(&current_->context, scheduler_); }

void Runner::raise(const Fault &fault) {
  fault_ = fault;
  faulted_ = true;
  fiberSwitch(&current_->context, scheduler_);
  // A faulted thread is never resumed.
  std::abort();
}

void Runner::threadMain(void *argument) {
  auto *thread = static_cast<EmulatedThread *>(argument);
  Runner *runner = currentRunner;
  for (;;) {
    runner->job_->kernel->entry(runner->job_->params.data());
    thread->status = ThreadStatus::Finished;
    // The next lane of the warp, not started yet, runs on this stack
    // straight away: the scheduler would start it next anyway, and a kernel
    // without barriers or shuffles needs no switch per thread.
    EmulatedThread *next = runner->nextToStart(*thread);
    if (!next)
      break;
    next->started = true;
    next->stack = thread->stack;
    runner->current_ = next;
    thread = next;
  }
  fiberSwitch(&thread->context, runner->scheduler_);
  std::abort();
}

uint32_t Runner::internSite(const char *site) {
  if (!site)
    return kUnknownSite;
  uintptr_t key = reinterpret_cast<uintptr_t>(site);
  SiteSlot &slot = siteCache_[((key >> 4) ^ (key >> 12)) & (kSiteSlots - 1)];
  auto it = std::find(sites_.begin(), sites_.end(), site);
  size_t index = it - sites_.begin();
  if (it == sites_.end()) {
    if (sites_.size() >= kUnknownSite)
      return kUnknownSite;
    sites_.push_back(site);
  }
  slot.site = site;
  slot.index = static_cast<uint32_t>(index);
  return slot.index;
}

//===----------------------------------------------------------------------===//
// The kernel ABI: thread state, barriers, shuffles
//===----------------------------------------------------------------------===//

JEET_EMU_EXPORT const JeetEmuThreadState *__jeet_emu_thread_state(void) {
  Runner *runner = currentRunner;
  return runner && runner->thread() ? &runner->thread()->state : nullptr;
}

JEET_EMU_EXPORT void __jeet_emu_barrier(const char *site) {
  Runner *runner = currentRunner;
  EmulatedThread *thread = runner->thread();
  thread->status = ThreadStatus::AtBarrier;
  thread->barrierSite = site;
  runner->yield();
}

JEET_EMU_EXPORT int32_t __jeet_emu_shuffle32(int32_t value, int32_t offset,
                                             int32_t width, int32_t mode,
                                             int8_t *valid) {
  Runner *runner = currentRunner;
  EmulatedThread *thread = runner->thread();
  thread->status = ThreadStatus::AtShuffle;
  thread->shuffleValue = value;
  thread->shuffleOffset = offset;
  thread->shuffleWidth = width;
  thread->shuffleMode = mode;
  runner->yield();
  if (valid)
    *valid = thread->shuffleValid;
  return thread->shuffleResult;
}
