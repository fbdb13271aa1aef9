//===- CompilerCAPITest.cpp - The C API of the compiler -------------------===//
//
// Part of the Jeet project.
//
// Every function of jeet-c/Compiler.h, its results and its errors: an MLP
// compiled and run on host tensors against a float64 reference, the cache
// counters, queries, NULL and destroyed handles, invalid graph text (the
// diagnostics with line and column), mismatched run arguments, a GPU graph on
// the recording fake driver, and compilation and runs from several threads.
//
//===----------------------------------------------------------------------===//

#include "jeet-c/Compiler.h"

#include "../Runtime/FakeCuda.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

// x[4x8] -> matmul + bias + relu -> matmul + bias -> softmax: two matmul
// kernels and the softmax.
const char *kMlp = R"mlir(
func.func @main(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>,
                %w2: tensor<16x3xf32>, %b2: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = jeet.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %1 = jeet.add %0, %b1 : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %2 = jeet.relu %1 : tensor<4x16xf32>
  %3 = jeet.matmul %2, %w2 : tensor<4x16xf32>, tensor<16x3xf32> -> tensor<4x3xf32>
  %4 = jeet.add %3, %b2 : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %5 = jeet.softmax %4 {axis = 1 : i64} : tensor<4x3xf32>
  return %5 : tensor<4x3xf32>
}
)mlir";
constexpr int64_t kRows = 4, kIn = 8, kHidden = 16, kOut = 3;

/// A matmul with a bias and relu: one kernel on the GPU.
const char *kDense = R"mlir(
func.func @main(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %0 = jeet.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %1 = jeet.add %0, %b : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
  %2 = jeet.relu %1 : tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}
)mlir";

/// Two matmuls: the first one's 1024x1024 result (4 MiB) is an intermediate
/// buffer, since a kernel never holds two matmuls.
const char *kTwoMatmuls = R"mlir(
func.func @main(%x: tensor<1024x4xf32>, %w: tensor<4x1024xf32>, %v: tensor<1024x4xf32>) -> tensor<1024x4xf32> {
  %0 = jeet.matmul %x, %w : tensor<1024x4xf32>, tensor<4x1024xf32> -> tensor<1024x1024xf32>
  %1 = jeet.matmul %0, %v : tensor<1024x1024xf32>, tensor<1024x4xf32> -> tensor<1024x4xf32>
  return %1 : tensor<1024x4xf32>
}
)mlir";

/// Takes a status: empty when NULL (success), else "CODE: message".
std::string take(jeet_status *status) {
  if (!status)
    return "";
  std::string text =
      std::string(jeet_status_code_name(jeet_status_get_code(status))) + ": " +
      jeet_status_get_message(status);
  jeet_status_destroy(status);
  return text;
}

#define EXPECT_OK(call) EXPECT_EQ(take(call), "")
#define ASSERT_OK(call) ASSERT_EQ(take(call), "")

/// Expects `status` to be an error of `code` whose message holds `fragment`.
void expectError(jeet_status *status, jeet_status_code code,
                 const std::string &fragment) {
  ASSERT_NE(status, nullptr) << "expected an error holding: " << fragment;
  EXPECT_EQ(jeet_status_get_code(status), code)
      << jeet_status_get_message(status);
  EXPECT_NE(std::string(jeet_status_get_message(status)).find(fragment),
            std::string::npos)
      << jeet_status_get_message(status);
  jeet_status_destroy(status);
}

std::vector<float> randomData(std::mt19937 &rng, size_t n) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> data(n);
  for (float &v : data)
    v = dist(rng);
  return data;
}

/// The MLP in float64.
std::vector<double> mlpReference(const std::vector<std::vector<float>> &in) {
  const auto &x = in[0], &w1 = in[1], &b1 = in[2], &w2 = in[3], &b2 = in[4];
  std::vector<double> out(kRows * kOut);
  for (int64_t r = 0; r < kRows; ++r) {
    std::vector<double> hidden(kHidden), logits(kOut);
    for (int64_t h = 0; h < kHidden; ++h) {
      double sum = b1[h];
      for (int64_t i = 0; i < kIn; ++i)
        sum += double(x[r * kIn + i]) * w1[i * kHidden + h];
      hidden[h] = std::max(sum, 0.0);
    }
    for (int64_t o = 0; o < kOut; ++o) {
      logits[o] = b2[o];
      for (int64_t h = 0; h < kHidden; ++h)
        logits[o] += hidden[h] * w2[h * kOut + o];
    }
    double top = *std::max_element(logits.begin(), logits.end()), total = 0;
    for (int64_t o = 0; o < kOut; ++o)
      total += std::exp(logits[o] - top);
    for (int64_t o = 0; o < kOut; ++o)
      out[r * kOut + o] = std::exp(logits[o] - top) / total;
  }
  return out;
}

/// The executable's inputs as host tensors of seeded random data, and its
/// outputs as zero-filled host tensors; released by the destructor.
struct HostTensors {
  HostTensors(const jeet_executable *exe, unsigned seed) {
    std::mt19937 rng(seed);
    size_t numInputs = 0, numOutputs = 0;
    EXPECT_OK(jeet_executable_get_num_inputs(exe, &numInputs));
    EXPECT_OK(jeet_executable_get_num_outputs(exe, &numOutputs));
    for (size_t i = 0; i < numInputs; ++i) {
      jeet_tensor_spec spec;
      EXPECT_OK(jeet_executable_get_input(exe, i, &spec));
      size_t n = 1;
      for (size_t d = 0; d < spec.rank; ++d)
        n *= spec.shape[d];
      data.push_back(randomData(rng, n));
      jeet_rt_tensor *t = nullptr;
      EXPECT_EQ(jeet_rt_tensor_from_host(
                    jeet_rt_host_device(), spec.shape, spec.rank, spec.dtype,
                    data.back().data(), n * sizeof(float), &t),
                JEET_RT_OK);
      inputs.push_back(t);
    }
    for (size_t i = 0; i < numOutputs; ++i) {
      jeet_tensor_spec spec;
      EXPECT_OK(jeet_executable_get_output(exe, i, &spec));
      jeet_rt_tensor *t = nullptr;
      EXPECT_EQ(jeet_rt_tensor_create(jeet_rt_host_device(), spec.shape,
                                      spec.rank, spec.dtype, &t),
                JEET_RT_OK);
      outputs.push_back(t);
    }
  }
  ~HostTensors() {
    for (jeet_rt_tensor *t : inputs)
      jeet_rt_tensor_release(t);
    for (jeet_rt_tensor *t : outputs)
      jeet_rt_tensor_release(t);
  }
  std::vector<float> output(size_t i) const {
    std::vector<float> values(jeet_rt_tensor_byte_size(outputs[i]) /
                              sizeof(float));
    EXPECT_EQ(jeet_rt_tensor_to_host(outputs[i], values.data(),
                                     values.size() * sizeof(float)),
              JEET_RT_OK);
    return values;
  }

  std::vector<std::vector<float>> data;
  std::vector<jeet_rt_tensor *> inputs, outputs;
};

/// The largest difference between the MLP's output and its reference.
double mlpError(const HostTensors &tensors) {
  std::vector<double> expected = mlpReference(tensors.data);
  std::vector<float> got = tensors.output(0);
  double error = 0;
  for (size_t i = 0; i < expected.size(); ++i)
    error = std::max(error, std::abs(got[i] - expected[i]));
  return error;
}
constexpr double kF32Tolerance = 1e-5;

/// Runs kTwoMatmuls on the fake driver's `device` with no memory left for its
/// intermediate: an execution error that names the memory, after which the
/// device works.
void expectOutOfMemory(jeet_rt_device *device,
                       const jeet_compile_options *options) {
  jeet_compiler *compiler = nullptr;
  ASSERT_OK(jeet_compiler_create(&compiler));
  jeet_executable *exe = nullptr;
  ASSERT_OK(
      jeet_compiler_compile(compiler, kTwoMatmuls, "wide.mlir", options, &exe));
  std::vector<jeet_rt_tensor *> tensors;
  for (size_t i = 0; i < 4; ++i) {
    jeet_tensor_spec spec;
    ASSERT_OK(i < 3 ? jeet_executable_get_input(exe, i, &spec)
                    : jeet_executable_get_output(exe, 0, &spec));
    jeet_rt_tensor *t = nullptr;
    ASSERT_EQ(
        jeet_rt_tensor_create(device, spec.shape, spec.rank, spec.dtype, &t),
        JEET_RT_OK);
    tensors.push_back(t);
  }
  jeet_rt_empty_cache(device);
  fake_cuda_set_mem_limit(fake_cuda_bytes_in_use());
  expectError(jeet_executable_run(exe, tensors.data(), 3, &tensors[3], 1),
              JEET_STATUS_EXECUTION_ERROR, "out of memory");
  fake_cuda_set_mem_limit(0);
  EXPECT_OK(jeet_executable_run(exe, tensors.data(), 3, &tensors[3], 1));
  for (jeet_rt_tensor *t : tensors)
    jeet_rt_tensor_release(t);
  EXPECT_OK(jeet_executable_destroy(exe));
  EXPECT_OK(jeet_compiler_destroy(compiler));
}

class CompilerCAPI : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_OK(jeet_compiler_create(&compiler)); }
  void TearDown() override { EXPECT_OK(jeet_compiler_destroy(compiler)); }

  jeet_executable *compile(const char *source,
                           const jeet_compile_options *options = nullptr) {
    jeet_executable *exe = nullptr;
    EXPECT_OK(
        jeet_compiler_compile(compiler, source, "graph.mlir", options, &exe));
    return exe;
  }

  jeet_compiler *compiler = nullptr;
};

TEST(CompilerCAPIVersion, LibraryAndHeadersAgree) {
  EXPECT_STREQ(jeet_version(), JEET_VERSION_STRING);
  std::string expected = std::to_string(JEET_VERSION_MAJOR) + "." +
                         std::to_string(JEET_VERSION_MINOR) + "." +
                         std::to_string(JEET_VERSION_PATCH);
  EXPECT_EQ(expected, JEET_VERSION_STRING);
  EXPECT_EQ(JEET_VERSION_NUMBER, JEET_VERSION_MAJOR * 10000 +
                                     JEET_VERSION_MINOR * 100 +
                                     JEET_VERSION_PATCH);
}

TEST(CompilerCAPIStatus, NullIsSuccessAndDestroyedStatusesAreReported) {
  EXPECT_EQ(jeet_status_get_code(nullptr), JEET_STATUS_OK);
  EXPECT_STREQ(jeet_status_get_message(nullptr), "");
  EXPECT_STREQ(jeet_status_code_name(JEET_STATUS_OK), "OK");
  EXPECT_STREQ(jeet_status_code_name(JEET_STATUS_INVALID_ARGUMENT),
               "INVALID_ARGUMENT");
  EXPECT_STREQ(jeet_status_code_name(JEET_STATUS_COMPILATION_ERROR),
               "COMPILATION_ERROR");
  EXPECT_STREQ(jeet_status_code_name(JEET_STATUS_EXECUTION_ERROR),
               "EXECUTION_ERROR");
  EXPECT_STREQ(jeet_status_code_name(static_cast<jeet_status_code>(99)),
               "UNKNOWN");

  jeet_status *status = jeet_compiler_create(nullptr);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(jeet_status_get_code(status), JEET_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(jeet_status_get_message(status),
               "jeet_compiler_create: the output pointer is NULL");
  jeet_status_destroy(status);
  // A destroyed status answers as an invalid argument; destroying it again
  // (or NULL) does nothing.
  EXPECT_EQ(jeet_status_get_code(status), JEET_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jeet_status_get_message(status)).find("not a live"),
            std::string::npos);
  jeet_status_destroy(status);
  jeet_status_destroy(nullptr);
}

TEST_F(CompilerCAPI, CompilesAndRunsAnMlpOnHostTensors) {
  jeet_executable *exe = compile(kMlp);
  ASSERT_NE(exe, nullptr);

  size_t numInputs = 0, numOutputs = 0;
  ASSERT_OK(jeet_executable_get_num_inputs(exe, &numInputs));
  ASSERT_OK(jeet_executable_get_num_outputs(exe, &numOutputs));
  EXPECT_EQ(numInputs, 5u);
  EXPECT_EQ(numOutputs, 1u);
  jeet_tensor_spec spec;
  ASSERT_OK(jeet_executable_get_input(exe, 1, &spec));
  ASSERT_EQ(spec.rank, 2u);
  EXPECT_EQ(spec.shape[0], kIn);
  EXPECT_EQ(spec.shape[1], kHidden);
  EXPECT_EQ(spec.dtype, JEET_RT_F32);
  ASSERT_OK(jeet_executable_get_output(exe, 0, &spec));
  ASSERT_EQ(spec.rank, 2u);
  EXPECT_EQ(spec.shape[0], kRows);
  EXPECT_EQ(spec.shape[1], kOut);
  const char *device = nullptr;
  ASSERT_OK(jeet_executable_get_device(exe, &device));
  EXPECT_STREQ(device, "cpu");

  HostTensors tensors(exe, /*seed=*/1);
  ASSERT_OK(jeet_executable_run(exe, tensors.inputs.data(), numInputs,
                                tensors.outputs.data(), numOutputs));
  EXPECT_LT(mlpError(tensors), kF32Tolerance);
  // Outputs are reused; new input data gives the new answer.
  HostTensors other(exe, /*seed=*/2);
  ASSERT_OK(jeet_executable_run(exe, other.inputs.data(), numInputs,
                                tensors.outputs.data(), numOutputs));
  other.data.swap(tensors.data);
  EXPECT_LT(mlpError(tensors), kF32Tolerance);
  EXPECT_OK(jeet_executable_destroy(exe));
}

TEST_F(CompilerCAPI, KernelsAndTheirOps) {
  jeet_executable *exe = compile(kMlp);
  ASSERT_NE(exe, nullptr);
  size_t numKernels = 0;
  ASSERT_OK(jeet_executable_get_num_kernels(exe, &numKernels));
  ASSERT_GE(numKernels, 3u);
  // The first kernel is the first matmul with its bias and relu epilogue.
  size_t numOps = 0;
  ASSERT_OK(jeet_executable_get_kernel_num_ops(exe, 0, &numOps));
  std::vector<std::string> ops;
  for (size_t i = 0; i < numOps; ++i) {
    const char *name = nullptr;
    ASSERT_OK(jeet_executable_get_kernel_op(exe, 0, i, &name));
    ops.push_back(name);
  }
  EXPECT_EQ(ops,
            (std::vector<std::string>{"jeet.matmul", "jeet.add", "jeet.relu"}));

  expectError(jeet_executable_get_kernel_num_ops(exe, numKernels, &numOps),
              JEET_STATUS_INVALID_ARGUMENT,
              "kernel #" + std::to_string(numKernels) + " does not exist");
  const char *name = nullptr;
  expectError(jeet_executable_get_kernel_op(exe, 0, numOps, &name),
              JEET_STATUS_INVALID_ARGUMENT,
              "jeet_executable_get_kernel_op: op #3 of kernel #0 does not "
              "exist (it fuses 3)");
  expectError(jeet_executable_get_kernel_op(exe, numKernels, 0, &name),
              JEET_STATUS_INVALID_ARGUMENT,
              "jeet_executable_get_kernel_op: kernel #");
  EXPECT_OK(jeet_executable_destroy(exe));
}

TEST_F(CompilerCAPI, OptionsSetFusionAndTheCap) {
  jeet_compile_options *options = nullptr;
  ASSERT_OK(jeet_compile_options_create(&options));
  jeet_executable *fused = compile(kMlp, options);
  ASSERT_OK(jeet_compile_options_set_fuse(options, 0));
  jeet_executable *unfused = compile(kMlp, options);
  ASSERT_OK(jeet_compile_options_set_fuse(options, 1));
  ASSERT_OK(jeet_compile_options_set_max_fusion_ops(options, 1));
  jeet_executable *capped = compile(kMlp, options);
  ASSERT_OK(jeet_compile_options_set_max_fusion_ops(options, 64));
  ASSERT_OK(jeet_compile_options_set_parallel(options, 0));
  ASSERT_OK(jeet_compile_options_set_entry(options, "main"));
  jeet_executable *serial = compile(kMlp, options);
  ASSERT_TRUE(fused && unfused && capped && serial);

  size_t kFused = 0, kUnfused = 0, kCapped = 0;
  ASSERT_OK(jeet_executable_get_num_kernels(fused, &kFused));
  ASSERT_OK(jeet_executable_get_num_kernels(unfused, &kUnfused));
  ASSERT_OK(jeet_executable_get_num_kernels(capped, &kCapped));
  EXPECT_LT(kFused, kUnfused);
  EXPECT_EQ(kCapped, kUnfused);
  for (jeet_executable *exe : {fused, unfused, capped, serial}) {
    HostTensors tensors(exe, /*seed=*/3);
    ASSERT_OK(jeet_executable_run(exe, tensors.inputs.data(), 5,
                                  tensors.outputs.data(), 1));
    EXPECT_LT(mlpError(tensors), kF32Tolerance);
    EXPECT_OK(jeet_executable_destroy(exe));
  }

  // An entry that the module does not define.
  ASSERT_OK(jeet_compile_options_set_entry(options, "forward"));
  jeet_executable *exe = nullptr;
  expectError(
      jeet_compiler_compile(compiler, kMlp, "graph.mlir", options, &exe),
      JEET_STATUS_COMPILATION_ERROR, "forward");
  EXPECT_EQ(exe, nullptr);
  EXPECT_OK(jeet_compile_options_destroy(options));
}

TEST_F(CompilerCAPI, OptionErrors) {
  jeet_compile_options *options = nullptr;
  expectError(jeet_compile_options_create(nullptr),
              JEET_STATUS_INVALID_ARGUMENT, "the output pointer is NULL");
  ASSERT_OK(jeet_compile_options_create(&options));
  expectError(jeet_compile_options_set_device(options, "tpu"),
              JEET_STATUS_INVALID_ARGUMENT,
              "jeet_compile_options_set_device: unknown device 'tpu' "
              "(expected cpu or gpu)");
  expectError(jeet_compile_options_set_device(options, nullptr),
              JEET_STATUS_INVALID_ARGUMENT, "device is NULL");
  expectError(jeet_compile_options_set_entry(options, ""),
              JEET_STATUS_INVALID_ARGUMENT, "entry is NULL or empty");
  expectError(jeet_compile_options_set_entry(options, nullptr),
              JEET_STATUS_INVALID_ARGUMENT, "entry is NULL or empty");
  expectError(jeet_compile_options_set_max_fusion_ops(options, 0),
              JEET_STATUS_INVALID_ARGUMENT,
              "the fusion cap must be at least 1, got 0");
  EXPECT_OK(jeet_compile_options_set_device(options, "gpu"));
  EXPECT_OK(jeet_compile_options_destroy(options));

  // Every function on a destroyed options handle, then on NULL.
  for (jeet_compile_options *bad : {options, (jeet_compile_options *)nullptr}) {
    std::string what =
        bad ? "options is not a live jeet_compile_options" : "options is NULL";
    expectError(jeet_compile_options_destroy(bad), JEET_STATUS_INVALID_ARGUMENT,
                what);
    expectError(jeet_compile_options_set_entry(bad, "main"),
                JEET_STATUS_INVALID_ARGUMENT, what);
    expectError(jeet_compile_options_set_device(bad, "cpu"),
                JEET_STATUS_INVALID_ARGUMENT, what);
    expectError(jeet_compile_options_set_fuse(bad, 1),
                JEET_STATUS_INVALID_ARGUMENT, what);
    expectError(jeet_compile_options_set_max_fusion_ops(bad, 4),
                JEET_STATUS_INVALID_ARGUMENT, what);
    expectError(jeet_compile_options_set_parallel(bad, 1),
                JEET_STATUS_INVALID_ARGUMENT, what);
    jeet_executable *exe = nullptr;
    if (bad)
      expectError(jeet_compiler_compile(compiler, kMlp, "g", bad, &exe),
                  JEET_STATUS_INVALID_ARGUMENT, what);
  }
}

TEST_F(CompilerCAPI, CacheCounters) {
  jeet_cache_stats stats;
  ASSERT_OK(jeet_compiler_get_cache_stats(compiler, &stats));
  EXPECT_EQ(stats.compilations, 0);
  EXPECT_EQ(stats.cache_hits, 0);
  EXPECT_EQ(stats.entries, 0);

  jeet_executable *first = nullptr, *second = nullptr;
  ASSERT_OK(jeet_compiler_compile_cached(compiler, kMlp, nullptr, &first));
  ASSERT_OK(jeet_compiler_compile_cached(compiler, kMlp, nullptr, &second));
  ASSERT_OK(jeet_compiler_get_cache_stats(compiler, &stats));
  EXPECT_EQ(stats.compilations, 1);
  EXPECT_EQ(stats.cache_hits, 1);
  EXPECT_EQ(stats.entries, 1);
  // Two handles of one executable: each is destroyed on its own.
  EXPECT_NE(first, second);
  EXPECT_OK(jeet_executable_destroy(first));
  HostTensors tensors(second, /*seed=*/4);
  ASSERT_OK(jeet_executable_run(second, tensors.inputs.data(), 5,
                                tensors.outputs.data(), 1));
  EXPECT_LT(mlpError(tensors), kF32Tolerance);
  EXPECT_OK(jeet_executable_destroy(second));

  // Uncached compilations count, but are not cached.
  jeet_executable *uncached = compile(kMlp);
  ASSERT_OK(jeet_compiler_get_cache_stats(compiler, &stats));
  EXPECT_EQ(stats.compilations, 2);
  EXPECT_EQ(stats.entries, 1);
  EXPECT_OK(jeet_executable_destroy(uncached));

  ASSERT_OK(jeet_compiler_clear_cache(compiler));
  ASSERT_OK(jeet_compiler_get_cache_stats(compiler, &stats));
  EXPECT_EQ(stats.entries, 0);
  expectError(jeet_compiler_get_cache_stats(compiler, nullptr),
              JEET_STATUS_INVALID_ARGUMENT, "the output pointer is NULL");
}

TEST_F(CompilerCAPI, InvalidTextGivesTheDiagnosticsWithLineAndColumn) {
  // Line 3, column 8: the add's operand shapes do not broadcast.
  const char *bad = "func.func @main(%a: tensor<4xf32>, %b: tensor<3xf32>) "
                    "-> tensor<4xf32> {\n"
                    "  // shapes that do not broadcast\n"
                    "  %0 = jeet.add %a, %b : tensor<4xf32>, tensor<3xf32> "
                    "-> tensor<4xf32>\n"
                    "  return %0 : tensor<4xf32>\n"
                    "}\n";
  jeet_executable *exe = nullptr;
  jeet_status *status =
      jeet_compiler_compile(compiler, bad, "bad.mlir", nullptr, &exe);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(jeet_status_get_code(status), JEET_STATUS_COMPILATION_ERROR);
  std::string message = jeet_status_get_message(status);
  EXPECT_NE(message.find("bad.mlir:3:8: error:"), std::string::npos) << message;
  EXPECT_NE(message.find("jeet.add"), std::string::npos) << message;
  jeet_status_destroy(status);
  EXPECT_EQ(exe, nullptr);

  // Text that does not parse, through the cache (named "<graph>").
  status = jeet_compiler_compile_cached(compiler, "func.func @main(\n  %x",
                                        nullptr, &exe);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(jeet_status_get_code(status), JEET_STATUS_COMPILATION_ERROR);
  EXPECT_NE(
      std::string(jeet_status_get_message(status)).find("<graph>:2:4: error:"),
      std::string::npos)
      << jeet_status_get_message(status);
  jeet_status_destroy(status);

  expectError(jeet_compiler_compile(compiler, nullptr, "x", nullptr, &exe),
              JEET_STATUS_INVALID_ARGUMENT,
              "jeet_compiler_compile: source is NULL");
  expectError(jeet_compiler_compile(compiler, kMlp, "x", nullptr, nullptr),
              JEET_STATUS_INVALID_ARGUMENT, "the output pointer is NULL");
}

TEST_F(CompilerCAPI, NullAndDestroyedHandles) {
  jeet_executable *exe = compile(kDense);
  ASSERT_NE(exe, nullptr);
  ASSERT_OK(jeet_executable_destroy(exe));
  jeet_compiler *dead = nullptr;
  ASSERT_OK(jeet_compiler_create(&dead));
  ASSERT_OK(jeet_compiler_destroy(dead));

  for (bool destroyed : {true, false}) {
    jeet_executable *e = destroyed ? exe : nullptr;
    jeet_compiler *c = destroyed ? dead : nullptr;
    std::string exeWhat = destroyed
                              ? "executable is not a live jeet_executable "
                                "(destroyed, or never created)"
                              : "executable is NULL";
    std::string compilerWhat =
        destroyed ? "compiler is not a live jeet_compiler" : "compiler is NULL";
    size_t n = 0;
    jeet_tensor_spec spec;
    const char *text = nullptr;
    jeet_cache_stats stats;
    jeet_executable *out = nullptr;
    for (jeet_status *status :
         {jeet_executable_destroy(e), jeet_executable_get_num_inputs(e, &n),
          jeet_executable_get_num_outputs(e, &n),
          jeet_executable_get_input(e, 0, &spec),
          jeet_executable_get_output(e, 0, &spec),
          jeet_executable_get_device(e, &text),
          jeet_executable_get_num_kernels(e, &n),
          jeet_executable_get_kernel_num_ops(e, 0, &n),
          jeet_executable_get_kernel_op(e, 0, 0, &text),
          jeet_executable_run(e, nullptr, 0, nullptr, 0)})
      expectError(status, JEET_STATUS_INVALID_ARGUMENT, exeWhat);
    for (jeet_status *status :
         {jeet_compiler_destroy(c),
          jeet_compiler_compile(c, kDense, "g", nullptr, &out),
          jeet_compiler_compile_cached(c, kDense, nullptr, &out),
          jeet_compiler_get_cache_stats(c, &stats),
          jeet_compiler_clear_cache(c)})
      expectError(status, JEET_STATUS_INVALID_ARGUMENT, compilerWhat);
  }

  // A handle of another kind is not taken for an executable.
  jeet_compile_options *options = nullptr;
  ASSERT_OK(jeet_compile_options_create(&options));
  size_t n = 0;
  expectError(jeet_executable_get_num_inputs(
                  reinterpret_cast<jeet_executable *>(options), &n),
              JEET_STATUS_INVALID_ARGUMENT, "not a live jeet_executable");
  EXPECT_OK(jeet_compile_options_destroy(options));
}

TEST_F(CompilerCAPI, QueryErrors) {
  jeet_executable *exe = compile(kDense);
  ASSERT_NE(exe, nullptr);
  jeet_tensor_spec spec;
  expectError(jeet_executable_get_input(exe, 3, &spec),
              JEET_STATUS_INVALID_ARGUMENT,
              "jeet_executable_get_input: input #3 does not exist (the graph "
              "has 3)");
  expectError(jeet_executable_get_output(exe, 1, &spec),
              JEET_STATUS_INVALID_ARGUMENT,
              "output #1 does not exist (the graph has 1)");
  for (jeet_status *status :
       {jeet_executable_get_num_inputs(exe, nullptr),
        jeet_executable_get_num_outputs(exe, nullptr),
        jeet_executable_get_input(exe, 0, nullptr),
        jeet_executable_get_output(exe, 0, nullptr),
        jeet_executable_get_device(exe, nullptr),
        jeet_executable_get_num_kernels(exe, nullptr),
        jeet_executable_get_kernel_num_ops(exe, 0, nullptr),
        jeet_executable_get_kernel_op(exe, 0, 0, nullptr)})
    expectError(status, JEET_STATUS_INVALID_ARGUMENT,
                "the output pointer is NULL");
  EXPECT_OK(jeet_executable_destroy(exe));
}

TEST_F(CompilerCAPI, RunArgumentErrors) {
  jeet_executable *exe = compile(kMlp);
  ASSERT_NE(exe, nullptr);
  HostTensors tensors(exe, /*seed=*/5);
  jeet_rt_tensor **in = tensors.inputs.data(), **out = tensors.outputs.data();

  expectError(jeet_executable_run(exe, in, 4, out, 1),
              JEET_STATUS_INVALID_ARGUMENT,
              "jeet_executable_run: the graph takes 5 inputs, given 4");
  expectError(jeet_executable_run(exe, in, 5, out, 0),
              JEET_STATUS_INVALID_ARGUMENT,
              "the graph takes 1 outputs, given 0");
  expectError(jeet_executable_run(exe, nullptr, 5, out, 1),
              JEET_STATUS_INVALID_ARGUMENT, "the input array is NULL");
  expectError(jeet_executable_run(exe, in, 5, nullptr, 1),
              JEET_STATUS_INVALID_ARGUMENT, "the output array is NULL");

  std::vector<jeet_rt_tensor *> swapped = tensors.inputs;
  std::swap(swapped[0], swapped[1]);
  expectError(jeet_executable_run(exe, swapped.data(), 5, out, 1),
              JEET_STATUS_INVALID_ARGUMENT,
              "input #0 is 8x16xf32 but the graph takes 4x8xf32");
  std::vector<jeet_rt_tensor *> withNull = tensors.inputs;
  withNull[2] = nullptr;
  expectError(jeet_executable_run(exe, withNull.data(), 5, out, 1),
              JEET_STATUS_INVALID_ARGUMENT, "input #2 is NULL");

  // The right shape in the wrong dtype.
  int64_t shape[2] = {kRows, kOut};
  jeet_rt_tensor *ints = nullptr;
  ASSERT_EQ(jeet_rt_tensor_create(jeet_rt_host_device(), shape, 2, JEET_RT_I32,
                                  &ints),
            JEET_RT_OK);
  expectError(jeet_executable_run(exe, in, 5, &ints, 1),
              JEET_STATUS_INVALID_ARGUMENT,
              "output #0 is 4x3xi32 but the graph takes 4x3xf32");
  jeet_rt_tensor_release(ints);

  // An output that is one of the inputs' buffers.
  jeet_executable *dense = compile(kDense);
  ASSERT_NE(dense, nullptr);
  HostTensors denseTensors(dense, /*seed=*/6);
  jeet_rt_tensor *alias = jeet_rt_tensor_retain(denseTensors.inputs[0]);
  expectError(
      jeet_executable_run(dense, denseTensors.inputs.data(), 3, &alias, 1),
      JEET_STATUS_INVALID_ARGUMENT,
      "output #0 shares its buffer with input #0");
  jeet_rt_tensor_release(alias);

  EXPECT_OK(jeet_executable_destroy(dense));
  EXPECT_OK(jeet_executable_destroy(exe));
}

TEST_F(CompilerCAPI, ExecutablesOutliveTheirCompiler) {
  jeet_compiler *other = nullptr;
  ASSERT_OK(jeet_compiler_create(&other));
  jeet_executable *exe = nullptr;
  ASSERT_OK(jeet_compiler_compile(other, kMlp, "mlp.mlir", nullptr, &exe));
  ASSERT_OK(jeet_compiler_destroy(other));
  HostTensors tensors(exe, /*seed=*/8);
  ASSERT_OK(jeet_executable_run(exe, tensors.inputs.data(), 5,
                                tensors.outputs.data(), 1));
  EXPECT_LT(mlpError(tensors), kF32Tolerance);
  EXPECT_OK(jeet_executable_destroy(exe));
}

TEST_F(CompilerCAPI, ThreadsShareACompilerAndAnExecutable) {
  constexpr int kThreads = 4, kRuns = 5;
  std::vector<std::string> failures(kThreads);
  std::vector<double> errors(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      jeet_executable *exe = nullptr;
      failures[t] =
          take(jeet_compiler_compile_cached(compiler, kMlp, nullptr, &exe));
      if (!failures[t].empty())
        return;
      for (int r = 0; r < kRuns && failures[t].empty(); ++r) {
        HostTensors tensors(exe, /*seed=*/100 * t + r);
        failures[t] = take(jeet_executable_run(exe, tensors.inputs.data(), 5,
                                               tensors.outputs.data(), 1));
        errors[t] = std::max(errors[t], mlpError(tensors));
      }
      failures[t] += take(jeet_executable_destroy(exe));
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], "") << "thread " << t;
    EXPECT_LT(errors[t], kF32Tolerance) << "thread " << t;
  }
  jeet_cache_stats stats;
  ASSERT_OK(jeet_compiler_get_cache_stats(compiler, &stats));
  EXPECT_EQ(stats.compilations + stats.cache_hits, kThreads);
  EXPECT_EQ(stats.entries, 1);
}

/// A GPU graph on the recording fake driver (which runs no kernel): device
/// tensors in and out, one launch per kernel, and the device checks.
TEST_F(CompilerCAPI, RunsOnCudaTensorsThroughTheDriver) {
  fake_cuda_reset();
  jeet_rt_set_cuda_driver_path(JEET_FAKE_CUDA_PATH);
  jeet_rt_device *cuda = jeet_rt_cuda_device(0);
  ASSERT_NE(cuda, nullptr);

  jeet_compile_options *options = nullptr;
  ASSERT_OK(jeet_compile_options_create(&options));
  ASSERT_OK(jeet_compile_options_set_device(options, "gpu"));
  jeet_executable *gpu = compile(kDense, options);
  ASSERT_NE(gpu, nullptr);
  const char *device = nullptr;
  ASSERT_OK(jeet_executable_get_device(gpu, &device));
  EXPECT_STREQ(device, "gpu");
  size_t numKernels = 0;
  ASSERT_OK(jeet_executable_get_num_kernels(gpu, &numKernels));
  EXPECT_EQ(numKernels, 1u);

  HostTensors host(gpu, /*seed=*/9);
  std::vector<jeet_rt_tensor *> inputs, outputs;
  for (jeet_rt_tensor *t : host.inputs) {
    jeet_rt_tensor *onDevice = nullptr;
    ASSERT_EQ(jeet_rt_tensor_to_device(t, cuda, &onDevice), JEET_RT_OK);
    inputs.push_back(onDevice);
  }
  jeet_rt_tensor *output = nullptr;
  ASSERT_EQ(jeet_rt_tensor_to_device(host.outputs[0], cuda, &output),
            JEET_RT_OK);
  outputs.push_back(output);

  fake_cuda_clear_log();
  ASSERT_OK(jeet_executable_run(gpu, inputs.data(), 3, outputs.data(), 1));
  EXPECT_EQ(fake_cuda_count_calls("cuLaunchKernel"), numKernels);
  // The run returns with the outputs written: a synchronisation follows the
  // last launch.
  std::vector<std::string> calls = fakeCudaCalls();
  auto lastLaunch = std::find_if(calls.rbegin(), calls.rend(), [](auto &c) {
    return c.rfind("cuLaunchKernel", 0) == 0;
  });
  auto lastSync = std::find_if(calls.rbegin(), calls.rend(), [](auto &c) {
    return c.find("Synchronize") != std::string::npos;
  });
  ASSERT_NE(lastSync, calls.rend()) << fake_cuda_log();
  EXPECT_LT(lastSync, lastLaunch) << fake_cuda_log();
  EXPECT_EQ(jeet_rt_current_device(), jeet_rt_host_device());

  // Host tensors for a GPU graph, device tensors for a CPU graph, and a mix.
  expectError(
      jeet_executable_run(gpu, host.inputs.data(), 3, outputs.data(), 1),
      JEET_STATUS_INVALID_ARGUMENT,
      "input #0 is on host but the graph was compiled for the gpu");
  jeet_executable *cpu = compile(kDense);
  ASSERT_NE(cpu, nullptr);
  expectError(
      jeet_executable_run(cpu, inputs.data(), 3, host.outputs.data(), 1),
      JEET_STATUS_INVALID_ARGUMENT,
      "input #0 is on cuda:0 but the graph was compiled for the cpu");
  // A failing launch is the run's error.
  fake_cuda_fail_next("cuLaunchKernel", /*CUDA_ERROR_LAUNCH_FAILED=*/719);
  expectError(jeet_executable_run(gpu, inputs.data(), 3, outputs.data(), 1),
              JEET_STATUS_EXECUTION_ERROR, "cuLaunchKernel");
  // So is a failing synchronisation.
  fake_cuda_fail_next("cuStreamSynchronize", /*CUDA_ERROR_LAUNCH_FAILED=*/719);
  jeet_status *status =
      jeet_executable_run(gpu, inputs.data(), 3, outputs.data(), 1);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(jeet_status_get_code(status), JEET_STATUS_EXECUTION_ERROR);
  EXPECT_NE(std::string(jeet_status_get_message(status))
                .find("CUDA_ERROR_LAUNCH_FAILED"),
            std::string::npos)
      << jeet_status_get_message(status);
  jeet_status_destroy(status);

  for (jeet_rt_tensor *t : inputs)
    jeet_rt_tensor_release(t);
  jeet_rt_tensor_release(output);
  // The driver has no memory left for the intermediate.
  expectOutOfMemory(cuda, options);
  EXPECT_OK(jeet_executable_destroy(cpu));
  EXPECT_OK(jeet_executable_destroy(gpu));
  EXPECT_OK(jeet_compile_options_destroy(options));
  jeet_rt_set_cuda_driver_path(nullptr);
}

} // namespace
