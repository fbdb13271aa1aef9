//===- CacheTest.cpp - LRU cache tests ------------------------------------===//

#include "jeet/Runtime/Cache.h"

#include "gtest/gtest.h"

#include <atomic>
#include <thread>
#include <vector>

using namespace jeet::runtime;

TEST(LRUCache, LookupInsertAndStats) {
  LRUCache<int> cache(2);
  EXPECT_EQ(cache.lookup("a"), nullptr);
  cache.insert("a", std::make_shared<int>(1));
  ASSERT_NE(cache.lookup("a"), nullptr);
  EXPECT_EQ(*cache.lookup("a"), 1);
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.evictions, 0u);
  EXPECT_EQ(stats.size, 1u);
  EXPECT_EQ(stats.capacity, 2u);
  cache.resetStats();
  EXPECT_EQ(cache.stats().hits, 0u);
}

TEST(LRUCache, EvictsLeastRecentlyUsed) {
  LRUCache<int> cache(2);
  cache.insert("a", std::make_shared<int>(1));
  cache.insert("b", std::make_shared<int>(2));
  cache.lookup("a"); // b is now the least recently used
  cache.insert("c", std::make_shared<int>(3));
  EXPECT_TRUE(cache.contains("a"));
  EXPECT_FALSE(cache.contains("b"));
  EXPECT_TRUE(cache.contains("c"));
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(LRUCache, ReplaceKeepsSize) {
  LRUCache<int> cache(2);
  cache.insert("a", std::make_shared<int>(1));
  cache.insert("a", std::make_shared<int>(5));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(*cache.lookup("a"), 5);
}

TEST(LRUCache, EvictedValueLivesWhileHeld) {
  LRUCache<int> cache(1);
  cache.insert("a", std::make_shared<int>(1));
  std::shared_ptr<int> held = cache.lookup("a");
  cache.insert("b", std::make_shared<int>(2));
  EXPECT_FALSE(cache.contains("a"));
  EXPECT_EQ(*held, 1);
}

TEST(LRUCache, GetOrCreateCreatesOnce) {
  LRUCache<int> cache(4);
  int calls = 0;
  auto create = [&]() -> StatusOr<std::shared_ptr<int>> {
    ++calls;
    return std::make_shared<int>(42);
  };
  StatusOr<std::shared_ptr<int>> first = cache.getOrCreate("k", create);
  StatusOr<std::shared_ptr<int>> second = cache.getOrCreate("k", create);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(first->get(), second->get());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.stats().misses, 1u);
}

TEST(LRUCache, GetOrCreateErrorIsNotCached) {
  LRUCache<int> cache(4);
  StatusOr<std::shared_ptr<int>> result =
      cache.getOrCreate("k", []() -> StatusOr<std::shared_ptr<int>> {
        return invalidArgument("compile failed");
      });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "compile failed");
  EXPECT_FALSE(cache.contains("k"));
}

TEST(LRUCache, CapacityChangesAndClear) {
  LRUCache<int> cache(3);
  for (int i = 0; i < 3; ++i)
    cache.insert(std::to_string(i), std::make_shared<int>(i));
  cache.setCapacity(1);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_TRUE(cache.contains("2"));
  EXPECT_EQ(cache.stats().evictions, 2u);
  EXPECT_TRUE(cache.erase("2"));
  EXPECT_FALSE(cache.erase("2"));
  cache.insert("x", std::make_shared<int>(1));
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
  LRUCache<int> none(0);
  none.insert("a", std::make_shared<int>(1));
  EXPECT_EQ(none.size(), 0u);
}

TEST(LRUCache, ConcurrentGetOrCreate) {
  LRUCache<int> cache(8);
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        std::string key = std::to_string((i + t) % 16);
        StatusOr<std::shared_ptr<int>> value =
            cache.getOrCreate(key, [&]() -> StatusOr<std::shared_ptr<int>> {
              return std::make_shared<int>(std::stoi(key));
            });
        if (!value.ok() || **value != std::stoi(key))
          ++errors;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(errors, 0);
  EXPECT_LE(cache.size(), 8u);
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits + stats.misses, 8000u);
}
