//===- Shadow.h - Race detection on a block's shared memory -----*- C++ -*-===//
//
// Two threads of a block race when they touch the same byte between the same
// pair of barriers (the same epoch) and one of them writes. The shadow keeps,
// per byte, a stamp of its last write and one of its reads in the current
// epoch: the epoch, the thread (or "several readers"), and the access site.
//
// Accesses are mostly whole aligned words (f32, vectors of them), so stamps
// are kept per 4-byte granule; a granule that an access covers only in part
// is split into per-byte stamps, and joined again when a thread writes it
// whole. The result is exact per byte, with a shadow a quarter the size in
// the common case (it stays in the L1 cache with the shared memory itself).
//
// A shadow belongs to one runner (one host thread): no locks. Epochs are
// numbered from 1; when the numbers run out, the shadow is cleared.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_EMULATOR_SHADOW_H
#define JEET_LIB_EMULATOR_SHADOW_H

#include <cstddef>
#include <cstdint>

namespace jeet {
namespace emulator {

/// bits 0-9: the thread; bit 10: read by several threads; bits 11-20: the
/// access site (an index into the launch's sites); bits 21-31: the epoch.
using Stamp = uint32_t;
constexpr unsigned kStampSiteShift = 11;
constexpr unsigned kStampEpochShift = 21;
constexpr Stamp kStampThreadMask = 0x3ff;
constexpr Stamp kStampSeveral = 0x400;
constexpr uint32_t kStampSiteMask = 0x3ff;
/// Sites past this many in one launch are not told apart in reports.
constexpr uint32_t kUnknownSite = kStampSiteMask;
constexpr uint32_t kMaxEpoch = (1u << (32 - kStampEpochShift)) - 1;

inline uint32_t stampThread(Stamp stamp) { return stamp & kStampThreadMask; }
inline uint32_t stampSite(Stamp stamp) {
  return (stamp >> kStampSiteShift) & kStampSiteMask;
}
inline uint32_t stampEpoch(Stamp stamp) { return stamp >> kStampEpochShift; }

/// The earlier access a racing one conflicts with (filled on a race only).
struct Conflict {
  Stamp other;
  bool otherWrite;
  /// The first byte (offset in shared memory) the two accesses share.
  uint64_t offset;
};

class SharedShadow {
public:
  SharedShadow() = default;
  SharedShadow(const SharedShadow &) = delete;
  SharedShadow &operator=(const SharedShadow &) = delete;
  ~SharedShadow();

  /// Room for `bytes` of shared memory; false when the host has none.
  bool allocate(size_t bytes);

  /// A new epoch: a block starts, or its threads passed a barrier.
  /// `usedBytes` of shared memory may be touched until the next one.
  void advance(size_t usedBytes);

  /// Records an access of thread `thread` (< 1024) from site `site`; false
  /// (and `conflict`) when it races with an earlier access of the epoch.
  bool access(uint64_t offset, uint64_t bytes, bool write, uint32_t thread,
              uint32_t site, Conflict *conflict) {
    const Stamp mine =
        (epoch_ << kStampEpochShift) | (site << kStampSiteShift) | thread;
    const uint64_t end = offset + bytes;
    if (((offset | bytes) & (kGranule - 1)) == 0) {
      for (uint64_t g = offset / kGranule; g < end / kGranule; ++g) {
        if (!split_[g]) {
          if (!touch(granules_[g], write, mine, conflict)) {
            conflict->offset = g * kGranule;
            return false;
          }
          continue;
        }
        for (uint64_t b = g * kGranule; b < (g + 1) * kGranule; ++b)
          if (!touch(bytes_[b], write, mine, conflict)) {
            conflict->offset = b;
            return false;
          }
        if (write)
          join(g);
      }
      return true;
    }
    for (uint64_t b = offset; b < end; ++b) {
      if (!split_[b / kGranule])
        split(b / kGranule);
      if (!touch(bytes_[b], write, mine, conflict)) {
        conflict->offset = b;
        return false;
      }
    }
    return true;
  }

private:
  static constexpr uint64_t kGranule = 4;
  struct Stamps {
    Stamp write;
    Stamp read;
  };

  /// The race rules for one granule or byte.
  static bool touch(Stamps &stamps, bool write, Stamp mine,
                    Conflict *conflict) {
    const uint32_t epoch = stampEpoch(mine), thread = stampThread(mine);
    const Stamp written = stamps.write;
    if (stampEpoch(written) == epoch && stampThread(written) != thread) {
      conflict->other = written;
      conflict->otherWrite = true;
      return false;
    }
    const Stamp read = stamps.read;
    const bool readNow = stampEpoch(read) == epoch;
    if (write) {
      if (readNow && (stampThread(read) != thread || (read & kStampSeveral))) {
        conflict->other = read;
        conflict->otherWrite = false;
        return false;
      }
      stamps.write = mine;
    } else if (!readNow) {
      stamps.read = mine;
    } else if (!(read & kStampSeveral) && stampThread(read) != thread) {
      stamps.read = read | kStampSeveral;
    }
    return true;
  }

  void split(uint64_t granule);
  void join(uint64_t granule);

  Stamps *granules_ = nullptr;
  Stamps *bytes_ = nullptr;
  uint8_t *split_ = nullptr;
  size_t capacity_ = 0;
  uint32_t epoch_ = 0;
  /// Shared bytes touched since the shadow was last cleared.
  size_t dirty_ = 0;
};

} // namespace emulator
} // namespace jeet

#endif // JEET_LIB_EMULATOR_SHADOW_H
