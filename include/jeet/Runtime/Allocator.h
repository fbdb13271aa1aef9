//===- Allocator.h - Caching allocator over a raw backend -------*- C++ -*-===//
//
// A caching allocator in the manner of PyTorch's CUDA caching allocator, used
// for both the host and CUDA devices:
//
// - Requests are rounded up to a multiple of 512 bytes. Requests up to 1 MiB
//   are carved from 2 MiB segments (the small pool); larger ones come from
//   20 MiB segments when under 10 MiB, else from segments rounded up to 2 MiB
//   (the large pool).
// - Freed blocks stay cached for reuse; a hit makes no backend call. A cached
//   block larger than needed is split; adjacent free pieces of a segment are
//   merged again when freed.
// - Blocks carry the stream (an opaque pointer, null for "no stream") they were
//   freed on, and are reused first on that stream. Blocks become usable on any
//   stream once the stream is known to have finished (streamSynchronized()).
// - On backend failure the cache is emptied and the request retried once; then
//   OutOfMemory names the size and the statistics. The allocator stays usable.
// - Every block is 256-byte aligned. free() needs only the pointer.
// - Thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_RUNTIME_ALLOCATOR_H
#define JEET_RUNTIME_ALLOCATOR_H

#include "jeet/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace jeet {
namespace runtime {

/// Where the allocator gets its memory: aligned host malloc, cuMemAlloc, ...
class AllocatorBackend {
public:
  virtual ~AllocatorBackend();
  /// Returns at least `bytes` bytes, 256-byte aligned.
  virtual StatusOr<void *> rawAlloc(size_t bytes) = 0;
  virtual void rawFree(void *ptr) = 0;
  /// The allocator handed out a block of `bytes` requested bytes at `ptr`
  /// for use on `stream`, or took back the block of `bytes` bytes (its whole
  /// size, at least what was requested) from its last use on `stream`.
  /// Called with the allocator's lock held. The emulated CUDA driver checks
  /// kernel accesses against these blocks rather than the segments.
  virtual void blockAllocated(void *ptr, size_t bytes, void *stream);
  virtual void blockFreed(void *ptr, size_t bytes, void *stream);
};

/// Allocator statistics. The field names are part of the API (Python exposes
/// them as a dict with the same keys).
struct AllocatorStats {
  uint64_t allocated_bytes = 0;      ///< bytes in blocks handed out now
  uint64_t reserved_bytes = 0;       ///< bytes obtained from the backend now
  uint64_t peak_allocated_bytes = 0; ///< max allocated_bytes since resetPeak
  uint64_t num_allocs = 0;           ///< successful allocate() calls
  uint64_t num_frees = 0;            ///< successful free() calls
  uint64_t cache_hits = 0;           ///< allocations served from the cache
  uint64_t device_mallocs = 0;       ///< successful backend rawAlloc calls
  uint64_t device_frees = 0;         ///< backend rawFree calls

  /// The fields as (name, value) pairs, in declaration order.
  std::vector<std::pair<const char *, uint64_t>> items() const;
  /// "allocated_bytes=... reserved_bytes=... ..."
  std::string toString() const;
};

class CachingAllocator {
public:
  static constexpr size_t kAlignment = 256;
  static constexpr size_t kMinBlockSize = 512;
  static constexpr size_t kSmallSize = 1 << 20;      // 1 MiB
  static constexpr size_t kSmallBuffer = 2 << 20;    // 2 MiB
  static constexpr size_t kLargeBuffer = 20 << 20;   // 20 MiB
  static constexpr size_t kMinLargeAlloc = 10 << 20; // 10 MiB
  static constexpr size_t kRoundLarge = 2 << 20;     // 2 MiB

  /// `name` appears in error messages (e.g. "cuda:0").
  CachingAllocator(std::unique_ptr<AllocatorBackend> backend, std::string name);
  /// Returns every segment to the backend, including ones still in use.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator &) = delete;
  CachingAllocator &operator=(const CachingAllocator &) = delete;

  /// Allocates `bytes` (0 is allowed and gives a minimal block) for use on
  /// `stream`.
  StatusOr<void *> allocate(size_t bytes, void *stream = nullptr);

  /// Returns a block obtained from allocate(). The block is cached for reuse
  /// on the stream it was allocated on. Null is a no-op.
  Status free(void *ptr);
  /// Same, but the block's last use was on `stream`.
  Status free(void *ptr, void *stream);

  /// The work queued on `stream` so far has finished: its free cached blocks
  /// become reusable on every stream.
  void streamSynchronized(void *stream);

  /// Returns every segment with no block in use to the backend.
  void emptyCache();

  AllocatorStats stats() const;
  void resetPeak();

  /// Makes the backend fail when reserved_bytes would exceed `bytes`
  /// (0: no limit). For out-of-memory tests and for capping a device.
  void setMemoryLimit(size_t bytes);
  size_t memoryLimit() const;

  /// Fault injection for tests: after `successes` more successful
  /// allocations, the next `failures` fail with OutOfMemory as if the device
  /// were full (whichever thread asks). (0, 0) turns it off.
  void injectFailures(uint64_t successes, uint64_t failures);

  /// The size of the block behind `ptr` (rounded), or 0 if unknown.
  size_t blockSize(void *ptr) const;
  /// Number of segments held from the backend.
  size_t numSegments() const;

  const std::string &name() const { return name_; }

  /// The rounded size of a request, and the segment size for a rounded size.
  static size_t roundSize(size_t bytes);
  static size_t segmentSizeFor(size_t roundedBytes);

private:
  struct Block;
  struct BlockLess {
    bool operator()(const Block *a, const Block *b) const;
  };
  using Pool = std::set<Block *, BlockLess>;

  Block *findFree(Pool &pool, size_t size, void *stream);
  Block *takeAndSplit(Pool &pool, Block *block, size_t size);
  Block *tryMerge(Block *block);
  void insertFree(Block *block);
  void releaseFreeSegmentsLocked();
  Status backendAllocLocked(size_t bytes, void **out);
  Status freeLocked(void *ptr, void *stream, bool useStream);

  std::unique_ptr<AllocatorBackend> backend_;
  std::string name_;
  mutable std::mutex mutex_;
  Pool small_;
  Pool large_;
  std::unordered_map<void *, Block *> allocated_;
  std::vector<Block *> segments_; // first block of each segment
  AllocatorStats stats_;
  size_t limit_ = 0;
  uint64_t injectAfter_ = 0;
  uint64_t injectFailures_ = 0;
};

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_ALLOCATOR_H
