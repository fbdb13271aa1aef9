//===- Checks.cpp - memcheck, racecheck, and what they report -------------===//
//
// Global accesses: the address must lie, with all its bytes, in a live device
// allocation (or, in a pool of the runtime's allocator, in a live block of
// it), and be aligned as the access assumes. A small per-runner cache of the
// ranges recently hit answers almost every check without a lookup.
//
// Shared accesses: the bytes must lie in the block's shared memory, and no
// two threads may touch a byte between the same pair of barriers unless both
// only read it. Each byte has a shadow word for its last write and one for
// its reads in the current barrier interval (the epoch); the runner's shadow
// belongs to one host thread, so no lock is taken.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "jeet/Emulator/Emulator.h"

#include <algorithm>

using namespace jeet::emulator;

//===----------------------------------------------------------------------===//
// The kernel ABI: access checks
//===----------------------------------------------------------------------===//

JEET_EMU_EXPORT void __jeet_emu_check_global(const void *address, int64_t bytes,
                                             int32_t flags, int64_t alignment,
                                             const char *site) {
  Runner *runner = currentRunner;
  if (!(runner->checks & JEET_EMULATOR_CHECK_MEMORY))
    return;
  ++runner->stats.globalChecks;
  uintptr_t value = reinterpret_cast<uintptr_t>(address);
  uint64_t size = bytes > 0 ? static_cast<uint64_t>(bytes) : 0;
  bool aligned = alignment <= 1 ||
                 ((alignment & (alignment - 1)) == 0
                      ? (value & static_cast<uint64_t>(alignment - 1)) == 0
                      : value % static_cast<uint64_t>(alignment) == 0);
  if (aligned && runner->cachedGlobal(value, size))
    return;
  runner->checkGlobalSlow(value, size, flags, alignment, site);
}

JEET_EMU_EXPORT void __jeet_emu_check_shared(const void *address, int64_t bytes,
                                             int32_t flags, const char *site) {
  Runner *runner = currentRunner;
  if (!runner->checks)
    return;
  ++runner->stats.sharedChecks;
  runner->checkShared(reinterpret_cast<uintptr_t>(address),
                      bytes > 0 ? static_cast<uint64_t>(bytes) : 0, flags,
                      site);
}

//===----------------------------------------------------------------------===//
// Runner: the checks
//===----------------------------------------------------------------------===//

void Runner::checkGlobalSlow(uintptr_t address, uint64_t bytes, int32_t flags,
                             int64_t alignment, const char *site) {
  bool misaligned =
      alignment > 1 && address % static_cast<uint64_t>(alignment) != 0;
  Range range;
  if (!misaligned && memory().accessible(address, bytes, &range)) {
    cache_[cacheNext_] = range;
    cacheNext_ = (cacheNext_ + 1) % kCachedRanges;
    return;
  }
  Fault fault;
  fault.kind = FaultKind::GlobalAccess;
  fault.thread = current_->linear;
  fault.address = address;
  fault.bytes = static_cast<int64_t>(bytes);
  fault.flags = flags;
  fault.alignment = alignment;
  fault.site = site;
  raise(fault);
}

void Runner::raiseSharedOutOfBounds(uintptr_t address, uint64_t bytes,
                                    int32_t flags, const char *site) {
  Fault fault;
  fault.kind = FaultKind::SharedOutOfBounds;
  fault.thread = current_->linear;
  fault.address = address;
  fault.bytes = static_cast<int64_t>(bytes);
  fault.flags = flags;
  fault.site = site;
  raise(fault);
}

inline void Runner::checkShared(uintptr_t address, uint64_t bytes,
                                int32_t flags, const char *site) {
  const uint64_t limit = sharedBytes_;
  const uint64_t offset = address - reinterpret_cast<uintptr_t>(shared_);
  if (offset > limit || bytes > limit - offset) {
    if (!(checks & JEET_EMULATOR_CHECK_MEMORY))
      return; // no shadow to look at outside shared memory
    raiseSharedOutOfBounds(address, bytes, flags, site);
  }
  if (!(checks & JEET_EMULATOR_CHECK_RACES))
    return;
  Conflict conflict;
  if (!shadow_.access(offset, bytes, flags & JEET_EMU_ACCESS_WRITE,
                      current_->linear, siteIndex(site), &conflict))
    raiseRace(site, flags, address, bytes, conflict);
}

void Runner::raiseRace(const char *site, int32_t flags, uintptr_t address,
                       uint64_t bytes, const Conflict &conflict) {
  Fault fault;
  fault.kind = FaultKind::SharedRace;
  fault.thread = current_->linear;
  fault.address = std::max<uintptr_t>(
      address, reinterpret_cast<uintptr_t>(shared_) + conflict.offset);
  fault.bytes = static_cast<int64_t>(bytes);
  fault.flags = flags;
  fault.site = site;
  fault.other = stampThread(conflict.other);
  // A "several readers" stamp keeps the first reader, which may be this
  // very thread: then the other one is not known.
  fault.otherKnown = fault.other != fault.thread;
  fault.otherWrite = conflict.otherWrite;
  uint32_t index = stampSite(conflict.other);
  fault.otherSite = index < sites_.size() ? sites_[index] : nullptr;
  raise(fault);
}

//===----------------------------------------------------------------------===//
// Reports
//===----------------------------------------------------------------------===//

std::string Runner::describeThread(uint32_t linear) const {
  const unsigned x = job_->block[0], y = job_->block[1];
  return "thread (" + std::to_string(linear % x) + "," +
         std::to_string((linear / x) % y) + "," +
         std::to_string(linear / (x * y)) + ")";
}

namespace {
std::string siteText(const char *site) {
  return site && *site ? site : "an unnamed site";
}

const char *shuffleModeName(int32_t mode) {
  switch (mode) {
  case JEET_EMU_SHUFFLE_XOR:
    return "xor";
  case JEET_EMU_SHUFFLE_DOWN:
    return "down";
  case JEET_EMU_SHUFFLE_UP:
    return "up";
  case JEET_EMU_SHUFFLE_IDX:
    return "idx";
  default:
    return "unknown";
  }
}
} // namespace

std::string Runner::formatFault(CUresult *code) const {
  const Fault &f = fault_;
  const std::string where = "kernel '" + job_->kernel->name + "', block (" +
                            std::to_string(blockId_[0]) + "," +
                            std::to_string(blockId_[1]) + "," +
                            std::to_string(blockId_[2]) + ")";
  const std::string access =
      (f.flags & JEET_EMU_ACCESS_WRITE) ? "write" : "read";
  const std::string size = std::to_string(f.bytes) + " bytes";
  const std::string lane = " (lane " + std::to_string(f.thread % kWarpSize) +
                           " of warp " + std::to_string(f.thread / kWarpSize) +
                           ")";
  std::string text = "Jeet GPU emulator: ";
  *code = kLaunchFailed;
  switch (f.kind) {
  case FaultKind::GlobalAccess: {
    std::string problem, detail;
    Range range;
    uint64_t alignment = static_cast<uint64_t>(f.alignment);
    if (f.alignment > 1 && f.address % alignment) {
      *code = kMisalignedAddress;
      problem = "misaligned";
      detail = "the access assumes " + std::to_string(alignment) +
               "-byte alignment; the address is " +
               std::to_string(f.address % alignment) + " bytes past a multiple";
      if (memory().accessible(f.address, f.bytes, &range))
        detail +=
            "\n  allocation: " + describeRelation(range, f.address, f.bytes);
    } else {
      *code = kIllegalAddress;
      memory().explain(f.address, f.bytes, &problem, &detail);
    }
    text += "invalid global " + access + " of " + size + " at " +
            formatAddress(f.address) + " (" + problem + ")\n  in " + where +
            ", " + describeThread(f.thread) + "\n  at " + siteText(f.site) +
            "\n  " + detail;
    return text;
  }
  case FaultKind::SharedOutOfBounds: {
    *code = kIllegalAddress;
    int64_t offset =
        static_cast<int64_t>(f.address - reinterpret_cast<uintptr_t>(shared_));
    text += "invalid shared " + access + " of " + size + " at offset " +
            std::to_string(offset) +
            " of the block's shared memory (out of bounds)\n  in " + where +
            ", " + describeThread(f.thread) + "\n  at " + siteText(f.site) +
            "\n  the block has " + std::to_string(job_->sharedBytes) +
            " bytes of shared memory (" +
            std::to_string(job_->staticSharedBytes) + " static, " +
            std::to_string(job_->dynamicSharedBytes) + " dynamic)";
    return text;
  }
  case FaultKind::SharedRace: {
    uint64_t offset = f.address - reinterpret_cast<uintptr_t>(shared_);
    text += "shared memory race in " + where + "\n  " +
            describeThread(f.thread) + " " + access + "s " + size +
            " at shared offset " + std::to_string(offset) + " (byte " +
            formatAddress(f.address) + ") at " + siteText(f.site) + "\n  " +
            (f.otherKnown ? describeThread(f.other) : "another thread") + " " +
            (f.otherWrite ? "wrote" : "read") +
            " that byte since the last barrier, at " + siteText(f.otherSite) +
            "\n  two threads of a block touched the same byte between the "
            "same pair of barriers, one of them writing: a barrier must "
            "order them";
    return text;
  }
  case FaultKind::BarrierAfterReturn:
  case FaultKind::BarrierMismatch:
    text += "divergent barrier in " + where + "\n  " +
            describeThread(f.thread) + " waits at " + siteText(f.site) +
            "\n  " + describeThread(f.other) +
            (f.kind == FaultKind::BarrierAfterReturn
                 ? " has returned"
                 : " waits at " + siteText(f.otherSite)) +
            "\n  every thread of a block must reach the same barrier (on a "
            "GPU the block would hang or run on with stale shared memory)";
    return text;
  case FaultKind::ShuffleDivergence:
    text += "divergent shuffle in " + where + "\n  " +
            describeThread(f.thread) + lane + " is at a shuffle\n  " +
            describeThread(f.other) + " of the same warp " +
            (f.otherStatus == ThreadStatus::Finished
                 ? std::string("has returned")
                 : "waits at " + siteText(f.otherSite)) +
            "\n  every lane of a warp must take part in a shuffle";
    return text;
  case FaultKind::ShuffleMismatch:
    text += "divergent shuffle in " + where + "\n  " +
            describeThread(f.thread) + lane + " shuffles (" +
            shuffleModeName(f.mode) + ", width " + std::to_string(f.width) +
            ")\n  " + describeThread(f.other) + " of the same warp shuffles (" +
            shuffleModeName(f.otherMode) + ", width " +
            std::to_string(f.otherWidth) +
            ")\n  the lanes of a warp must take part in the same shuffle";
    return text;
  case FaultKind::ShuffleMissingLanes:
    text += "invalid shuffle in " + where + "\n  " + describeThread(f.thread) +
            lane + " shuffles with width " + std::to_string(f.width) +
            ", but its warp has only " +
            std::to_string(std::min<unsigned>(
                kWarpSize, threadCount_ - f.thread / kWarpSize * kWarpSize)) +
            " threads (the block has " + std::to_string(threadCount_) +
            ")\n  gpu.shuffle needs the first `width` lanes of the warp";
    return text;
  case FaultKind::ShuffleInvalid:
    text += "invalid shuffle in " + where + "\n  " + describeThread(f.thread) +
            lane + " shuffles with mode " + std::to_string(f.mode) +
            " and width " + std::to_string(f.width) +
            "\n  the width must be a power of two up to 32, the mode 0-3";
    return text;
  }
  return text;
}
