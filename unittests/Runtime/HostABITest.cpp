//===- HostABITest.cpp - mgpu* and _mlir_memref_to_llvm_* -----------------===//
//
// Drives the host ABI the way gpu-to-llvm lowered code does, against the fake
// driver.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/HostABI.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>
#include <set>

using namespace jeet::runtime;

namespace {
constexpr size_t MiB = 1 << 20;

const char kPtx[] = R"(
.version 8.0
.target sm_80
.visible .entry fill(.param .u64 a) { ret; }
.visible .entry scale(.param .u64 a) { ret; }
)";

class HostABITest : public ::testing::Test {
protected:
  void SetUp() override {
    CudaOptions options;
    options.driverPath = JEET_FAKE_CUDA_PATH;
    setCudaOptions(options);
    setCurrentDevice(nullptr);
    fake_cuda_reset();
    takeLastError().ignore();
    StatusOr<CudaDevice *> opened = getCudaDevice();
    ASSERT_TRUE(opened.ok()) << opened.status().toString();
    device = *opened;
    fake_cuda_clear_log();
  }
  void TearDown() override { EXPECT_FALSE(hasLastError()); }

  std::string takeError() {
    Status status = takeLastError();
    EXPECT_FALSE(status.ok());
    return status.message();
  }

  /// One execution of a compiled graph, as lowered host code does it.
  void execute(void *module, int launches) {
    void *fill = mgpuModuleGetFunction(module, "fill");
    void *scale = mgpuModuleGetFunction(module, "scale");
    void *stream = mgpuStreamCreate();
    void *a = mgpuMemAlloc(4096, stream, false);
    void *b = mgpuMemAlloc(3 * MiB, stream, false);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    float host[4] = {1, 2, 3, 4};
    mgpuMemcpy(a, host, sizeof(host), stream);
    void *args[] = {&a};
    for (int i = 0; i < launches; ++i)
      mgpuLaunchKernel(i % 2 ? scale : fill, 2, 1, 1, 64, 1, 1, 0, stream, args,
                       nullptr, 1);
    float back[4] = {0};
    mgpuMemcpy(back, a, sizeof(back), stream);
    EXPECT_EQ(back[3], 4);
    mgpuMemFree(b, stream);
    mgpuMemFree(a, stream);
    mgpuStreamSynchronize(stream);
    mgpuStreamDestroy(stream);
    Status status = takeLastError();
    EXPECT_TRUE(status.ok()) << status.toString();
  }

  CudaDevice *device = nullptr;
};
} // namespace

TEST_F(HostABITest, SymbolTable) {
  size_t count = 0;
  const HostSymbol *symbols = getHostABISymbols(&count);
  ASSERT_EQ(count, 24u);
  std::set<std::string> names;
  for (size_t i = 0; i < count; ++i) {
    names.insert(symbols[i].name);
    EXPECT_NE(symbols[i].address, nullptr);
  }
  for (const char *name : {"mgpuModuleLoad",
                           "mgpuModuleLoadJIT",
                           "mgpuModuleUnload",
                           "mgpuModuleGetFunction",
                           "mgpuLaunchKernel",
                           "mgpuStreamCreate",
                           "mgpuStreamDestroy",
                           "mgpuStreamSynchronize",
                           "mgpuStreamWaitEvent",
                           "mgpuEventCreate",
                           "mgpuEventDestroy",
                           "mgpuEventSynchronize",
                           "mgpuEventRecord",
                           "mgpuMemAlloc",
                           "mgpuMemFree",
                           "mgpuMemcpy",
                           "mgpuMemset32",
                           "mgpuMemHostRegisterMemRef",
                           "mgpuMemHostUnregisterMemRef",
                           "mgpuSetDefaultDevice",
                           "jeetAllocationFailed",
                           "_mlir_memref_to_llvm_alloc",
                           "_mlir_memref_to_llvm_aligned_alloc",
                           "_mlir_memref_to_llvm_free"})
    EXPECT_TRUE(names.count(name)) << name;
  EXPECT_EQ(symbols[13].address, reinterpret_cast<void *>(&mgpuMemAlloc));
}

TEST_F(HostABITest, ExecutionsReuseModuleFunctionsAndMemory) {
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 2);
  ASSERT_NE(module, nullptr) << takeError();
  execute(module, 5);
  size_t mallocs = fake_cuda_count_calls("cuMemAlloc_v2");
  EXPECT_EQ(mallocs, 2u); // one small and one large segment
  AllocatorStats first = device->allocator().stats();
  EXPECT_EQ(first.allocated_bytes, 0u);

  // A second execution: no new module, function lookup or device malloc.
  execute(module, 5);
  EXPECT_EQ(fake_cuda_count_calls("cuMemAlloc_v2"), mallocs);
  EXPECT_EQ(fake_cuda_count_calls("cuModuleLoadDataEx"), 1u);
  EXPECT_EQ(fake_cuda_count_calls("cuModuleGetFunction"), 2u);
  AllocatorStats second = device->allocator().stats();
  EXPECT_EQ(second.cache_hits, first.cache_hits + 2);
  EXPECT_EQ(second.device_mallocs, first.device_mallocs);
  EXPECT_EQ(second.num_allocs, second.num_frees);
  EXPECT_EQ(device->executionStats().kernels_launched, 10u);

  // Nothing leaked: every mgpuMemAlloc had its mgpuMemFree.
  EXPECT_EQ(second.allocated_bytes, 0u);
  device->allocator().emptyCache();
  EXPECT_EQ(fake_cuda_live_allocations(), 0u);
  mgpuModuleUnload(module);
  EXPECT_EQ(fake_cuda_live_modules(), 0u);
}

TEST_F(HostABITest, LaunchesInOrderOnOneStream) {
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  ASSERT_NE(module, nullptr);
  fake_cuda_clear_log();
  execute(module, 4);
  std::vector<std::string> launches = fakeCudaCalls("cuLaunchKernel");
  ASSERT_EQ(launches.size(), 4u);
  const char *expected[] = {"fill", "scale", "fill", "scale"};
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(launches[i], "cuLaunchKernel(kernel=" + std::string(expected[i]) +
                               ", grid=2x1x1, block=64x1x1, smem=0, "
                               "stream=2)");
  // The stream was synchronized before it was destroyed.
  std::vector<std::string> calls = fakeCudaCalls();
  auto sync =
      std::find(calls.begin(), calls.end(), "cuStreamSynchronize(stream=2)");
  auto destroy =
      std::find(calls.begin(), calls.end(), "cuStreamDestroy_v2(stream=2)");
  EXPECT_TRUE(sync != calls.end() && destroy != calls.end() && sync < destroy);
  mgpuModuleUnload(module);
}

// The parameters' sizes come from the driver for the count the launch passes:
// no query past the last parameter (on a real driver an API error, which
// compute-sanitizer reports for every kernel).
TEST_F(HostABITest, ParameterSizesAreAskedOnlyForTheLaunchedCount) {
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 2);
  ASSERT_NE(module, nullptr) << takeError();
  auto *fill = static_cast<CudaKernel *>(mgpuModuleGetFunction(module, "fill"));
  ASSERT_NE(fill, nullptr);
  EXPECT_TRUE(fill->paramSizes.empty()); // not asked before a launch
  execute(module, 4);
  EXPECT_EQ(fake_cuda_count_calls("cuFuncGetParamInfo"), 0u) << fake_cuda_log();
  EXPECT_EQ(fill->paramSizes, std::vector<size_t>{8});
  mgpuModuleUnload(module);
}

TEST_F(HostABITest, JitErrorIsRecordedWithModuleName) {
  std::string ptx = std::string(kPtx) + "FAKE_JIT_ERROR";
  EXPECT_EQ(mgpuModuleLoadJIT(ptx.data(), 2), nullptr);
  Status status = takeLastError();
  EXPECT_EQ(status.code(), StatusCode::DriverError);
  EXPECT_NE(status.message().find("module 'module[fill,scale]'"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("CUDA_ERROR_INVALID_PTX"), std::string::npos);
  EXPECT_NE(status.message().find("JIT error log:"), std::string::npos);
  EXPECT_TRUE(takeLastError().ok()); // taken
}

TEST_F(HostABITest, MissingFunctionAndFailedLaunch) {
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 0);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(module, "absent"), nullptr);
  EXPECT_NE(takeError().find("kernel 'absent' in module 'module[fill,scale]'"
                             ": CUDA_ERROR_NOT_FOUND"),
            std::string::npos);

  void *fill = mgpuModuleGetFunction(module, "fill");
  fake_cuda_fail_next("cuLaunchKernel", 701);
  mgpuLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  std::string message = takeError();
  EXPECT_NE(message.find("cuLaunchKernel failed for kernel 'fill'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
            std::string::npos);

  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_NE(takeError().find("null kernel"), std::string::npos);
  mgpuLaunchKernel(fill, 0, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_NE(takeError().find("bad grid x 0"), std::string::npos);
  mgpuModuleUnload(module);
}

TEST_F(HostABITest, FirstErrorIsKept) {
  EXPECT_EQ(mgpuModuleGetFunction(nullptr, "x"), nullptr);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_NE(takeError().find("mgpuModuleGetFunction"), std::string::npos);
  EXPECT_TRUE(takeLastError().ok());
}

TEST_F(HostABITest, OutOfMemoryThroughTheFakeLimit) {
  fake_cuda_set_mem_limit(16 * MiB);
  void *big = mgpuMemAlloc(20 * MiB, nullptr, false);
  EXPECT_EQ(big, nullptr);
  Status status = takeLastError();
  EXPECT_EQ(status.code(), StatusCode::OutOfMemory);
  EXPECT_NE(status.message().find("20971520 bytes"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("reserved_bytes="), std::string::npos);
  // Still usable.
  void *small = mgpuMemAlloc(1024, nullptr, false);
  EXPECT_NE(small, nullptr);
  mgpuMemFree(small, nullptr);
}

TEST_F(HostABITest, MemsetAndHostShared) {
  void *ptr = mgpuMemAlloc(64, nullptr, false);
  mgpuMemset32(ptr, 0xdeadbeef, 16, nullptr);
  // The fake's device memory is host memory.
  EXPECT_EQ(static_cast<uint32_t *>(ptr)[15], 0xdeadbeefu);
  mgpuMemFree(ptr, nullptr);
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, true), nullptr);
  EXPECT_NE(takeError().find("host-shared"), std::string::npos);
}

TEST_F(HostABITest, EventsAndStreamWaits) {
  void *stream = mgpuStreamCreate();
  void *event = mgpuEventCreate();
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(fake_cuda_count_calls("cuEventCreate"), 1u);
  EXPECT_EQ(fake_cuda_count_calls("cuStreamWaitEvent"), 1u);
  int64_t sizes[2] = {1, 1};
  mgpuMemHostRegisterMemRef(1, sizes, 4);
  mgpuMemHostUnregisterMemRef(1, sizes, 4);
}

TEST_F(HostABITest, UnavailableDeviceIsReported) {
  CudaOptions options;
  options.driverPath = "/nonexistent/libcuda.so.1";
  setCudaOptions(options);
  EXPECT_EQ(mgpuMemAlloc(16, nullptr, false), nullptr);
  Status status = takeLastError();
  EXPECT_EQ(status.code(), StatusCode::DeviceUnavailable);
  EXPECT_NE(status.message().find("no CUDA driver"), std::string::npos);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  takeLastError().ignore();
}

TEST_F(HostABITest, SetDefaultDevice) {
  mgpuSetDefaultDevice(3);
  EXPECT_EQ(mgpuMemAlloc(16, nullptr, false), nullptr);
  EXPECT_NE(takeError().find("ordinal 3 out of range"), std::string::npos);
  mgpuSetDefaultDevice(0);
  void *ptr = mgpuMemAlloc(16, nullptr, false);
  EXPECT_NE(ptr, nullptr);
  mgpuMemFree(ptr, nullptr);
}

TEST_F(HostABITest, CurrentCudaDeviceIsUsed) {
  setCurrentDevice(device);
  void *ptr = mgpuMemAlloc(16, nullptr, false);
  EXPECT_EQ(device->allocator().blockSize(ptr), 512u);
  mgpuMemFree(ptr, nullptr);
  setCurrentDevice(nullptr);
}

TEST_F(HostABITest, HostAllocationHooksUseTheHostAllocator) {
  CachingAllocator &host = getHostDevice().allocator();
  AllocatorStats before = host.stats();
  void *a = _mlir_memref_to_llvm_alloc(100);
  void *b = _mlir_memref_to_llvm_aligned_alloc(64, 1000);
  void *c = _mlir_memref_to_llvm_aligned_alloc(4096, 1000);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % 4096, 0u);
  std::memset(c, 1, 1000);
  AllocatorStats during = host.stats();
  EXPECT_EQ(during.num_allocs, before.num_allocs + 3);
  EXPECT_GT(during.allocated_bytes, before.allocated_bytes);
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
  _mlir_memref_to_llvm_free(nullptr);
  AllocatorStats after = host.stats();
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.num_frees, before.num_frees + 3);
  int local;
  _mlir_memref_to_llvm_free(&local);
  EXPECT_NE(takeError().find("unknown pointer"), std::string::npos);
}

TEST_F(HostABITest, AllocationFailedInARegionIsAnOutOfMemoryError) {
  takeLastError().ignore();
  jeetAllocationFailed(123456);
  Status status = takeLastError();
  EXPECT_EQ(status.code(), StatusCode::OutOfMemory);
  EXPECT_NE(status.message().find("123456 bytes"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("allocated_bytes="), std::string::npos)
      << status.message();
}
