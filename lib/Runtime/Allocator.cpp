//===- Allocator.cpp - Caching allocator ----------------------------------===//

#include "jeet/Runtime/Allocator.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <tuple>

using namespace jeet::runtime;

AllocatorBackend::~AllocatorBackend() = default;
void AllocatorBackend::blockAllocated(void *, size_t, void *) {}
void AllocatorBackend::blockFreed(void *, size_t, void *) {}

//===----------------------------------------------------------------------===//
// AllocatorStats
//===----------------------------------------------------------------------===//

std::vector<std::pair<const char *, uint64_t>> AllocatorStats::items() const {
  return {{"allocated_bytes", allocated_bytes},
          {"reserved_bytes", reserved_bytes},
          {"peak_allocated_bytes", peak_allocated_bytes},
          {"num_allocs", num_allocs},
          {"num_frees", num_frees},
          {"cache_hits", cache_hits},
          {"device_mallocs", device_mallocs},
          {"device_frees", device_frees}};
}

std::string AllocatorStats::toString() const {
  std::string text;
  for (const auto &[name, value] : items()) {
    if (!text.empty())
      text += ' ';
    text += name;
    text += '=';
    text += std::to_string(value);
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

/// A piece of a segment. The blocks of a segment form a doubly linked list in
/// address order; the first one (prev == null) stands for the segment.
struct CachingAllocator::Block {
  char *ptr;
  size_t size;
  void *stream;
  bool allocated = false;
  bool small;
  Block *prev = nullptr;
  Block *next = nullptr;
};

bool CachingAllocator::BlockLess::operator()(const Block *a,
                                             const Block *b) const {
  auto key = [](const Block *block) {
    return std::make_tuple(reinterpret_cast<uintptr_t>(block->stream),
                           block->size,
                           reinterpret_cast<uintptr_t>(block->ptr));
  };
  return key(a) < key(b);
}

static std::string formatBytes(size_t bytes) {
  char text[64];
  if (bytes >= (1u << 20))
    std::snprintf(text, sizeof(text), "%.2f MiB",
                  static_cast<double>(bytes) / (1 << 20));
  else if (bytes >= 1024)
    std::snprintf(text, sizeof(text), "%.2f KiB",
                  static_cast<double>(bytes) / 1024);
  else
    std::snprintf(text, sizeof(text), "%zu B", bytes);
  return text;
}

static std::string formatPointer(const void *ptr) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", ptr);
  return text;
}

//===----------------------------------------------------------------------===//
// CachingAllocator
//===----------------------------------------------------------------------===//

CachingAllocator::CachingAllocator(std::unique_ptr<AllocatorBackend> backend,
                                   std::string name)
    : backend_(std::move(backend)), name_(std::move(name)) {}

CachingAllocator::~CachingAllocator() {
  for (Block *head : segments_) {
    backend_->rawFree(head->ptr);
    for (Block *block = head; block;) {
      Block *next = block->next;
      delete block;
      block = next;
    }
  }
}

size_t CachingAllocator::roundSize(size_t bytes) {
  if (bytes < kMinBlockSize)
    return kMinBlockSize;
  return (bytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t CachingAllocator::segmentSizeFor(size_t roundedBytes) {
  if (roundedBytes <= kSmallSize)
    return kSmallBuffer;
  if (roundedBytes < kMinLargeAlloc)
    return kLargeBuffer;
  return (roundedBytes + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

CachingAllocator::Block *CachingAllocator::findFree(Pool &pool, size_t size,
                                                    void *stream) {
  Block key{nullptr, size, stream, false, false, nullptr, nullptr};
  auto it = pool.lower_bound(&key);
  if (it != pool.end() && (*it)->stream == stream)
    return *it;
  if (stream == nullptr)
    return nullptr;
  // Blocks of finished (or no) streams are usable on every stream.
  key.stream = nullptr;
  it = pool.lower_bound(&key);
  if (it != pool.end() && (*it)->stream == nullptr)
    return *it;
  return nullptr;
}

CachingAllocator::Block *
CachingAllocator::takeAndSplit(Pool &pool, Block *block, size_t size) {
  pool.erase(block);
  size_t remaining = block->size - size;
  bool split =
      block->small ? remaining >= kMinBlockSize : remaining > kSmallSize;
  if (split) {
    Block *rest = new Block{block->ptr + size, remaining, block->stream, false,
                            block->small,      block,     block->next};
    if (block->next)
      block->next->prev = rest;
    block->next = rest;
    block->size = size;
    pool.insert(rest);
  }
  return block;
}

CachingAllocator::Block *CachingAllocator::tryMerge(Block *block) {
  // Merge with the next block, then with the previous one, when free and
  // tagged with the same stream.
  Pool &pool = block->small ? small_ : large_;
  Block *next = block->next;
  if (next && !next->allocated && next->stream == block->stream) {
    pool.erase(next);
    block->size += next->size;
    block->next = next->next;
    if (next->next)
      next->next->prev = block;
    delete next;
  }
  Block *prev = block->prev;
  if (prev && !prev->allocated && prev->stream == block->stream) {
    pool.erase(prev);
    prev->size += block->size;
    prev->next = block->next;
    if (block->next)
      block->next->prev = prev;
    delete block;
    block = prev;
  }
  return block;
}

void CachingAllocator::insertFree(Block *block) {
  block = tryMerge(block);
  (block->small ? small_ : large_).insert(block);
}

Status CachingAllocator::backendAllocLocked(size_t bytes, void **out) {
  if (limit_ != 0 && stats_.reserved_bytes + bytes > limit_)
    return outOfMemory("memory limit of " + std::to_string(limit_) +
                       " bytes reached (reserved " +
                       std::to_string(stats_.reserved_bytes) + ", segment of " +
                       std::to_string(bytes) + " requested)");
  StatusOr<void *> ptr = backend_->rawAlloc(bytes);
  if (!ptr.ok())
    return ptr.status();
  if (reinterpret_cast<uintptr_t>(*ptr) % kAlignment != 0) {
    backend_->rawFree(*ptr);
    ++stats_.device_frees;
    return internalError("backend returned " + formatPointer(*ptr) +
                         ", not 256-byte aligned");
  }
  *out = *ptr;
  ++stats_.device_mallocs;
  stats_.reserved_bytes += bytes;
  return Status();
}

StatusOr<void *> CachingAllocator::allocate(size_t bytes, void *stream) {
  size_t size = roundSize(bytes);
  if (size < bytes) // overflow
    return outOfMemory(name_ + ": cannot allocate " + std::to_string(bytes) +
                       " bytes");
  Pool &pool = size <= kSmallSize ? small_ : large_;
  std::lock_guard<std::mutex> lock(mutex_);
  if (injectFailures_ != 0) {
    if (injectAfter_ == 0) {
      --injectFailures_;
      return outOfMemory(name_ + ": out of memory allocating " +
                         std::to_string(bytes) +
                         " bytes (an injected failure, for testing); stats: " +
                         stats_.toString());
    }
    --injectAfter_;
  }
  Block *block = findFree(pool, size, stream);
  if (block) {
    ++stats_.cache_hits;
  } else {
    size_t segmentSize = segmentSizeFor(size);
    void *ptr = nullptr;
    Status status = backendAllocLocked(segmentSize, &ptr);
    if (!status.ok()) {
      // Give the cached memory back and retry once.
      releaseFreeSegmentsLocked();
      status = backendAllocLocked(segmentSize, &ptr);
    }
    if (!status.ok()) {
      return outOfMemory(
          name_ + ": out of memory allocating " + std::to_string(bytes) +
          " bytes (" + formatBytes(bytes) + ", segment of " +
          std::to_string(segmentSize) + " bytes) after emptying the cache: " +
          status.message() + "; stats: " + stats_.toString());
    }
    block = new Block{static_cast<char *>(ptr), segmentSize, stream, false,
                      size <= kSmallSize,       nullptr,     nullptr};
    segments_.push_back(block);
    pool.insert(block);
  }
  block = takeAndSplit(pool, block, size);
  block->allocated = true;
  block->stream = stream;
  allocated_[block->ptr] = block;
  backend_->blockAllocated(block->ptr, bytes, stream);
  ++stats_.num_allocs;
  stats_.allocated_bytes += block->size;
  stats_.peak_allocated_bytes =
      std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  return static_cast<void *>(block->ptr);
}

Status CachingAllocator::freeLocked(void *ptr, void *stream, bool useStream) {
  if (!ptr)
    return Status();
  auto it = allocated_.find(ptr);
  if (it == allocated_.end())
    return invalidArgument(name_ + ": free of unknown pointer " +
                           formatPointer(ptr));
  Block *block = it->second;
  allocated_.erase(it);
  block->allocated = false;
  if (useStream)
    block->stream = stream;
  backend_->blockFreed(block->ptr, block->size, block->stream);
  ++stats_.num_frees;
  stats_.allocated_bytes -= block->size;
  insertFree(block);
  return Status();
}

Status CachingAllocator::free(void *ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  return freeLocked(ptr, nullptr, /*useStream=*/false);
}

Status CachingAllocator::free(void *ptr, void *stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  return freeLocked(ptr, stream, /*useStream=*/true);
}

void CachingAllocator::streamSynchronized(void *stream) {
  if (!stream)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  for (Block *head : segments_) {
    Pool &pool = head->small ? small_ : large_;
    // Retag, then coalesce neighbours that now share the null tag.
    for (Block *block = head; block; block = block->next) {
      if (block->allocated || block->stream != stream)
        continue;
      pool.erase(block);
      block->stream = nullptr;
      pool.insert(block);
    }
    for (Block *block = head; block && block->next;) {
      Block *next = block->next;
      if (!block->allocated && !next->allocated &&
          block->stream == next->stream) {
        pool.erase(block);
        pool.erase(next);
        block->size += next->size;
        block->next = next->next;
        if (next->next)
          next->next->prev = block;
        delete next;
        pool.insert(block);
      } else {
        block = next;
      }
    }
  }
}

void CachingAllocator::releaseFreeSegmentsLocked() {
  std::vector<Block *> kept;
  for (Block *head : segments_) {
    bool inUse = false;
    for (Block *block = head; block; block = block->next)
      inUse |= block->allocated;
    if (inUse) {
      kept.push_back(head);
      continue;
    }
    Pool &pool = head->small ? small_ : large_;
    size_t segmentSize = 0;
    for (Block *block = head; block;) {
      Block *next = block->next;
      segmentSize += block->size;
      pool.erase(block);
      if (block != head)
        delete block;
      block = next;
    }
    backend_->rawFree(head->ptr);
    delete head;
    ++stats_.device_frees;
    stats_.reserved_bytes -= segmentSize;
  }
  segments_ = std::move(kept);
}

void CachingAllocator::emptyCache() {
  std::lock_guard<std::mutex> lock(mutex_);
  releaseFreeSegmentsLocked();
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::resetPeak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
}

void CachingAllocator::setMemoryLimit(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  limit_ = bytes;
}

void CachingAllocator::injectFailures(uint64_t successes, uint64_t failures) {
  std::lock_guard<std::mutex> lock(mutex_);
  injectAfter_ = successes;
  injectFailures_ = failures;
}

size_t CachingAllocator::memoryLimit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_;
}

size_t CachingAllocator::blockSize(void *ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocated_.find(ptr);
  return it == allocated_.end() ? 0 : it->second->size;
}

size_t CachingAllocator::numSegments() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return segments_.size();
}
