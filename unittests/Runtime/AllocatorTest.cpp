//===- AllocatorTest.cpp - Caching allocator tests ------------------------===//

#include "jeet/Runtime/Allocator.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

using namespace jeet::runtime;

namespace {
/// An aligned-malloc backend that counts its calls and can be capped.
class CountingBackend : public AllocatorBackend {
public:
  StatusOr<void *> rawAlloc(size_t bytes) override {
    ++allocs;
    if (cap && inUse + bytes > cap)
      return outOfMemory("counting backend is full");
    inUse += bytes;
    return std::aligned_alloc(256, bytes);
  }
  void rawFree(void *ptr) override {
    ++frees;
    std::free(ptr);
  }
  std::atomic<int> allocs{0}, frees{0};
  size_t inUse = 0;
  size_t cap = 0;
};

constexpr size_t MiB = 1 << 20;

class AllocatorTest : public ::testing::Test {
protected:
  AllocatorTest() {
    auto owned = std::make_unique<CountingBackend>();
    backend = owned.get();
    allocator = std::make_unique<CachingAllocator>(std::move(owned), "test");
  }
  void *alloc(size_t bytes, void *stream = nullptr) {
    StatusOr<void *> ptr = allocator->allocate(bytes, stream);
    EXPECT_TRUE(ptr.ok()) << ptr.status().toString();
    return ptr.ok() ? *ptr : nullptr;
  }
  void release(void *ptr) {
    Status status = allocator->free(ptr);
    EXPECT_TRUE(status.ok()) << status.toString();
  }
  CountingBackend *backend;
  std::unique_ptr<CachingAllocator> allocator;
};
} // namespace

TEST(AllocatorSizes, RoundingAndSegments) {
  EXPECT_EQ(CachingAllocator::roundSize(0), 512u);
  EXPECT_EQ(CachingAllocator::roundSize(1), 512u);
  EXPECT_EQ(CachingAllocator::roundSize(512), 512u);
  EXPECT_EQ(CachingAllocator::roundSize(513), 1024u);
  EXPECT_EQ(CachingAllocator::segmentSizeFor(512), 2 * MiB);
  EXPECT_EQ(CachingAllocator::segmentSizeFor(MiB), 2 * MiB);
  EXPECT_EQ(CachingAllocator::segmentSizeFor(MiB + 512), 20 * MiB);
  EXPECT_EQ(CachingAllocator::segmentSizeFor(10 * MiB), 10 * MiB);
  EXPECT_EQ(CachingAllocator::segmentSizeFor(11 * MiB), 12 * MiB);
}

TEST_F(AllocatorTest, ReuseMakesNoBackendCall) {
  void *a = alloc(1000);
  release(a);
  EXPECT_EQ(backend->allocs, 1);
  void *b = alloc(1000);
  EXPECT_EQ(a, b);
  EXPECT_EQ(backend->allocs, 1);
  AllocatorStats stats = allocator->stats();
  EXPECT_EQ(stats.cache_hits, 1u);
  EXPECT_EQ(stats.device_mallocs, 1u);
  release(b);
}

TEST_F(AllocatorTest, Statistics) {
  void *a = alloc(1000); // 1024
  void *b = alloc(3000); // 3072
  AllocatorStats stats = allocator->stats();
  EXPECT_EQ(stats.allocated_bytes, 4096u);
  EXPECT_EQ(stats.reserved_bytes, 2 * MiB);
  EXPECT_EQ(stats.peak_allocated_bytes, 4096u);
  EXPECT_EQ(stats.num_allocs, 2u);
  release(b);
  stats = allocator->stats();
  EXPECT_EQ(stats.allocated_bytes, 1024u);
  EXPECT_EQ(stats.peak_allocated_bytes, 4096u);
  EXPECT_EQ(stats.num_frees, 1u);
  allocator->resetPeak();
  EXPECT_EQ(allocator->stats().peak_allocated_bytes, 1024u);
  release(a);
  stats = allocator->stats();
  EXPECT_EQ(stats.allocated_bytes, 0u);
  EXPECT_EQ(stats.reserved_bytes, 2 * MiB);

  std::vector<std::string> names;
  for (auto &item : stats.items())
    names.push_back(item.first);
  std::vector<std::string> expected = {
      "allocated_bytes", "reserved_bytes", "peak_allocated_bytes",
      "num_allocs",      "num_frees",      "cache_hits",
      "device_mallocs",  "device_frees"};
  EXPECT_EQ(names, expected);
  EXPECT_NE(stats.toString().find("reserved_bytes=2097152"), std::string::npos);
}

TEST_F(AllocatorTest, EveryBlockIs256Aligned) {
  std::vector<void *> ptrs;
  for (size_t size : {1, 7, 255, 256, 257, 511, 513, 4097, 100000, 1500000,
                      3000000, 12000000})
    ptrs.push_back(alloc(size));
  for (void *ptr : ptrs)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 256, 0u);
  for (void *ptr : ptrs)
    release(ptr);
}

TEST_F(AllocatorTest, SmallBlocksAreSplitFromOneSegment) {
  char *a = static_cast<char *>(alloc(512));
  char *b = static_cast<char *>(alloc(512));
  char *c = static_cast<char *>(alloc(1024));
  EXPECT_EQ(backend->allocs, 1);
  EXPECT_EQ(b, a + 512);
  EXPECT_EQ(c, b + 512);
  EXPECT_EQ(allocator->blockSize(c), 1024u);
  release(a);
  release(b);
  release(c);
}

TEST_F(AllocatorTest, AdjacentFreeBlocksMerge) {
  char *a = static_cast<char *>(alloc(512 * 1024));
  char *b = static_cast<char *>(alloc(512 * 1024));
  char *c = static_cast<char *>(alloc(512 * 1024));
  EXPECT_EQ(backend->allocs, 1);
  release(a);
  release(c);
  release(b); // merges with both neighbours
  // The whole 2 MiB segment is one free block again: a 1 MiB request starts at
  // its base, and no backend call is made.
  void *d = alloc(MiB);
  EXPECT_EQ(d, a);
  EXPECT_EQ(backend->allocs, 1);
  release(d);
  allocator->emptyCache();
  EXPECT_EQ(backend->frees, 1);
  EXPECT_EQ(allocator->stats().reserved_bytes, 0u);
}

TEST_F(AllocatorTest, LargeBlocksSplitAndMerge) {
  char *a = static_cast<char *>(alloc(4 * MiB)); // 20 MiB segment
  char *b = static_cast<char *>(alloc(4 * MiB)); // split from it
  EXPECT_EQ(backend->allocs, 1);
  EXPECT_EQ(b, a + 4 * MiB);
  EXPECT_EQ(allocator->stats().reserved_bytes, 20 * MiB);
  release(a);
  release(b);
  // Merged back: a 15 MiB request fits in the same segment.
  void *c = alloc(15 * MiB);
  EXPECT_EQ(c, a);
  EXPECT_EQ(backend->allocs, 1);
  release(c);
}

TEST_F(AllocatorTest, FragmentationNeedsANewSegment) {
  // Free blocks around a live one cannot be merged into a larger block.
  char *a = static_cast<char *>(alloc(768 * 1024));
  char *b = static_cast<char *>(alloc(512 * 1024));
  char *c = static_cast<char *>(alloc(768 * 1024));
  release(a);
  release(c);
  void *d = alloc(MiB); // 768K + (the 768K tail) are split by b
  EXPECT_EQ(backend->allocs, 2);
  release(b);
  release(d);
  EXPECT_EQ(allocator->numSegments(), 2u);
  allocator->emptyCache();
  EXPECT_EQ(allocator->numSegments(), 0u);
}

TEST_F(AllocatorTest, PerStreamReuse) {
  void *s1 = reinterpret_cast<void *>(0x1000);
  void *s2 = reinterpret_cast<void *>(0x2000);
  void *a = alloc(4096, s1);
  release(a);
  // Not reused on another stream while s1 may still use it.
  void *b = alloc(4096, s2);
  EXPECT_NE(a, b);
  EXPECT_EQ(backend->allocs, 2);
  // Reused on its own stream.
  void *c = alloc(4096, s1);
  EXPECT_EQ(a, c);
  EXPECT_EQ(backend->allocs, 2);
  release(b);
  release(c);
  // Once s1 is synchronized, its blocks are usable on s2 too.
  allocator->streamSynchronized(s1);
  void *s3 = reinterpret_cast<void *>(0x3000);
  void *d = alloc(MiB, s3);
  EXPECT_EQ(backend->allocs, 2);
  EXPECT_EQ(allocator->stats().cache_hits, 2u);
  release(d);
  // Freeing on another stream retags the block.
  void *e = alloc(4096, s1);
  ASSERT_TRUE(allocator->free(e, s2).ok());
  void *f = alloc(4096, s2);
  EXPECT_EQ(e, f);
  release(f);
}

TEST_F(AllocatorTest, EmptyCacheReturnsOnlyUnusedSegments) {
  void *a = alloc(1000);     // small segment 1
  void *b = alloc(5 * MiB);  // large segment
  void *c = alloc(16 * MiB); // large segment (16 MiB)
  release(b);
  release(c);
  EXPECT_EQ(allocator->stats().reserved_bytes, 2 * MiB + 20 * MiB + 16 * MiB);
  allocator->emptyCache();
  AllocatorStats stats = allocator->stats();
  EXPECT_EQ(stats.reserved_bytes, 2 * MiB);
  EXPECT_EQ(stats.device_frees, 2u);
  EXPECT_EQ(backend->frees, 2);
  release(a);
  allocator->emptyCache();
  EXPECT_EQ(allocator->stats().reserved_bytes, 0u);
}

TEST_F(AllocatorTest, OutOfMemoryAfterEmptyingTheCache) {
  allocator->setMemoryLimit(4 * MiB);
  void *a = alloc(MiB);
  release(a);                                          // 2 MiB cached
  StatusOr<void *> big = allocator->allocate(3 * MiB); // needs 20 MiB
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::OutOfMemory);
  const std::string &message = big.status().message();
  EXPECT_NE(message.find("3145728 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("allocated_bytes="), std::string::npos) << message;
  EXPECT_NE(message.find("reserved_bytes="), std::string::npos) << message;
  EXPECT_NE(message.find("memory limit"), std::string::npos) << message;
  // The cache was emptied before giving up.
  EXPECT_EQ(allocator->stats().reserved_bytes, 0u);
  EXPECT_EQ(backend->frees, 1);
  // Still usable.
  void *b = alloc(1000);
  EXPECT_NE(b, nullptr);
  release(b);
}

TEST_F(AllocatorTest, InjectedFailures) {
  // Two allocations succeed, the next two fail, then all succeed again.
  allocator->injectFailures(2, 2);
  void *a = alloc(100);
  void *b = alloc(100);
  for (int i = 0; i < 2; ++i) {
    StatusOr<void *> failed = allocator->allocate(300);
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.status().code(), StatusCode::OutOfMemory);
    EXPECT_NE(failed.status().message().find("300 bytes"), std::string::npos)
        << failed.status().message();
  }
  void *c = alloc(100);
  EXPECT_EQ(allocator->stats().num_allocs, 3u);
  release(a);
  release(b);
  release(c);
}

TEST_F(AllocatorTest, RetrySucceedsAfterEmptyingTheCache) {
  allocator->setMemoryLimit(4 * MiB);
  void *s1 = reinterpret_cast<void *>(0x1);
  void *s2 = reinterpret_cast<void *>(0x2);
  void *a = alloc(1000, s1);
  void *b = alloc(1000, s2);
  release(a);
  release(b);
  EXPECT_EQ(allocator->stats().reserved_bytes, 4 * MiB);
  // A third stream needs a new segment: over the limit, so the cache is
  // emptied and the retry succeeds.
  void *c = alloc(1000, reinterpret_cast<void *>(0x3));
  EXPECT_NE(c, nullptr);
  AllocatorStats stats = allocator->stats();
  EXPECT_EQ(stats.device_frees, 2u);
  EXPECT_EQ(stats.reserved_bytes, 2 * MiB);
  release(c);
}

TEST_F(AllocatorTest, BackendFailureNamesTheBackend) {
  backend->cap = 3 * MiB;
  void *a = alloc(1000);
  StatusOr<void *> b = allocator->allocate(2 * MiB);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::OutOfMemory);
  EXPECT_NE(b.status().message().find("counting backend is full"),
            std::string::npos);
  EXPECT_NE(b.status().message().find("test: out of memory allocating 2097152"),
            std::string::npos)
      << b.status().message();
  release(a);
}

TEST_F(AllocatorTest, FreeOfUnknownPointer) {
  int x;
  Status status = allocator->free(&x);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(status.message().find("unknown pointer"), std::string::npos);
  EXPECT_TRUE(allocator->free(nullptr).ok());
  void *a = alloc(10);
  release(a);
  EXPECT_EQ(allocator->free(a).code(), StatusCode::InvalidArgument); // double
}

TEST_F(AllocatorTest, ConcurrentUse) {
  constexpr int kThreads = 8, kIterations = 2000;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<std::pair<unsigned char *, size_t>> live;
      for (int i = 0; i < kIterations; ++i) {
        if (live.size() < 16 && (live.empty() || rng() % 2)) {
          size_t size = 1 + rng() % (rng() % 8 == 0 ? 3 * MiB : 8192);
          StatusOr<void *> ptr = allocator->allocate(size);
          if (!ptr.ok()) {
            ++failures;
            continue;
          }
          std::memset(*ptr, t, size);
          live.emplace_back(static_cast<unsigned char *>(*ptr), size);
        } else {
          size_t index = rng() % live.size();
          auto [ptr, size] = live[index];
          if (ptr[0] != t || ptr[size - 1] != t)
            ++failures;
          if (!allocator->free(ptr).ok())
            ++failures;
          live.erase(live.begin() + index);
        }
      }
      for (auto &[ptr, size] : live)
        if (!allocator->free(ptr).ok())
          ++failures;
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
  AllocatorStats stats = allocator->stats();
  EXPECT_EQ(stats.allocated_bytes, 0u);
  EXPECT_EQ(stats.num_allocs, stats.num_frees);
  allocator->emptyCache();
  EXPECT_EQ(allocator->stats().reserved_bytes, 0u);
  EXPECT_EQ(backend->allocs, backend->frees);
}
