//===- ConcurrencyTest.cpp - One compiled graph from many threads ---------===//
//
// Part of the Jeet project.
//
// Executions of one compiled graph from 8 threads at once, and compilations
// racing on one cache key: every result right, every intermediate freed (the
// host allocator's statistics back to their start). make test-tsan runs this
// test under ThreadSanitizer. The kernels run single-threaded here
// (parallel=false): libomp is not instrumented, and the point is Jeet's own
// state (the compiler's cache, the runtime's allocator and error slots).
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Compiler.h"
#include "jeet/Runtime/Device.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

using namespace jeet;

namespace {

constexpr int kThreads = 8;
constexpr int kRunsPerThread = 100;
// Large enough that an execution takes a few hundred microseconds: those of
// different threads overlap, and one that used another's intermediates
// (its arena) would give a wrong result.
constexpr int64_t kM = 257, kK = 129, kN = 65;

// relu(x @ w + b), summed over rows: two kernels and an intermediate in the
// executable's arena (one per concurrent execution).
const char *kGraph = R"mlir(
func.func @main(%x: tensor<257x129xf32>, %w: tensor<129x65xf32>,
                %b: tensor<65xf32>) -> tensor<257xf32> {
  %0 = jeet.matmul %x, %w : tensor<257x129xf32>, tensor<129x65xf32> -> tensor<257x65xf32>
  %1 = jeet.add %0, %b : tensor<257x65xf32>, tensor<65xf32> -> tensor<257x65xf32>
  %2 = jeet.relu %1 : tensor<257x65xf32>
  %3 = jeet.reduce_sum %2 {axes = array<i64: 1>} : tensor<257x65xf32> -> tensor<257xf32>
  return %3 : tensor<257xf32>
}
)mlir";

/// Makes the threads start together: each waits until all are ready.
class StartLine {
public:
  void wait() {
    ++ready;
    while (ready.load() < kThreads)
      std::this_thread::yield();
  }

private:
  std::atomic<int> ready{0};
};

struct Inputs {
  std::vector<float> x, w, b;
  std::vector<double> expected;
};

Inputs makeInputs(unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  Inputs in;
  in.x.resize(kM * kK);
  in.w.resize(kK * kN);
  in.b.resize(kN);
  for (std::vector<float> *v : {&in.x, &in.w, &in.b})
    for (float &value : *v)
      value = normal(gen);
  in.expected.assign(kM, 0.0);
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t j = 0; j < kN; ++j) {
      double sum = in.b[j];
      for (int64_t k = 0; k < kK; ++k)
        sum += double(in.x[i * kK + k]) * in.w[k * kN + j];
      in.expected[i] += std::max(sum, 0.0);
    }
  return in;
}

/// The number of wrong elements of one execution (a NaN counts as wrong).
int64_t runAndCount(const Executable &exe, const Inputs &in,
                    std::string &error) {
  std::vector<float> out(kM, NAN);
  llvm::Error status =
      exe.run({in.x.data(), in.w.data(), in.b.data()}, {out.data()});
  if (status) {
    error = llvm::toString(std::move(status));
    return kM;
  }
  int64_t wrong = 0;
  for (int64_t i = 0; i < kM; ++i)
    if (!(std::abs(out[i] - in.expected[i]) <=
          1e-4 * (1.0 + std::abs(in.expected[i]))))
      ++wrong;
  return wrong;
}

CompileOptions options() {
  CompileOptions o;
  o.parallel = false;
  return o;
}

TEST(Concurrency, EightThreadsExecuteOneCachedGraph) {
  Compiler compiler;
  auto compiled = compiler.compileCached(kGraph, options());
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  std::shared_ptr<Executable> exe = std::move(*compiled);
  ASSERT_GE(exe->numKernels(), 2);

  runtime::CachingAllocator &allocator = runtime::getHostDevice().allocator();
  uint64_t allocatedBefore = allocator.stats().allocated_bytes;
  std::atomic<int64_t> wrong{0};
  StartLine start;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      Inputs in = makeInputs(1000 + t);
      start.wait();
      for (int r = 0; r < kRunsPerThread; ++r)
        wrong += runAndCount(*exe, in, errors[t]);
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong.load(), 0);
  for (const std::string &error : errors)
    EXPECT_EQ(error, "");
  // Every intermediate of every execution went back to the allocator: the
  // executable keeps a pool of arenas (one per concurrent execution) while it
  // lives; once it and the cache's copy are gone, nothing is left.
  exe.reset();
  compiler.clearCache();
  EXPECT_EQ(allocator.stats().allocated_bytes, allocatedBefore);
}

TEST(Concurrency, CompilationsRaceOnOneKey) {
  Compiler compiler;
  StartLine start;
  std::vector<std::shared_ptr<Executable>> executables(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      start.wait();
      auto compiled = compiler.compileCached(kGraph, options());
      if (compiled)
        executables[t] = *compiled;
      else
        errors[t] = llvm::toString(compiled.takeError());
    });
  for (std::thread &thread : threads)
    thread.join();
  Inputs in = makeInputs(7);
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(errors[t], "");
    ASSERT_NE(executables[t], nullptr);
    std::string error;
    EXPECT_EQ(runAndCount(*executables[t], in, error), 0) << error;
  }
  Compiler::CacheStats stats = compiler.cacheStats();
  EXPECT_EQ(stats.entries, 1);
  EXPECT_EQ(stats.compilations + stats.cacheHits, kThreads);
}

} // namespace
