//===- CudaDeviceTest.cpp - CudaDevice against the fake driver ------------===//

#include "FakeCuda.h"

#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Execution.h"
#include "jeet/Runtime/Tensor.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace jeet::runtime;

namespace {
constexpr size_t MiB = 1 << 20;

const char *kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry add_kernel(.param .u64 a) { ret; }
.visible .entry mul_kernel(.param .u64 a) { ret; }
)";

CudaOptions fakeOptions() {
  CudaOptions options;
  options.driverPath = JEET_FAKE_CUDA_PATH;
  return options;
}

Status openError(const CudaOptions &options) {
  StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::open(options);
  EXPECT_FALSE(device.ok());
  if (device.ok())
    return Status();
  EXPECT_EQ(device.status().code(), StatusCode::DeviceUnavailable);
  return device.status();
}

class CudaDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    fake_cuda_reset();
    StatusOr<std::unique_ptr<CudaDevice>> opened =
        CudaDevice::open(fakeOptions());
    ASSERT_TRUE(opened.ok()) << opened.status().toString();
    device = std::move(*opened);
    fake_cuda_clear_log();
  }
  std::unique_ptr<CudaDevice> device;
};
} // namespace

TEST(CudaDeviceOpen, NoDriver) {
  CudaOptions options;
  options.driverPath = "/nonexistent/libcuda.so.1";
  Status status = openError(options);
  EXPECT_EQ(status.message().rfind(
                "no CUDA driver: dlopen /nonexistent/libcuda.so.1 failed: ", 0),
            0u)
      << status.message();
  EXPECT_NE(status.message().find("No such file"), std::string::npos);
}

TEST(CudaDeviceOpen, LibraryWithoutTheDriverAPI) {
  CudaOptions options;
  options.driverPath = "libm.so.6";
  Status status = openError(options);
  EXPECT_EQ(status.message(), "no CUDA driver: libm.so.6 lacks cuInit");
}

TEST(CudaDeviceOpen, CuInitFails) {
  fake_cuda_reset();
  fake_cuda_fail_next("cuInit", 100);
  Status status = openError(fakeOptions());
  EXPECT_EQ(status.message(), "cuInit failed: CUDA_ERROR_NO_DEVICE (no "
                              "CUDA-capable device is detected)");
}

TEST(CudaDeviceOpen, NoDevice) {
  fake_cuda_reset();
  fake_cuda_set_device_count(0);
  EXPECT_EQ(openError(fakeOptions()).message(), "no CUDA device");
}

TEST(CudaDeviceOpen, OrdinalOutOfRange) {
  fake_cuda_reset();
  CudaOptions options = fakeOptions();
  options.ordinal = 2;
  EXPECT_EQ(openError(options).message(),
            "CUDA device ordinal 2 out of range: 1 device(s)");
}

TEST(CudaDeviceOpen, DriverTooOldForPtx) {
  fake_cuda_reset();
  fake_cuda_set_driver_version(11080);
  CudaOptions options = fakeOptions();
  options.requiredPtxVersion = 80;
  Status status = openError(options);
  EXPECT_EQ(status.message().rfind("driver version 11.8 is older than 12.0 "
                                   "needed for PTX ISA 8.0",
                                   0),
            0u)
      << status.message();
  // New enough.
  fake_cuda_set_driver_version(12040);
  EXPECT_TRUE(CudaDevice::open(options).ok());
  EXPECT_EQ(minDriverVersionForPtx(84), 12040);
  EXPECT_EQ(formatDriverVersion(12040), "12.4");
}

TEST(CudaDeviceOpen, ComputeCapabilityTooOld) {
  fake_cuda_reset();
  fake_cuda_set_compute_capability(7, 5);
  CudaOptions options = fakeOptions();
  options.minComputeCapability = 80;
  EXPECT_EQ(openError(options).message(),
            "compute capability 7.5 is older than sm_80 the code was compiled "
            "for");
}

TEST(CudaDeviceOpen, Describes) {
  fake_cuda_reset();
  StatusOr<std::unique_ptr<CudaDevice>> device =
      CudaDevice::open(fakeOptions());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  EXPECT_EQ((*device)->name(), "cuda:0");
  EXPECT_EQ((*device)->kind(), DeviceKind::Cuda);
  EXPECT_EQ((*device)->driverVersion(), 13000);
  EXPECT_EQ((*device)->computeCapability(), 90);
  EXPECT_EQ((*device)->description(), "Fake CUDA Device, sm_90, driver 13.0");
}

namespace {
/// JEET_POISON_DEVICE_MEMORY set (or unset) while it lives; what the test
/// run had (scripts/run-tests.sh sets it) is put back after.
class DevicePoisonSetting {
public:
  explicit DevicePoisonSetting(bool poison) {
    if (const char *set = std::getenv(kName))
      before = set;
    EXPECT_EQ(poison ? setenv(kName, "1", 1) : unsetenv(kName), 0);
  }
  ~DevicePoisonSetting() {
    EXPECT_EQ(before ? setenv(kName, before->c_str(), 1) : unsetenv(kName), 0);
  }

private:
  static constexpr const char *kName = "JEET_POISON_DEVICE_MEMORY";
  std::optional<std::string> before;
};

/// The memsets of 0xFF bytes over `count` words in the fake driver's log.
size_t poisonFills(size_t count) {
  std::string fill = "value=4294967295, count=" + std::to_string(count) + ",";
  size_t fills = 0;
  for (const std::string &call : fakeCudaCalls())
    if (call.rfind("cuMemsetD32Async(", 0) == 0 &&
        call.find(fill) != std::string::npos)
      ++fills;
  return fills;
}
} // namespace

// JEET_POISON_DEVICE_MEMORY=1: a block the allocator hands out is filled
// with 0xFF bytes on its stream (a memset of its whole words), read when the
// device opens; off by default.
TEST(CudaDevicePoison, BlocksFilledWhenHandedOut) {
  for (bool poison : {false, true}) {
    fake_cuda_reset();
    StatusOr<std::unique_ptr<CudaDevice>> device = [&] {
      DevicePoisonSetting setting(poison);
      return CudaDevice::open(fakeOptions());
    }();
    ASSERT_TRUE(device.ok()) << device.status().toString();
    fake_cuda_clear_log();
    StatusOr<void *> block = (*device)->allocator().allocate(1002);
    ASSERT_TRUE(block.ok()) << block.status().toString();
    EXPECT_EQ(fake_cuda_count_calls("cuMemsetD32Async"), poison ? 1u : 0u)
        << fake_cuda_log();
    EXPECT_EQ(poisonFills(250), poison ? 1u : 0u) << fake_cuda_log();
    EXPECT_TRUE((*device)->allocator().free(*block).ok());
  }
}

// JEET_POISON_DEVICE_MEMORY: the arena of intermediates an entry keeps in its
// pool between executions is filled again (a memset on the execution's
// stream) each time an execution takes it, as a fresh block is when the
// allocator hands it out: the first execution fills it once (allocated),
// each later one once more (taken again).
TEST(CudaDevicePoison, ArenaFilledForEachExecution) {
  for (bool poison : {false, true}) {
    fake_cuda_reset();
    EntryInfo info;
    info.label = "arena";
    info.inputs = {TensorType{{4}, DType::F32}};
    info.outputs = {TensorType{{4}, DType::F32}};
    info.arenaBytes = 4096;
    info.takesStream = true;
    info.cudaGraphs = false;
    std::unique_ptr<CudaDevice> device;
    std::unique_ptr<CompiledEntry> entry;
    {
      // Both read the setting when made.
      DevicePoisonSetting setting(poison);
      StatusOr<std::unique_ptr<CudaDevice>> opened =
          CudaDevice::open(fakeOptions());
      ASSERT_TRUE(opened.ok()) << opened.status().toString();
      device = std::move(*opened);
      // Host code that launches nothing.
      entry = std::make_unique<CompiledEntry>(
          info, [](void **) {}, *device);
    }
    StatusOr<void *> in = device->allocator().allocate(16);
    StatusOr<void *> out = device->allocator().allocate(16);
    ASSERT_TRUE(in.ok() && out.ok());
    for (int run = 1; run <= 3; ++run) {
      fake_cuda_clear_log();
      Status status = entry->runPointers({*in}, {*out});
      ASSERT_TRUE(status.ok()) << status.toString();
      EXPECT_EQ(poisonFills(1024), poison ? 1u : 0u)
          << "run " << run << ": " << fake_cuda_log();
    }
    EXPECT_EQ(entry->numArenas(), 1u);
    entry.reset();
    EXPECT_TRUE(device->allocator().free(*in).ok());
    EXPECT_TRUE(device->allocator().free(*out).ok());
  }
}

TEST_F(CudaDeviceTest, TensorRoundTrip) {
  float values[4] = {1, 2, 3, 4};
  StatusOr<Tensor> tensor =
      Tensor::fromHost(*device, {4}, DType::F32, values, sizeof(values));
  ASSERT_TRUE(tensor.ok()) << tensor.status().toString();
  EXPECT_EQ(fake_cuda_count_calls("cuMemAlloc_v2"), 1u);
  // The upload is queued on the device's stream: the host does not wait.
  EXPECT_EQ(
      fakeCudaCalls("cuMemcpyHtoDAsync_v2"),
      std::vector<std::string>{"cuMemcpyHtoDAsync_v2(bytes=16, stream=1)"});
  EXPECT_EQ(fake_cuda_count_calls("cuStreamSynchronize"), 0u);
  EXPECT_EQ(device->executionStats().h2d_bytes, 16u);
  EXPECT_EQ(device->executionStats().synchronizations, 0u);
  float back[4] = {0};
  ASSERT_TRUE(tensor->toHost(back, sizeof(back)).ok());
  EXPECT_EQ(back[3], 4);
  // Reading waits for the stream once, then copies.
  EXPECT_EQ(fake_cuda_count_calls("cuStreamSynchronize"), 1u);
  EXPECT_EQ(fake_cuda_count_calls("cuMemcpyDtoH_v2"), 1u);
  EXPECT_EQ(device->executionStats().d2h_bytes, 16u);
  EXPECT_EQ(device->executionStats().synchronizations, 1u);
  StatusOr<Tensor> zeros = Tensor::zeros(*device, {3}, DType::I32);
  ASSERT_TRUE(zeros.ok());
  int32_t ints[3] = {7, 7, 7};
  ASSERT_TRUE(zeros->toHost(ints, sizeof(ints)).ok());
  EXPECT_EQ(ints[0] + ints[1] + ints[2], 0);
  StatusOr<std::pair<size_t, size_t>> info = device->memInfo();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->second - info->first, 2 * MiB);
}

TEST_F(CudaDeviceTest, ModuleLoadedOnceAndFunctionsCached) {
  StatusOr<CudaModule *> module = device->loadPtx(kPtx, "graph0");
  ASSERT_TRUE(module.ok()) << module.status().toString();
  EXPECT_EQ((*module)->infoLog(), "fake ptxas: compiled 2 entry function(s)");
  for (int i = 0; i < 5; ++i) {
    StatusOr<CudaKernel *> kernel = (*module)->getFunction("add_kernel");
    ASSERT_TRUE(kernel.ok());
    EXPECT_EQ((*kernel)->name, "add_kernel");
  }
  EXPECT_EQ(fake_cuda_count_calls("cuModuleLoadDataEx"), 1u);
  EXPECT_EQ(fake_cuda_count_calls("cuModuleGetFunction"), 1u);
  EXPECT_EQ((*module)->numDriverLookups(), 1u);
  EXPECT_EQ(device->numLoadedModules(), 1u);
  ASSERT_TRUE(device->unloadModule(*module).ok());
  EXPECT_EQ(fake_cuda_live_modules(), 0u);
}

TEST_F(CudaDeviceTest, MissingKernelIsNotFound) {
  StatusOr<CudaModule *> module = device->loadPtx(kPtx, "graph0");
  ASSERT_TRUE(module.ok());
  StatusOr<CudaKernel *> kernel = (*module)->getFunction("nope");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), StatusCode::DriverError);
  EXPECT_EQ(kernel.status().message(),
            "cuModuleGetFunction failed for kernel 'nope' in module 'graph0': "
            "CUDA_ERROR_NOT_FOUND (named symbol not found)");
}

TEST_F(CudaDeviceTest, JitErrorLogIsCaptured) {
  std::string ptx = std::string(kPtx) + "\nFAKE_JIT_ERROR\n";
  StatusOr<CudaModule *> module = device->loadPtx(ptx, "graph7", 3);
  ASSERT_FALSE(module.ok());
  const std::string &message = module.status().message();
  EXPECT_EQ(module.status().code(), StatusCode::DriverError);
  EXPECT_NE(message.find("cuModuleLoadDataEx failed for module 'graph7' (PTX"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("CUDA_ERROR_INVALID_PTX"), std::string::npos);
  EXPECT_NE(message.find("JIT error log:\nptxas application ptx input, line 3"),
            std::string::npos)
      << message;
  EXPECT_NE(fakeCudaCalls("cuModuleLoadDataEx")[0].find("opt=3"),
            std::string::npos);
}

TEST_F(CudaDeviceTest, LaunchesRecordedInOrderOnOneStream) {
  StatusOr<CudaModule *> module = device->loadPtx(kPtx, "graph0");
  ASSERT_TRUE(module.ok());
  CudaKernel *add = *(*module)->getFunction("add_kernel");
  CudaKernel *mul = *(*module)->getFunction("mul_kernel");
  StatusOr<void *> stream = device->createStream();
  ASSERT_TRUE(stream.ok());
  void *params[1] = {nullptr};
  constexpr int kLaunches = 6;
  for (int i = 0; i < kLaunches; ++i)
    ASSERT_TRUE(device
                    ->launch(i % 2 ? *mul : *add, {unsigned(i + 1), 1, 1},
                             {128, 1, 1}, 0, *stream, params)
                    .ok());
  std::vector<std::string> launches = fakeCudaCalls("cuLaunchKernel");
  ASSERT_EQ(launches.size(), size_t(kLaunches));
  for (int i = 0; i < kLaunches; ++i)
    EXPECT_EQ(launches[i],
              "cuLaunchKernel(kernel=" +
                  std::string(i % 2 ? "mul_kernel" : "add_kernel") +
                  ", grid=" + std::to_string(i + 1) +
                  "x1x1, block=128x1x1, smem=0, stream=2)");
  EXPECT_EQ(device->executionStats().kernels_launched, uint64_t(kLaunches));
  device->resetExecutionStats();
  EXPECT_EQ(device->executionStats().kernels_launched, 0u);
  ASSERT_TRUE(device->destroyStream(*stream).ok());
}

TEST_F(CudaDeviceTest, FailedLaunchNamesKernelAndError) {
  StatusOr<CudaModule *> module = device->loadPtx(kPtx, "graph0");
  ASSERT_TRUE(module.ok());
  CudaKernel *add = *(*module)->getFunction("add_kernel");
  fake_cuda_fail_next("cuLaunchKernel", 719);
  Status status = device->launch(*add, {4, 1, 1}, {256, 1, 1}, 0,
                                 device->stream(), nullptr);
  EXPECT_EQ(status.code(), StatusCode::DriverError);
  EXPECT_EQ(status.message(),
            "cuLaunchKernel failed for kernel 'add_kernel' in module 'graph0' "
            "(grid 4x1x1, block 256x1x1): CUDA_ERROR_LAUNCH_FAILED "
            "(unspecified launch failure)");
  EXPECT_EQ(device->executionStats().kernels_launched, 0u);
  // Too many threads per block: the driver's own error.
  status = device->launch(*add, {1, 1, 1}, {2048, 1, 1}, 0, device->stream(),
                          nullptr);
  EXPECT_NE(status.message().find("CUDA_ERROR_INVALID_VALUE"),
            std::string::npos);
}

TEST_F(CudaDeviceTest, EventTiming) {
  StatusOr<CudaModule *> module = device->loadPtx(kPtx, "graph0");
  ASSERT_TRUE(module.ok());
  CudaKernel *add = *(*module)->getFunction("add_kernel");
  void *start = *device->createEvent();
  void *end = *device->createEvent();
  ASSERT_TRUE(device->recordEvent(start, device->stream()).ok());
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(
        device->launch(*add, {1, 1, 1}, {1, 1, 1}, 0, device->stream(), nullptr)
            .ok());
  ASSERT_TRUE(device->recordEvent(end, device->stream()).ok());
  StatusOr<float> ms = device->elapsedMs(start, end);
  ASSERT_TRUE(ms.ok()) << ms.status().toString();
  EXPECT_FLOAT_EQ(*ms, 1.0f); // the fake's clock: 0.25 ms per launch
  ASSERT_TRUE(device->destroyEvent(start).ok());
  ASSERT_TRUE(device->destroyEvent(end).ok());
}

TEST_F(CudaDeviceTest, OutOfMemoryThroughTheDriver) {
  fake_cuda_set_mem_limit(30 * MiB);
  StatusOr<void *> a = device->allocator().allocate(25 * MiB);
  ASSERT_TRUE(a.ok()) << a.status().toString();
  StatusOr<void *> b = device->allocator().allocate(25 * MiB);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::OutOfMemory);
  const std::string &message = b.status().message();
  EXPECT_NE(message.find("cuda:0: out of memory allocating 26214400 bytes"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos);
  // The 25 MiB block keeps its whole 26 MiB segment (the rest is too small
  // to split off).
  EXPECT_NE(message.find("allocated_bytes=27262976"), std::string::npos);
  // Two attempts: before and after emptying the cache.
  EXPECT_EQ(fakeCudaCalls("cuMemAlloc_v2").size(), 3u);
  ASSERT_TRUE(device->allocator().free(*a).ok());
  StatusOr<void *> c = device->allocator().allocate(25 * MiB);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, *a); // from the cache
  ASSERT_TRUE(device->allocator().free(*c).ok());
  device->allocator().emptyCache();
  EXPECT_EQ(fake_cuda_live_allocations(), 0u);
}

TEST_F(CudaDeviceTest, ClosingFreesEverything) {
  StatusOr<Tensor> tensor = Tensor::zeros(*device, {1000}, DType::F32);
  ASSERT_TRUE(tensor.ok());
  ASSERT_TRUE(device->loadPtx(kPtx).ok());
  *tensor = Tensor();
  device.reset();
  EXPECT_EQ(fake_cuda_live_allocations(), 0u);
  EXPECT_EQ(fake_cuda_live_modules(), 0u);
}
