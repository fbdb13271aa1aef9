//===- EmulatorKernelTest.cpp - Kernels on the emulator: results, bugs ----===//
//
// Correct kernels (barriers, shuffles, shared memory, a tiled matmul) give
// the right results against a float64 reference; kernels with planted bugs
// are reported with kernel, block, thread and address, never hang, and leave
// the device usable.
//
//===----------------------------------------------------------------------===//

#include "EmulatorFixture.h"

#include <cmath>
#include <cstdio>

using namespace jeet::testing;

namespace {
std::string hex(const void *ptr) {
  char text[32];
  std::snprintf(
      text, sizeof(text), "0x%llx",
      static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(ptr)));
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// Correct kernels
//===----------------------------------------------------------------------===//

TEST_F(EmulatorTest, TransposeThroughSharedMemory) {
  // Neither side a multiple of the 32x32 tile.
  const int64_t rows = 100, cols = 77;
  std::vector<float> input = randomFloats(rng, rows * cols);
  void *in = upload(input);
  void *out = allocate(rows * cols * sizeof(float));
  int64_t r = rows, c = cols;
  Status status =
      run("Good", "transpose", {(cols + 31) / 32, (rows + 31) / 32, 1},
          {32, 8, 1}, {&in, &out, &r, &c});
  ASSERT_TRUE(status.ok()) << status.toString();
  std::vector<float> result = download<float>(out, rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      ASSERT_EQ(result[j * rows + i], input[i * cols + j]) << i << "," << j;
  release(in);
  release(out);
}

TEST_F(EmulatorTest, RowSumWithShufflesAndABarrier) {
  // Rows longer than the block, not a multiple of it; all-negative rows too.
  const int64_t rows = 37, cols = 1000;
  std::vector<float> input = randomFloats(rng, rows * cols, -2.0f, 1.0f);
  for (int64_t j = 0; j < cols; ++j)
    input[5 * cols + j] = -std::fabs(input[5 * cols + j]) - 0.5f;
  void *in = upload(input);
  void *out = allocate(rows * sizeof(float));
  int64_t r = rows, c = cols;
  Status status = run("Good", "row_sum", {static_cast<unsigned>(rows), 1, 1},
                      {256, 1, 1}, {&in, &out, &r, &c});
  ASSERT_TRUE(status.ok()) << status.toString();
  std::vector<float> result = download<float>(out, rows);
  for (int64_t i = 0; i < rows; ++i) {
    double expected = 0, magnitude = 0;
    for (int64_t j = 0; j < cols; ++j) {
      expected += input[i * cols + j];
      magnitude += std::fabs(input[i * cols + j]);
    }
    EXPECT_NEAR(result[i], expected, 1e-6 * magnitude + 1e-6) << "row " << i;
  }
  release(in);
  release(out);
}

TEST_F(EmulatorTest, ShuffleModesFollowGpuShuffle) {
  // Two warps; each lane offers 1000 * warp + lane. gpu.shuffle: the first
  // `width` lanes take part, a partner outside [0, width) is invalid and the
  // lane keeps its own value.
  const int threads = 64;
  struct Case {
    int32_t offset, width;
  };
  for (Case test : {Case{1, 32}, Case{5, 32}, Case{16, 32}, Case{31, 32},
                    Case{3, 16}, Case{7, 8}, Case{0, 32}}) {
    SCOPED_TRACE("offset " + std::to_string(test.offset) + ", width " +
                 std::to_string(test.width));
    void *out = allocate(4 * threads * 2 * sizeof(int32_t));
    int32_t offset = test.offset, width = test.width;
    Status status =
        run("Good", "shuffle_modes", {1, 1, 1},
            {static_cast<unsigned>(threads), 1, 1}, {&out, &offset, &width});
    ASSERT_TRUE(status.ok()) << status.toString();
    std::vector<int32_t> result = download<int32_t>(out, 4 * threads * 2);
    for (int mode = 0; mode < 4; ++mode)
      for (int t = 0; t < threads; ++t) {
        int lane = t % 32, warp = t / 32;
        int source = mode == 0   ? lane ^ offset
                     : mode == 1 ? lane + offset
                     : mode == 2 ? lane - offset
                                 : offset;
        bool valid = lane < width && source >= 0 && source < width;
        int32_t expected = 1000 * warp + (valid ? source : lane);
        ASSERT_EQ(result[(mode * threads + t) * 2], expected)
            << "mode " << mode << ", thread " << t;
        ASSERT_EQ(result[(mode * threads + t) * 2 + 1], valid ? 1 : 0)
            << "mode " << mode << ", thread " << t;
      }
    release(out);
  }
}

TEST_F(EmulatorTest, TiledMatmulMatchesFloat64) {
  // K spans several 16-deep tiles; no size is a multiple of a tile.
  const int64_t M = 130, N = 70, K = 100;
  std::vector<float> a = randomFloats(rng, M * K), b = randomFloats(rng, K * N);
  void *A = upload(a), *B = upload(b);
  void *C = allocate(M * N * sizeof(float));
  int64_t m = M, n = N, k = K;
  JeetEmulatorStats before = knobs->stats();
  Status status =
      run("Matmul", "matmul_tiled", {(N + 63) / 64, (M + 63) / 64, 1},
          {256, 1, 1}, {&A, &B, &C, &m, &n, &k});
  ASSERT_TRUE(status.ok()) << status.toString();
  JeetEmulatorStats after = knobs->stats();
  std::vector<float> c = download<float>(C, M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double expected = 0, magnitude = 0;
      for (int64_t p = 0; p < K; ++p) {
        expected += double(a[i * K + p]) * b[p * N + j];
        magnitude += std::fabs(double(a[i * K + p]) * b[p * N + j]);
      }
      ASSERT_NEAR(c[i * N + j], expected, 1e-6 * magnitude + 1e-6)
          << i << "," << j;
    }
  // Every access went through the checks: 8 blocks of 256 threads, 7 K
  // tiles, two barriers each.
  EXPECT_EQ(after.blocks - before.blocks, 3u * 2u);
  EXPECT_EQ(after.barriers - before.barriers, 3u * 2u * 7u * 2u);
  EXPECT_GE(after.sharedChecks - before.sharedChecks,
            6u * 256u * 7u * 8u * 16u);
  EXPECT_GT(after.globalChecks - before.globalChecks, uint64_t(M * N));
  release(A);
  release(B);
  release(C);
}

TEST_F(EmulatorTest, AlignedVectorLoads) {
  const int64_t n = 333;
  std::vector<float> input = randomFloats(rng, 4 * n);
  void *in = upload(input);
  void *out = allocate(n * sizeof(float));
  int64_t count = n;
  Status status = run("Good", "sum4", {(n + 127) / 128, 1, 1}, {128, 1, 1},
                      {&in, &out, &count});
  ASSERT_TRUE(status.ok()) << status.toString();
  std::vector<float> result = download<float>(out, n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_FLOAT_EQ(result[i],
                    ((input[4 * i] + input[4 * i + 1]) + input[4 * i + 2]) +
                        input[4 * i + 3]);
  release(in);
  release(out);
}

TEST_F(EmulatorTest, BytesOfOneWordFromDifferentThreads) {
  // Race detection is exact per byte: threads writing neighbouring bytes of
  // a word, or one thread writing the whole word, do not race.
  const int threads = 256;
  void *out = allocate(threads * sizeof(int32_t));
  Status status = run("Good", "bytes_interleaved", {1, 1, 1},
                      {static_cast<unsigned>(threads), 1, 1}, {&out});
  ASSERT_TRUE(status.ok()) << status.toString();
  std::vector<int32_t> result = download<int32_t>(out, threads);
  for (int t = 0; t < threads; ++t)
    ASSERT_EQ(result[t], (t + 1) % threads + 256 * ((t * 3) & 0xff)) << t;
  release(out);
}

//===----------------------------------------------------------------------===//
// Planted bugs
//===----------------------------------------------------------------------===//

TEST_F(EmulatorTest, MissingBarrierIsReportedAsARace) {
  std::vector<float> input = randomFloats(rng, 2 * 256);
  void *in = upload(input);
  void *out = allocate(2 * sizeof(float));
  Status status =
      run("Bugs", "race_missing_barrier", {2, 1, 1}, {256, 1, 1}, {&in, &out});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::DriverError);
  // Thread 0 ran its whole loop first (reading partial[1] at the last step);
  // thread 1 then writes partial[1] in the same barrier interval.
  EXPECT_TRUE(containsAll(
      status.message(), {"cuStreamSynchronize failed: CUDA_ERROR_LAUNCH_FAILED",
                         "Jeet GPU emulator: shared memory race in kernel "
                         "'race_missing_barrier', block (0,0,0)",
                         "thread (1,0,0) writes 4 bytes at shared offset 4",
                         "store sum at Bugs.c:",
                         "thread (0,0,0) read that byte since the last "
                         "barrier, at load other at Bugs.c:"}));
  release(in);
  release(out);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, RaceOnOneByteOfAWordIsReported) {
  void *out = allocate(256 * sizeof(int32_t));
  Status status = run("Bugs", "byte_race", {1, 1, 1}, {256, 1, 1}, {&out});
  ASSERT_FALSE(status.ok());
  // Thread 0 wrote byte 0 and read byte 1; thread 1 then writes byte 1.
  EXPECT_TRUE(containsAll(
      status.message(),
      {"shared memory race in kernel 'byte_race', block (0,0,0)",
       "thread (1,0,0) writes 1 bytes at shared offset 1",
       "thread (0,0,0) read that byte since the last barrier, at load "
       "neighbour at Bugs.c:"}));
  release(out);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, OffByOneIsReportedWithTheNearestAllocation) {
  const int64_t n = 1000; // 4000 bytes: the allocator's block is 4096
  std::vector<float> input = randomFloats(rng, n);
  void *in = upload(input);
  void *out = allocate(n * sizeof(float));
  int64_t count = n;
  Status status = run("Bugs", "oob_off_by_one", {(n + 256) / 256, 1, 1},
                      {256, 1, 1}, {&in, &out, &count});
  ASSERT_FALSE(status.ok());
  // Element 1000 is thread 232 of block 3.
  EXPECT_TRUE(containsAll(
      status.message(),
      {"CUDA_ERROR_ILLEGAL_ADDRESS",
       "invalid global read of 4 bytes at " +
           hex(static_cast<char *>(in) + 4 * n) + " (out of bounds)",
       "in kernel 'oob_off_by_one', block (3,0,0), thread (232,0,0)",
       "at memref.load in at Bugs.c:",
       "nearest allocation: 4000 bytes at " + hex(in) +
           ", the access starts 0 bytes past its end"}));
  release(in);
  release(out);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, DivergentBarrierIsReportedNotHung) {
  const int64_t n = 200; // threads 200..255 return before the barrier
  std::vector<float> input = randomFloats(rng, 256);
  void *in = upload(input);
  void *out = allocate(256 * sizeof(float));
  int64_t count = n;
  Status status = run("Bugs", "divergent_barrier", {1, 1, 1}, {256, 1, 1},
                      {&in, &out, &count});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(containsAll(
      status.message(),
      {"CUDA_ERROR_LAUNCH_FAILED",
       "divergent barrier in kernel 'divergent_barrier', block (0,0,0)",
       "thread (0,0,0) waits at gpu.barrier after the early return at Bugs.c:",
       "thread (200,0,0) has returned"}));
  release(in);
  release(out);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, ThreadsAtDifferentBarriersAreReported) {
  void *unused = nullptr;
  Status status =
      run("Bugs", "barrier_mismatch", {1, 1, 1}, {64, 1, 1}, {&unused});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(containsAll(status.message(),
                          {"divergent barrier in kernel 'barrier_mismatch'",
                           "thread (0,0,0) waits at gpu.barrier (even)",
                           "thread (1,0,0) waits at gpu.barrier (odd)"}));
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, DivergentShuffleIsReported) {
  void *out = allocate(64 * sizeof(float));
  Status status =
      run("Bugs", "divergent_shuffle", {1, 1, 1}, {64, 1, 1}, {&out});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(containsAll(status.message(),
                          {"divergent shuffle in kernel 'divergent_shuffle'",
                           "thread (0,0,0) (lane 0 of warp 0) is at a shuffle",
                           "thread (16,0,0) of the same warp has returned"}));
  release(out);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, UseAfterFreeOfATensorIsReported) {
  const int64_t n = 1000;
  void *out = allocate(n * sizeof(float));
  void *in = upload(randomFloats(rng, n));
  release(in); // the block goes back to the allocator's cache
  float factor = 2.0f;
  int64_t count = n;
  Status status = run("Good", "scale", {(n + 255) / 256, 1, 1}, {256, 1, 1},
                      {&in, &out, &factor, &count});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(containsAll(
      status.message(),
      {"CUDA_ERROR_ILLEGAL_ADDRESS",
       "invalid global read of 4 bytes at " + hex(in) + " (use after free)",
       "in kernel 'scale', block (0,0,0), thread (0,0,0)",
       "freed allocation: 4000 bytes at " + hex(in) +
           ", the access is at offset 0"}));
  release(out);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, UseAfterFreeOfDriverMemoryIsReported) {
  // 24 MiB: a segment of its own, returned to the driver by emptyCache.
  const int64_t n = 6 << 20;
  void *out = allocate(n * sizeof(float));
  void *in = allocate(n * sizeof(float));
  release(in);
  device->allocator().emptyCache();
  float factor = 2.0f;
  int64_t count = n;
  Status status = run("Good", "scale", {(n + 255) / 256, 1, 1}, {256, 1, 1},
                      {&in, &out, &factor, &count});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(containsAll(
      status.message(),
      {"invalid global read of 4 bytes at " + hex(in) + " (use after free)",
       "freed allocation: "}));
  release(out);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, MisalignedVectorAccessIsReported) {
  void *in = upload(randomFloats(rng, 4 * 64 + 4));
  void *out = allocate(64 * sizeof(float));
  Status status =
      run("Bugs", "misaligned_vector", {1, 1, 1}, {64, 1, 1}, {&in, &out});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(containsAll(
      status.message(),
      {"CUDA_ERROR_MISALIGNED_ADDRESS",
       "invalid global read of 16 bytes at " +
           hex(static_cast<char *>(in) + 4) + " (misaligned)",
       "at vector.load in at Bugs.c:",
       "the access assumes 16-byte alignment; the address is 4 bytes past a "
       "multiple"}));
  release(in);
  release(out);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, SharedOutOfBoundsIsReported) {
  void *out = allocate(256 * sizeof(float));
  Status status = run("Bugs", "shared_oob", {1, 1, 1}, {256, 1, 1}, {&out});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(containsAll(
      status.message(),
      {"CUDA_ERROR_ILLEGAL_ADDRESS",
       "invalid shared write of 4 bytes at offset 1024 of the block's shared "
       "memory (out of bounds)",
       "thread (255,0,0)", "the block has 1024 bytes of shared memory"}));
  release(out);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, ChecksCanBeTurnedOff) {
  // With the checks off the off-by-one reads the allocator's padding
  // unnoticed, as a GPU would.
  int checks = knobs->checks();
  knobs->setChecks(0);
  const int64_t n = 1000;
  void *in = upload(randomFloats(rng, n));
  void *out = allocate(n * sizeof(float));
  int64_t count = n;
  Status status = run("Bugs", "oob_off_by_one", {(n + 256) / 256, 1, 1},
                      {256, 1, 1}, {&in, &out, &count});
  knobs->setChecks(checks);
  EXPECT_TRUE(status.ok()) << status.toString();
  release(in);
  release(out);
}
