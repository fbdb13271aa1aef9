//===- DiskCacheTest.cpp - The disk cache's settings ----------------------===//
//
// Part of the Jeet project.
//
// What the persistent compiled-graph cache reads from the environment; its
// behaviour across processes is tested in test/python/test_disk_cache.py.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Compiler/DiskCache.h"

#include <gtest/gtest.h>

// JEET_CACHE_MAX_BYTES's sizes: bytes, or KiB/MiB/GiB with a K, M or G
// (either case) after the number; anything else is no size (the cache then
// says so and keeps its default).
TEST(DiskCacheSize, Parsed) {
  using jeet::detail::parseByteSize;
  EXPECT_EQ(parseByteSize("0"), uint64_t(0));
  EXPECT_EQ(parseByteSize("4096"), uint64_t(4096));
  EXPECT_EQ(parseByteSize("64K"), uint64_t(64) << 10);
  EXPECT_EQ(parseByteSize("512m"), uint64_t(512) << 20);
  EXPECT_EQ(parseByteSize(" 2G "), uint64_t(2) << 30);
  for (const char *bad : {"", "G", "lots", "-5", "1.5G", "12X", "2GB", "+7",
                          "99999999999999999999", "17179869184G"})
    EXPECT_EQ(parseByteSize(bad), std::nullopt) << bad;
}
