//===- GpuExecutionTest.cpp - A compiled GPU graph on the fake driver -----===//
//
// Part of the Jeet project.
//
// Compiles a graph with jeet-gpu-pipeline and runs it twice through the
// runtime against the recording fake driver (which executes no kernel), to
// prove the call sequence with CUDA graphs off: the module is loaded once,
// each execution launches one kernel per fusion group on the device's
// stream, the intermediates live in one arena allocated on the first
// execution, the second execution allocates nothing, and nothing leaks.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Compiler.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Tensor.h"

#include "../Runtime/FakeCuda.h"

#include <gtest/gtest.h>

#include <set>

using namespace jeet;

namespace {

// matmul + bias + relu (one kernel), then softmax over the columns (three
// kernels: max; exp and its sum; divide; a softmax over rows would be one):
// three intermediates between kernels.
const char *kGraph = R"mlir(
func.func @main(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>,
                %b: tensor<16xf32>) -> tensor<64x16xf32> {
  %0 = jeet.matmul %x, %w : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %1 = jeet.add %0, %b : tensor<64x16xf32>, tensor<16xf32> -> tensor<64x16xf32>
  %2 = jeet.relu %1 : tensor<64x16xf32>
  %3 = jeet.softmax %2 {axis = 0 : i64} : tensor<64x16xf32>
  return %3 : tensor<64x16xf32>
}
)mlir";

/// The `stream=` field of each cuLaunchKernel in the log.
std::set<std::string> launchStreams() {
  std::set<std::string> streams;
  for (const std::string &call : fakeCudaCalls("cuLaunchKernel")) {
    size_t at = call.find("stream=");
    EXPECT_NE(at, std::string::npos) << call;
    if (at == std::string::npos)
      continue;
    size_t end = call.find_first_of(",) ", at);
    streams.insert(call.substr(at, end - at));
  }
  return streams;
}

TEST(GpuExecution, CompiledGraphCallSequenceOnTheFakeDriver) {
  fake_cuda_reset();
  runtime::CudaOptions cudaOptions;
  cudaOptions.driverPath = JEET_FAKE_CUDA_PATH;
  runtime::setCudaOptions(cudaOptions);
  auto cuda = runtime::getCudaDevice();
  ASSERT_TRUE(cuda.ok()) << cuda.status().toString();
  runtime::Device &device = **cuda;
  runtime::setCurrentDevice(&device);

  CompileOptions options;
  options.device = "gpu";
  options.cudaGraphs = false;
  Compiler compiler;
  auto compiled = compiler.compile(kGraph, "graph.mlir", options);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  std::shared_ptr<Executable> executable = std::move(*compiled);
  const Executable &exe = *executable;
  ASSERT_EQ(exe.numKernels(), 4);
  // Three intermediates between kernels, alive together: the 64x16xf32
  // activations (4 KiB) and two 16-float rows of softmax (64 bytes each, in
  // 256-byte aligned slots of the arena).
  EXPECT_EQ(exe.memoryPlan().buffers, 3);
  EXPECT_EQ(exe.memoryPlan().arenaBytes, 4096 + 2 * 256);
  EXPECT_EQ(exe.memoryPlan().liveBytesBound, exe.memoryPlan().arenaBytes);

  std::vector<runtime::Tensor> tensors;
  std::vector<const void *> inputs;
  std::vector<void *> outputs;
  for (const TensorSpec &spec : exe.inputs()) {
    auto t = runtime::Tensor::zeros(device, spec.shape, runtime::DType::F32);
    ASSERT_TRUE(t.ok()) << t.status().toString();
    inputs.push_back(t->data());
    tensors.push_back(std::move(*t));
  }
  for (const TensorSpec &spec : exe.outputs()) {
    auto t = runtime::Tensor::empty(device, spec.shape, runtime::DType::F32);
    ASSERT_TRUE(t.ok()) << t.status().toString();
    outputs.push_back(t->data());
    tensors.push_back(std::move(*t));
  }
  uint64_t allocatedBefore = device.allocator().stats().allocated_bytes;

  // First execution: the kernels' module is loaded once, each kernel is
  // looked up once and launched once, all on the device's stream; the arena
  // is the one allocation.
  fake_cuda_clear_log();
  uint64_t allocsBefore = device.allocator().stats().num_allocs;
  ASSERT_FALSE(static_cast<bool>(exe.run(inputs, outputs)));
  EXPECT_EQ(fake_cuda_count_calls("cuModuleLoadDataEx"), 1u);
  EXPECT_EQ(fake_cuda_count_calls("cuLaunchKernel"), 4u);
  EXPECT_LE(fake_cuda_count_calls("cuModuleGetFunction"), 4u);
  EXPECT_EQ(launchStreams(), std::set<std::string>{"stream=1"})
      << fake_cuda_log();
  EXPECT_EQ(fake_cuda_count_calls("cuStreamCreate"), 0u);
  EXPECT_EQ(device.allocator().stats().num_allocs, allocsBefore + 1);
  uint64_t arenaBytes =
      device.allocator().stats().allocated_bytes - allocatedBefore;
  EXPECT_GE(arenaBytes, static_cast<uint64_t>(exe.memoryPlan().arenaBytes));

  // Second execution: no loading, no lookups, no allocation at all, the
  // same stream.
  fake_cuda_clear_log();
  allocsBefore = device.allocator().stats().num_allocs;
  ASSERT_FALSE(static_cast<bool>(exe.run(inputs, outputs)));
  EXPECT_EQ(fake_cuda_count_calls("cuModuleLoadDataEx"), 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuModuleGetFunction"), 0u);
  EXPECT_EQ(fake_cuda_count_calls("cuLaunchKernel"), 4u);
  EXPECT_EQ(fake_cuda_count_calls("cuMemAlloc_v2"), 0u) << fake_cuda_log();
  EXPECT_EQ(device.allocator().stats().num_allocs, allocsBefore);
  EXPECT_EQ(launchStreams(), std::set<std::string>{"stream=1"})
      << fake_cuda_log();
  EXPECT_EQ(device.allocator().stats().allocated_bytes,
            allocatedBefore + arenaBytes);

  // Nothing leaks once the executable (its arena) and the tensors are gone
  // and the cache is emptied.
  executable.reset();
  tensors.clear();
  device.allocator().emptyCache();
  EXPECT_EQ(device.allocator().stats().allocated_bytes, 0u);
  EXPECT_EQ(fake_cuda_live_allocations(), 0u);
}

} // namespace
