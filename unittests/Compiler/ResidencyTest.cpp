//===- ResidencyTest.cpp - Tensors stay on the device ---------------------===//
//
// Part of the Jeet project.
//
// A compiled GPU graph executed many times on resident inputs, through the
// runtime and the recording fake driver (which runs no kernel): after the
// first execution nothing is copied, allocated from the driver or waited
// for until a result is read, and each execution is one CUDA-graph launch
// (one launch per kernel with graphs off). Then what goes wrong: work that
// fails asynchronously, a closed device, tensors of the wrong device; and
// on the CPU, executions from several threads at once, each with an arena
// of its own.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Compiler.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Tensor.h"

#include "../Runtime/FakeCuda.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>

using namespace jeet;

namespace {

constexpr int64_t kElements = 1024;
constexpr int kExecutions = 100;
constexpr int kKernels = 10;

/// Ten elementwise ops: ten kernels when compiled unfused.
const char *kChain = R"mlir(
func.func @main(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = jeet.add %a, %b : tensor<1024xf32>, tensor<1024xf32> -> tensor<1024xf32>
  %1 = jeet.mul %0, %b : tensor<1024xf32>, tensor<1024xf32> -> tensor<1024xf32>
  %2 = jeet.sub %1, %a : tensor<1024xf32>, tensor<1024xf32> -> tensor<1024xf32>
  %3 = jeet.exp %2 : tensor<1024xf32>
  %4 = jeet.add %3, %b : tensor<1024xf32>, tensor<1024xf32> -> tensor<1024xf32>
  %5 = jeet.tanh %4 : tensor<1024xf32>
  %6 = jeet.max %5, %a : tensor<1024xf32>, tensor<1024xf32> -> tensor<1024xf32>
  %7 = jeet.relu %6 : tensor<1024xf32>
  %8 = jeet.sqrt %7 : tensor<1024xf32>
  %9 = jeet.neg %8 : tensor<1024xf32>
  return %9 : tensor<1024xf32>
}
)mlir";

/// The execution statistics from `before` to now.
runtime::ExecutionStats since(runtime::Device &device,
                              const runtime::ExecutionStats &before) {
  runtime::ExecutionStats now = device.executionStats();
  now.kernels_launched -= before.kernels_launched;
  now.graph_launches -= before.graph_launches;
  now.h2d_bytes -= before.h2d_bytes;
  now.d2h_bytes -= before.d2h_bytes;
  now.synchronizations -= before.synchronizations;
  return now;
}

class Residency : public ::testing::Test {
protected:
  void SetUp() override {
    // Setting the options closes the previous test's device first: its
    // streams and memory must go while the fake driver still knows them.
    runtime::CudaOptions options;
    options.driverPath = JEET_FAKE_CUDA_PATH;
    runtime::setCudaOptions(options);
    fake_cuda_reset();
    auto cuda = runtime::getCudaDevice();
    ASSERT_TRUE(cuda.ok()) << cuda.status().toString();
    device = *cuda;
    runtime::setCurrentDevice(device);
  }
  void TearDown() override { runtime::setCurrentDevice(nullptr); }

  std::shared_ptr<Executable> compile(bool cudaGraphs) {
    CompileOptions options;
    options.device = "gpu";
    options.fuse = false;
    options.cudaGraphs = cudaGraphs;
    auto compiled = compiler.compile(kChain, "chain.mlir", options);
    EXPECT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    return compiled ? std::move(*compiled) : nullptr;
  }

  /// Two resident inputs (one upload each).
  std::vector<runtime::Tensor> inputs() {
    std::vector<float> values(kElements, 0.5f);
    std::vector<runtime::Tensor> tensors;
    for (int i = 0; i < 2; ++i) {
      auto t = runtime::Tensor::fromHost(*device, {kElements},
                                         runtime::DType::F32, values.data(),
                                         values.size() * sizeof(float));
      EXPECT_TRUE(t.ok()) << t.status().toString();
      tensors.push_back(std::move(*t));
    }
    return tensors;
  }

  /// Executes `executable` `kExecutions` times as a frontend does (a new
  /// result each time, the last one kept); returns the last result and the
  /// statistics of every execution after the first.
  runtime::Tensor executeMany(const Executable &executable,
                              const std::vector<runtime::Tensor> &in,
                              runtime::ExecutionStats &stats) {
    auto first = executable.run(in);
    EXPECT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
    runtime::Tensor result = (*first)[0];
    fake_cuda_clear_log();
    runtime::ExecutionStats before = device->executionStats();
    mallocsBefore = device->allocator().stats().device_mallocs;
    allocsBefore = device->allocator().stats().num_allocs;
    for (int i = 1; i < kExecutions; ++i) {
      auto outputs = executable.run(in);
      EXPECT_TRUE(static_cast<bool>(outputs))
          << llvm::toString(outputs.takeError());
      result = (*outputs)[0];
    }
    stats = since(*device, before);
    return result;
  }

  Compiler compiler;
  runtime::CudaDevice *device = nullptr;
  uint64_t mallocsBefore = 0;
  uint64_t allocsBefore = 0;
};

TEST_F(Residency, CachedGraphReplaysOnResidentInputs) {
  std::shared_ptr<Executable> executable = compile(/*cudaGraphs=*/true);
  ASSERT_TRUE(executable);
  ASSERT_EQ(executable->numKernels(), kKernels);
  std::vector<runtime::Tensor> in = inputs();
  runtime::ExecutionStats stats;
  runtime::Tensor result = executeMany(*executable, in, stats);

  // After the first execution: no copy, no driver allocation, no wait, one
  // graph launch per execution and no kernel launched by itself.
  EXPECT_EQ(stats.h2d_bytes, 0u);
  EXPECT_EQ(stats.d2h_bytes, 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuMemcpyHtoDAsync_v2") +
                fake_cuda_count_calls("cuMemcpyAsync") +
                fake_cuda_count_calls("cuMemcpyDtoH_v2"),
            0u);
  EXPECT_EQ(fake_cuda_count_calls("cuMemAlloc_v2"), 0u);
  EXPECT_EQ(device->allocator().stats().device_mallocs, mallocsBefore);
  // Nothing taken from the allocator's cache either but each output: the
  // intermediates live in the executable's arena.
  EXPECT_EQ(device->allocator().stats().num_allocs - allocsBefore,
            uint64_t(kExecutions - 1));
  EXPECT_EQ(stats.synchronizations, 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuStreamSynchronize"), 0u);
  EXPECT_EQ(stats.graph_launches, uint64_t(kExecutions - 1));
  EXPECT_EQ(fake_cuda_count_calls("cuGraphLaunch"), uint64_t(kExecutions - 1));
  EXPECT_EQ(stats.kernels_launched, 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuLaunchKernel"), 0u);
  // The graph was built once, from the second execution's launches.
  EXPECT_EQ(fake_cuda_count_calls("cuGraphCreate"), 1u);
  EXPECT_EQ(fake_cuda_count_calls("cuGraphAddKernelNode_v2"),
            uint64_t(kKernels));
  EXPECT_EQ(executable->cudaGraphStatus(), "on");

  // Reading the result is the one wait and the one copy back.
  runtime::ExecutionStats before = device->executionStats();
  std::vector<float> host(kElements);
  ASSERT_TRUE(result.toHost(host.data(), host.size() * sizeof(float)).ok());
  stats = since(*device, before);
  EXPECT_EQ(stats.synchronizations, 1u);
  EXPECT_EQ(stats.d2h_bytes, uint64_t(kElements * sizeof(float)));
  EXPECT_EQ(stats.h2d_bytes, 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuStreamSynchronize"), 1u);
  EXPECT_EQ(fake_cuda_count_calls("cuMemcpyDtoH_v2"), 1u);
}

TEST_F(Residency, WithoutGraphsEachKernelIsLaunched) {
  std::shared_ptr<Executable> executable = compile(/*cudaGraphs=*/false);
  ASSERT_TRUE(executable);
  std::vector<runtime::Tensor> in = inputs();
  runtime::ExecutionStats stats;
  runtime::Tensor result = executeMany(*executable, in, stats);
  EXPECT_EQ(stats.kernels_launched, uint64_t(kKernels * (kExecutions - 1)));
  EXPECT_EQ(fake_cuda_count_calls("cuLaunchKernel"),
            uint64_t(kKernels * (kExecutions - 1)));
  EXPECT_EQ(stats.graph_launches, 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuGraphCreate"), 0u);
  EXPECT_EQ(stats.h2d_bytes + stats.d2h_bytes + stats.synchronizations, 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuMemAlloc_v2"), 0u);
  EXPECT_EQ(executable->cudaGraphStatus(), "off: CUDA graphs are turned off");
}

TEST_F(Residency, NewBuffersUpdateTheGraphInsteadOfBuildingItAgain) {
  std::shared_ptr<Executable> executable = compile(/*cudaGraphs=*/true);
  ASSERT_TRUE(executable);
  std::vector<runtime::Tensor> in = inputs();
  std::vector<runtime::Tensor> results;
  // Every execution keeps its result: every one has a new output buffer.
  for (int i = 0; i < 8; ++i) {
    auto outputs = executable->run(in);
    ASSERT_TRUE(static_cast<bool>(outputs))
        << llvm::toString(outputs.takeError());
    results.push_back((*outputs)[0]);
  }
  // Another input: the kernels that read it get new parameters.
  std::vector<runtime::Tensor> other = inputs();
  fake_cuda_clear_log();
  auto outputs = executable->run(std::vector<runtime::Tensor>{other[0], in[1]});
  ASSERT_TRUE(static_cast<bool>(outputs))
      << llvm::toString(outputs.takeError());
  EXPECT_EQ(fake_cuda_count_calls("cuGraphCreate"), 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuGraphAddKernelNode_v2"), 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuGraphLaunch"), 1u);
  size_t updates = fake_cuda_count_calls("cuGraphExecKernelNodeSetParams_v2");
  EXPECT_GT(updates, 0u);
  EXPECT_LE(updates, uint64_t(kKernels));
  EXPECT_EQ(fake_cuda_count_calls("cuLaunchKernel"), 0u);
}

TEST_F(Residency, DriverWithoutGraphsLaunchesOneByOne) {
  runtime::CudaOptions options;
  options.driverPath = JEET_FAKE_CUDA_NOGRAPHS_PATH;
  runtime::setCudaOptions(options);
  auto cuda = runtime::getCudaDevice();
  ASSERT_TRUE(cuda.ok()) << cuda.status().toString();
  device = *cuda;
  runtime::setCurrentDevice(device);
  std::shared_ptr<Executable> executable = compile(/*cudaGraphs=*/true);
  ASSERT_TRUE(executable);
  std::vector<runtime::Tensor> in = inputs();
  runtime::ExecutionStats stats;
  executeMany(*executable, in, stats);
  EXPECT_EQ(stats.kernels_launched, uint64_t(kKernels * (kExecutions - 1)));
  EXPECT_EQ(stats.graph_launches, 0u);
  std::string status = executable->cudaGraphStatus();
  EXPECT_EQ(status.rfind("off: the CUDA driver ", 0), 0u) << status;
  EXPECT_NE(status.find("lacks cuGraphCreate (CUDA graphs)"), std::string::npos)
      << status;
}

TEST_F(Residency, AsynchronousFailureNamesTheGraphAtTheNextWait) {
  std::shared_ptr<Executable> executable = compile(/*cudaGraphs=*/true);
  ASSERT_TRUE(executable);
  std::vector<runtime::Tensor> in = inputs();
  // Warm up (the arena, the module), then measure from a steady state.
  ASSERT_TRUE(static_cast<bool>(executable->run(in)));
  ASSERT_TRUE(device->synchronize().ok());
  runtime::AllocatorStats start = device->allocator().stats();
  {
    auto outputs = executable->run(in);
    ASSERT_TRUE(static_cast<bool>(outputs));
    runtime::Tensor result = (*outputs)[0];
    // The launch is accepted; the GPU fails while running it.
    fake_cuda_fail_next("cuStreamSynchronize", 700);
    std::vector<float> host(kElements);
    runtime::Status status =
        result.toHost(host.data(), host.size() * sizeof(float));
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find(
                  "asynchronous work on cuda:0 failed; queued since the last "
                  "wait: 'main(1024xf32, 1024xf32) -> 1024xf32'"),
              std::string::npos)
        << status.message();
    EXPECT_NE(status.message().find("CUDA_ERROR_ILLEGAL_ADDRESS"),
              std::string::npos);
    // The result stays failed: reading it again, or computing with it.
    status = result.toHost(host.data(), host.size() * sizeof(float));
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.message().find("'main(1024xf32, 1024xf32)"),
              std::string::npos)
        << status.message();
    llvm::Error error =
        executable->run(std::vector<runtime::Tensor>{result, in[1]},
                        std::vector<runtime::Tensor>{result});
    ASSERT_TRUE(static_cast<bool>(error));
    std::string message = llvm::toString(std::move(error));
    EXPECT_NE(message.find("input #0 of 'main(1024xf32, 1024xf32) -> "
                           "1024xf32': asynchronous work on cuda:0 failed"),
              std::string::npos)
        << message;
    // Work queued after the failure runs and reads normally.
    auto again = executable->run(in);
    ASSERT_TRUE(static_cast<bool>(again));
    EXPECT_TRUE(
        (*again)[0].toHost(host.data(), host.size() * sizeof(float)).ok());
  }
  // Nothing leaked.
  runtime::AllocatorStats end = device->allocator().stats();
  EXPECT_EQ(end.allocated_bytes, start.allocated_bytes);
  EXPECT_EQ(end.reserved_bytes, start.reserved_bytes);
}

TEST_F(Residency, TensorOfAClosedDevice) {
  std::shared_ptr<Executable> executable = compile(/*cudaGraphs=*/true);
  ASSERT_TRUE(executable);
  std::vector<runtime::Tensor> in = inputs();
  ASSERT_TRUE(static_cast<bool>(executable->run(in)));
  // Setting the CUDA options again closes the device and its memory.
  runtime::CudaOptions options;
  options.driverPath = JEET_FAKE_CUDA_PATH;
  runtime::setCudaOptions(options);
  runtime::setCurrentDevice(nullptr);
  // Closing gave everything back to the driver: memory and modules.
  EXPECT_EQ(fake_cuda_live_allocations(), 0u);
  EXPECT_EQ(fake_cuda_bytes_in_use(), 0u);
  EXPECT_EQ(fake_cuda_live_modules(), 0u);
  fake_cuda_clear_log();
  std::vector<float> host(kElements);
  runtime::Status status =
      in[0].toHost(host.data(), host.size() * sizeof(float));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "the tensor's device cuda:0 was closed (CUDA "
                              "options were set again): its memory is gone");
  llvm::Error error = executable->run(in).takeError();
  ASSERT_TRUE(static_cast<bool>(error));
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("was loaded on cuda:0, which was closed"),
            std::string::npos)
      << message;
  // The tensors and the executable go without touching the closed device.
  in.clear();
  executable.reset();
  for (const char *call : {"cuMemFree_v2", "cuModuleUnload", "cuMemcpyDtoH_v2",
                           "cuLaunchKernel", "cuGraphLaunch"})
    EXPECT_EQ(fake_cuda_count_calls(call), 0u) << call;
}

TEST_F(Residency, TensorsOfAnotherDeviceAreRefused) {
  std::shared_ptr<Executable> executable = compile(/*cudaGraphs=*/true);
  ASSERT_TRUE(executable);
  std::vector<runtime::Tensor> in = inputs();
  std::vector<float> values(kElements, 1.0f);
  auto onHost = runtime::Tensor::fromHost(runtime::getHostDevice(), {kElements},
                                          runtime::DType::F32, values.data(),
                                          values.size() * sizeof(float));
  ASSERT_TRUE(onHost.ok());
  llvm::Error error =
      executable->run(std::vector<runtime::Tensor>{in[0], *onHost}).takeError();
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "InvalidArgument: input #1 of 'main(1024xf32, 1024xf32) -> "
            "1024xf32' is on host, the graph runs on cuda:0 (move it with "
            "to())");
}

TEST_F(Residency, ExecutionOnTheCallersStreamWaitsForTheDevicesStream) {
  std::shared_ptr<Executable> executable = compile(/*cudaGraphs=*/false);
  ASSERT_TRUE(executable);
  std::vector<runtime::Tensor> in = inputs();
  auto stream = device->createStream();
  ASSERT_TRUE(stream.ok());
  auto out = runtime::Tensor::empty(*device, {kElements}, runtime::DType::F32,
                                    *stream);
  ASSERT_TRUE(out.ok());
  fake_cuda_clear_log();
  ASSERT_FALSE(static_cast<bool>(
      executable->run(in, std::vector<runtime::Tensor>{*out}, *stream)));
  // The uploads were queued on the device's stream (1): the caller's
  // stream (2) waits for them, on the device, before the kernels.
  std::vector<std::string> calls = fakeCudaCalls();
  ASSERT_FALSE(calls.empty());
  // (The events the caller's stream records after the kernels mark how far
  // it read the inputs: see the next test.)
  EXPECT_EQ(fakeCudaCalls("cuEventRecord(stream=1)").size(), 1u);
  EXPECT_EQ(fakeCudaCalls("cuStreamWaitEvent").size(), 1u);
  EXPECT_NE(fakeCudaCalls("cuStreamWaitEvent")[0].find("stream=2"),
            std::string::npos);
  for (const std::string &launch : fakeCudaCalls("cuLaunchKernel"))
    EXPECT_NE(launch.find("stream=2"), std::string::npos) << launch;
  EXPECT_EQ(fake_cuda_count_calls("cuStreamSynchronize"), 0u);
  // Reading the result waits for the caller's stream.
  std::vector<float> host(kElements);
  ASSERT_TRUE(out->toHost(host.data(), host.size() * sizeof(float)).ok());
  EXPECT_GE(fakeCudaCalls("cuStreamSynchronize(stream=2)").size(), 1u);
  ASSERT_TRUE(device->destroyStream(*stream).ok());
}

/// Inputs allocated for the device's stream, read by an execution on the
/// caller's stream, then freed: their memory goes back to the device's
/// stream only behind that execution (the device's stream waits for an event
/// the caller's stream recorded after it), so an upload that is handed the
/// same memory cannot overwrite what the execution still reads.
TEST_F(Residency, MemoryFreedWhileAnotherStreamReadsItWaitsForThatStream) {
  std::shared_ptr<Executable> executable = compile(/*cudaGraphs=*/false);
  ASSERT_TRUE(executable);
  std::vector<runtime::Tensor> in = inputs();
  auto stream = device->createStream();
  ASSERT_TRUE(stream.ok());
  auto out = runtime::Tensor::empty(*device, {kElements}, runtime::DType::F32,
                                    *stream);
  ASSERT_TRUE(out.ok());
  for (int i = 0; i < 2; ++i) {
    fake_cuda_clear_log();
    ASSERT_FALSE(static_cast<bool>(
        executable->run(in, std::vector<runtime::Tensor>{*out}, *stream)));
    // After the kernels on the caller's stream (2), a mark of how far they
    // read the inputs; no wait of the host.
    std::vector<std::string> calls = fakeCudaCalls();
    auto lastLaunch =
        std::find_if(calls.rbegin(), calls.rend(), [](const std::string &call) {
          return call.rfind("cuLaunchKernel", 0) == 0;
        });
    ASSERT_NE(lastLaunch, calls.rend());
    EXPECT_TRUE(std::find(calls.rbegin(), lastLaunch,
                          "cuEventRecord(stream=2)") != lastLaunch)
        << "no event recorded on the caller's stream after the kernels";
    EXPECT_EQ(fake_cuda_count_calls("cuStreamSynchronize"), 0u);
  }
  fake_cuda_clear_log();
  in.clear();
  // The device's stream (1) waits for the caller's before anything else is
  // queued on it, such as this upload into the freed memory.
  std::vector<float> values(kElements, 2.0f);
  auto upload =
      runtime::Tensor::fromHost(*device, {kElements}, runtime::DType::F32,
                                values.data(), values.size() * sizeof(float));
  ASSERT_TRUE(upload.ok());
  std::vector<std::string> calls = fakeCudaCalls();
  auto copy = std::find_if(calls.begin(), calls.end(), [](const auto &call) {
    return call.rfind("cuMemcpyHtoDAsync", 0) == 0;
  });
  ASSERT_NE(copy, calls.end());
  EXPECT_NE(copy->find("stream=1"), std::string::npos) << *copy;
  auto wait = std::find_if(calls.begin(), copy, [](const auto &call) {
    return call.rfind("cuStreamWaitEvent(stream=1,", 0) == 0;
  });
  EXPECT_TRUE(wait != copy)
      << "no wait of the device's stream before the upload";
  EXPECT_EQ(fake_cuda_count_calls("cuStreamSynchronize"), 0u);
  // Freed after its stream is gone: the events outlive it.
  std::vector<runtime::Tensor> more = inputs();
  ASSERT_FALSE(static_cast<bool>(
      executable->run(more, std::vector<runtime::Tensor>{*out}, *stream)));
  ASSERT_TRUE(device->destroyStream(*stream).ok());
  more.clear();
  *out = runtime::Tensor();
  ASSERT_TRUE(device->synchronize().ok());
}

/// A graph with intermediates, run on the CPU from several threads at once:
/// each execution has an arena of its own, so every result is right.
TEST(CpuResidency, ConcurrentExecutionsDoNotShareAnArena) {
  const char *graph = R"mlir(
func.func @main(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %0 = jeet.matmul %a, %b : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
  %1 = jeet.exp %a : tensor<128x128xf32>
  %2 = jeet.matmul %0, %1 : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
  return %2 : tensor<128x128xf32>
}
)mlir";
  CompileOptions options;
  options.parallel = false;
  Compiler compiler;
  auto compiled = compiler.compile(graph, "graph.mlir", options);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  const Executable &exe = **compiled;
  ASSERT_GT(exe.memoryPlan().arenaBytes, 0);
  constexpr int n = 128, kThreads = 4, kRuns = 50;
  std::vector<int> failures(kThreads, 0);
  // Each thread has inputs of its own and checks every run against their
  // float64 result: another thread's intermediates in its arena would show.
  auto work = [&](int thread) {
    std::mt19937 rng(1000 + thread);
    std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
    std::vector<float> a(n * n), b(n * n), out(n * n);
    for (float &x : a)
      x = dist(rng);
    for (float &x : b)
      x = dist(rng);
    // (a @ b) @ exp(a) in float64.
    std::vector<double> ab(n * n, 0.0), want(n * n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
          ab[i * n + j] += double(a[i * n + k]) * b[k * n + j];
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
          want[i * n + j] += ab[i * n + k] * std::exp(double(a[k * n + j]));
    for (int run = 0; run < kRuns; ++run) {
      std::fill(out.begin(), out.end(), 0.0f);
      if (exe.run({a.data(), b.data()}, {out.data()})) {
        ++failures[thread];
        continue;
      }
      for (int i = 0; i < n * n; ++i)
        if (std::abs(out[i] - want[i]) > 1e-3 + 1e-3 * std::abs(want[i])) {
          ++failures[thread];
          break;
        }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(work, t);
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
}

} // namespace
