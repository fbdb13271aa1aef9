//===- CpuStreamingTest.cpp - Streaming elementwise kernels on the CPU ----===//
//
// Part of the Jeet project.
//
// Kernels on buffers of 16 MiB or more store their results non-temporally
// when the output is 64-byte aligned and plainly otherwise (a run-time check);
// both paths must give the same, correct values. The output buffer is
// supplied by the caller here, so the test can misalign it on purpose.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Compiler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

using namespace jeet;

namespace {

constexpr int64_t kRows = 1024, kCols = 4096; // 16 MiB of f32

const char *kGraph = R"mlir(
func.func @main(%a: tensor<1024x4096xf32>, %b: tensor<1024x4096xf32>,
                %c: tensor<4096xf32>) -> tensor<1024x4096xf32> {
  %0 = jeet.mul %a, %b : tensor<1024x4096xf32>, tensor<1024x4096xf32> -> tensor<1024x4096xf32>
  %1 = jeet.add %0, %c : tensor<1024x4096xf32>, tensor<4096xf32> -> tensor<1024x4096xf32>
  %2 = jeet.relu %1 : tensor<1024x4096xf32>
  return %2 : tensor<1024x4096xf32>
}
)mlir";

class CpuStreaming : public ::testing::Test {
protected:
  void SetUp() override {
    seed = std::random_device()();
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal;
    a.resize(kRows * kCols);
    b.resize(kRows * kCols);
    c.resize(kCols);
    for (float &x : a)
      x = normal(gen);
    for (float &x : b)
      x = normal(gen);
    for (float &x : c)
      x = normal(gen);
  }

  /// Runs the graph into `out` (kRows * kCols floats) and checks every value
  /// against a float64 reference.
  void runAndCheck(const Executable &exe, float *out) {
    std::vector<const void *> inputs = {a.data(), b.data(), c.data()};
    std::vector<void *> outputs = {out};
    llvm::Error error = exe.run(inputs, outputs);
    ASSERT_FALSE(static_cast<bool>(error)) << llvm::toString(std::move(error));
    int64_t wrong = 0;
    for (int64_t i = 0; i < kRows; ++i) {
      for (int64_t j = 0; j < kCols; ++j) {
        int64_t k = i * kCols + j;
        double expected =
            std::max(0.0, double(a[k]) * double(b[k]) + double(c[j]));
        // Written as "not within": a NaN (an element the kernel never
        // wrote) fails every comparison, so it must count as wrong.
        bool close =
            std::abs(out[k] - expected) <= 1e-6 * (1.0 + std::abs(expected));
        if (!close && wrong++ < 5)
          ADD_FAILURE() << "seed " << seed << ": out[" << i << "][" << j
                        << "] = " << out[k] << ", expected " << expected;
      }
    }
    EXPECT_EQ(wrong, 0) << "seed " << seed;
  }

  unsigned seed = 0;
  std::vector<float> a, b, c;
};

TEST_F(CpuStreaming, AlignedAndMisalignedOutputsAgreeWithTheReference) {
  CompileOptions options;
  options.keepIR = true;
  Compiler compiler;
  auto compiled = compiler.compile(kGraph, "streaming.mlir", options);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  const Executable &exe = **compiled;
  ASSERT_EQ(exe.numKernels(), 1);
  // The kernel has both loops: non-temporal stores and the plain fallback.
  std::string llvmIR = exe.ir("llvm");
  EXPECT_NE(llvmIR.find("nontemporal"), std::string::npos);
  EXPECT_NE(llvmIR.find("llvm.fence"), std::string::npos);
  EXPECT_NE(llvmIR.find("llvm.intr.prefetch"), std::string::npos);

  // 64-byte aligned: the non-temporal loop. Filled with NaN first, so a value
  // the kernel failed to write cannot pass.
  size_t bytes = kRows * kCols * sizeof(float);
  float *aligned = static_cast<float *>(std::aligned_alloc(64, bytes + 64));
  ASSERT_NE(aligned, nullptr);
  std::fill(aligned, aligned + kRows * kCols + 16, NAN);
  runAndCheck(exe, aligned);
  // 4 bytes off: the plain loop (a non-temporal store there would fault).
  std::fill(aligned, aligned + kRows * kCols + 16, NAN);
  runAndCheck(exe, aligned + 1);
  EXPECT_TRUE(std::isnan(aligned[0]));
  std::free(aligned);
}

} // namespace
