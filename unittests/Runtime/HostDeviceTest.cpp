//===- HostDeviceTest.cpp - Host device, tensors, dtypes, registry --------===//

#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Execution.h"
#include "jeet/Runtime/Tensor.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

using namespace jeet::runtime;

TEST(DType, NamesSizesAndParsing) {
  EXPECT_STREQ(dtypeName(DType::F32), "f32");
  EXPECT_STREQ(dtypeName(DType::BF16), "bf16");
  EXPECT_STREQ(dtypeName(DType::I1), "i1");
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::I32), 4u);
  EXPECT_EQ(dtypeSize(DType::I64), 8u);
  EXPECT_EQ(dtypeSize(DType::I1), 1u);
  EXPECT_EQ(*parseDType("f32"), DType::F32);
  EXPECT_EQ(*parseDType("float32"), DType::F32);
  EXPECT_EQ(*parseDType("float16"), DType::F16);
  EXPECT_EQ(*parseDType("bfloat16"), DType::BF16);
  EXPECT_EQ(*parseDType("int64"), DType::I64);
  EXPECT_EQ(*parseDType("bool"), DType::I1);
  StatusOr<DType> bad = parseDType("f64");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(bad.status().message(),
            "unknown dtype 'f64' (expected f32, f16, bf16, i32, i64 or i1)");
}

// Every dtype parses back from both of its spellings (the compiler parses
// graph dtypes with the same table).
TEST(DType, EverySpellingParses) {
  for (DType dtype : kDTypes) {
    EXPECT_EQ(*parseDType(dtypeName(dtype)), dtype) << dtypeName(dtype);
    EXPECT_EQ(*parseDType(dtypeLongName(dtype)), dtype) << dtypeLongName(dtype);
  }
  EXPECT_STREQ(dtypeLongName(DType::BF16), "bfloat16");
  EXPECT_EQ(*parseDType("float"), DType::F32);
  EXPECT_EQ(*parseDType("half"), DType::F16);
}

TEST(DType, HalfAndBF16Conversions) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    EXPECT_EQ(halfToFloat(floatToHalf(v)), v) << v;
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_TRUE(std::isinf(halfToFloat(floatToHalf(1e6f))));
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  EXPECT_EQ(floatToBF16(1.0f), 0x3f80);
  EXPECT_EQ(bf16ToFloat(floatToBF16(-3.0f)), -3.0f);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(NAN))));
}

TEST(Status, CodesAndMessages) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.toString(), "Ok");
  Status error = outOfMemory("too big");
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.toString(), "OutOfMemory: too big");
  EXPECT_EQ(error.withContext("x").message(), "x: too big");
  EXPECT_STREQ(statusCodeName(StatusCode::DeviceUnavailable),
               "DeviceUnavailable");
  StatusOr<int> value = 3;
  EXPECT_TRUE(value.ok());
  EXPECT_EQ(*value, 3);
  StatusOr<int> failed = ioError("nope");
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::IoError);
}

TEST(HostDevice, NameKindAndCopies) {
  HostDevice host;
  EXPECT_EQ(host.name(), "host");
  EXPECT_EQ(host.kind(), DeviceKind::Host);
  char src[5] = "abcd", dst[5] = {0};
  ASSERT_TRUE(host.copyHostToDevice(dst, src, 5).ok());
  EXPECT_STREQ(dst, "abcd");
  ASSERT_TRUE(host.zero(dst, 4).ok());
  EXPECT_EQ(dst[0], 0);
  ASSERT_TRUE(host.synchronize().ok());
}

// JEET_POISON_HOST_MEMORY=1: the host allocator's blocks hold 0xFF bytes
// when handed out and again once freed, so a kernel reading a buffer before
// writing it or after freeing it reads NaN, not a stale value that may look
// right (an im2col's copies that read their input after its free gave right
// answers until then). Read when the backend is created; off by default.
TEST(HostDevice, PoisonedMemory) {
  auto bytesOf = [](void *ptr, size_t n) {
    return std::string(static_cast<const char *>(ptr), n);
  };
  const std::string poison(100, '\xff');
  // The test runs themselves may set it (scripts/run-tests.sh): put back.
  const char *set = std::getenv("JEET_POISON_HOST_MEMORY");
  std::string before = set ? set : "";
  ASSERT_EQ(unsetenv("JEET_POISON_HOST_MEMORY"), 0);
  {
    CachingAllocator plain(createHostAllocatorBackend(), "plain");
    StatusOr<void *> ptr = plain.allocate(100);
    ASSERT_TRUE(ptr.ok());
    std::memset(*ptr, 0, 100);
    ASSERT_TRUE(plain.free(*ptr).ok());
    EXPECT_NE(bytesOf(*ptr, 100), poison);
  }
  ASSERT_EQ(setenv("JEET_POISON_HOST_MEMORY", "1", 1), 0);
  CachingAllocator poisoned(createHostAllocatorBackend(), "poisoned");
  ASSERT_EQ(set ? setenv("JEET_POISON_HOST_MEMORY", before.c_str(), 1)
                : unsetenv("JEET_POISON_HOST_MEMORY"),
            0);
  StatusOr<void *> ptr = poisoned.allocate(100);
  ASSERT_TRUE(ptr.ok());
  EXPECT_EQ(bytesOf(*ptr, 100), poison);
  float value;
  std::memcpy(&value, *ptr, sizeof(value));
  EXPECT_TRUE(std::isnan(value));
  std::memset(*ptr, 0, 100);
  // Freed, the block stays in the allocator's cache, filled again.
  ASSERT_TRUE(poisoned.free(*ptr).ok());
  EXPECT_EQ(bytesOf(*ptr, 100), poison);
  // Handed out again: filled, whatever was written into it.
  StatusOr<void *> again = poisoned.allocate(100);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(bytesOf(*again, 100), poison);
  EXPECT_TRUE(poisoned.free(*again).ok());
}

namespace {
/// Stands in for a compiled entry of one input and one output of 4 floats
/// and an arena of intermediates: writes the arena's first float into the
/// output (a read before any write), then 42 into the arena.
void readArenaThenWrite(void **args) {
  // Each argument is a memref descriptor of five fields (allocated and
  // aligned pointers, offset, size, stride): the input's are args[0-4], the
  // output's args[5-9], the arena's args[10-14].
  auto *out = reinterpret_cast<float *>(*static_cast<int64_t *>(args[6]));
  auto *arena = reinterpret_cast<float *>(*static_cast<int64_t *>(args[11]));
  for (int i = 0; i < 4; ++i)
    out[i] = arena[0];
  arena[0] = 42.0f;
}
} // namespace

// The arena of intermediates stays in the entry's pool between executions:
// with JEET_POISON_HOST_MEMORY it is filled again each time an execution
// takes it, as a fresh block is, so a read before a write gives NaN every
// time, not what the execution before left there (the right value when the
// inputs are the same).
TEST(HostDevice, ArenaPoisonedForEachExecution) {
  const char *set = std::getenv("JEET_POISON_HOST_MEMORY");
  std::string before = set ? set : "";
  for (bool poison : {false, true}) {
    ASSERT_EQ(poison ? setenv("JEET_POISON_HOST_MEMORY", "1", 1)
                     : unsetenv("JEET_POISON_HOST_MEMORY"),
              0);
    HostDevice host;
    EntryInfo info;
    info.label = "arena";
    info.inputs = {TensorType{{4}, DType::F32}};
    info.outputs = {TensorType{{4}, DType::F32}};
    info.arenaBytes = 16;
    CompiledEntry entry(info, readArenaThenWrite, host);
    ASSERT_EQ(set ? setenv("JEET_POISON_HOST_MEMORY", before.c_str(), 1)
                  : unsetenv("JEET_POISON_HOST_MEMORY"),
              0);
    float in[4] = {0, 0, 0, 0}, out[4] = {0, 0, 0, 0};
    for (int run = 0; run < 3; ++run) {
      Status status = entry.runPointers({in}, {out});
      ASSERT_TRUE(status.ok()) << status.toString();
      if (poison) {
        EXPECT_TRUE(std::isnan(out[0])) << "run " << run << ": " << out[0];
      } else if (run > 0) {
        EXPECT_EQ(out[0], 42.0f) << "run " << run;
      }
    }
    EXPECT_EQ(entry.numArenas(), 1u);
  }
}

TEST(Tensor, CreateCopyAndRelease) {
  HostDevice host;
  float values[6] = {1, 2, 3, 4, 5, 6};
  {
    StatusOr<Tensor> tensor =
        Tensor::fromHost(host, {2, 3}, DType::F32, values, sizeof(values));
    ASSERT_TRUE(tensor.ok()) << tensor.status().toString();
    EXPECT_EQ(tensor->numElements(), 6);
    EXPECT_EQ(tensor->byteSize(), 24u);
    EXPECT_EQ(tensor->rank(), 2);
    EXPECT_EQ(tensor->typeString(), "2x3xf32");
    EXPECT_EQ(tensor->device(), &host);
    EXPECT_EQ(host.allocator().stats().allocated_bytes, 512u);

    Tensor shared = *tensor; // shares the buffer
    EXPECT_EQ(shared.data(), tensor->data());
    EXPECT_EQ(host.allocator().stats().num_allocs, 1u);

    StatusOr<Tensor> copy = tensor->to(host);
    ASSERT_TRUE(copy.ok());
    EXPECT_NE(copy->data(), tensor->data());
    float back[6] = {0};
    ASSERT_TRUE(copy->toHost(back, sizeof(back)).ok());
    EXPECT_EQ(back[5], 6);
    EXPECT_EQ(copy->toHost(back, 4).code(), StatusCode::InvalidArgument);
  }
  AllocatorStats stats = host.allocator().stats();
  EXPECT_EQ(stats.allocated_bytes, 0u);
  EXPECT_EQ(stats.num_frees, 2u);
}

TEST(Tensor, ZerosScalarsAndErrors) {
  HostDevice host;
  StatusOr<Tensor> zeros = Tensor::zeros(host, {3}, DType::I64);
  ASSERT_TRUE(zeros.ok());
  int64_t values[3] = {1, 1, 1};
  ASSERT_TRUE(zeros->toHost(values, sizeof(values)).ok());
  EXPECT_EQ(values[0] + values[1] + values[2], 0);
  StatusOr<Tensor> scalar = Tensor::zeros(host, {}, DType::F32);
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->numElements(), 1);
  EXPECT_EQ(scalar->typeString(), "f32");
  StatusOr<Tensor> empty = Tensor::zeros(host, {0, 4}, DType::F32);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->byteSize(), 0u);
  EXPECT_FALSE(Tensor::empty(host, {-1}, DType::F32).ok());
  float one = 1;
  StatusOr<Tensor> wrong = Tensor::fromHost(host, {2}, DType::F32, &one, 4);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("2xf32 needs 8 bytes, 4 given"),
            std::string::npos);
}

TEST(Registry, HostIsDefaultCurrentDevice) {
  EXPECT_EQ(&currentDevice(), &getHostDevice());
  HostDevice other;
  setCurrentDevice(&other);
  EXPECT_EQ(&currentDevice(), &other);
  std::thread([] { EXPECT_EQ(&currentDevice(), &getHostDevice()); }).join();
  setCurrentDevice(nullptr);
  EXPECT_EQ(&currentDevice(), &getHostDevice());
}

TEST(Registry, ListsDevicesWithReasons) {
  CudaOptions options;
  options.driverPath = "/nonexistent/libcuda.so.1";
  setCudaOptions(options);
  std::vector<DeviceInfo> devices = listDevices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].name, "host");
  EXPECT_TRUE(devices[0].available);
  EXPECT_EQ(devices[1].name, "cuda:0");
  EXPECT_FALSE(devices[1].available);
  EXPECT_NE(devices[1].reason.find(
                "no CUDA driver: dlopen /nonexistent/libcuda.so.1 failed: "),
            std::string::npos)
      << devices[1].reason;
  // The failure is remembered.
  StatusOr<CudaDevice *> cuda = getCudaDevice();
  ASSERT_FALSE(cuda.ok());
  EXPECT_EQ(cuda.status().code(), StatusCode::DeviceUnavailable);
  EXPECT_EQ(cuda.status().message(), devices[1].reason);

  options.driverPath = JEET_FAKE_CUDA_PATH;
  setCudaOptions(options);
  devices = listDevices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_TRUE(devices[1].available) << devices[1].reason;
  EXPECT_EQ(devices[1].description, "Fake CUDA Device, sm_90, driver 13.0");
  setCudaOptions(CudaOptions());
}

TEST(Registry, DefaultDriverWithoutGpu) {
  // On this project's build machines there is no driver; where there is one
  // the device must be usable.
  setCudaOptions(CudaOptions());
  StatusOr<CudaDevice *> cuda = getCudaDevice();
  if (!cuda.ok()) {
    EXPECT_EQ(cuda.status().code(), StatusCode::DeviceUnavailable);
    EXPECT_FALSE(cuda.status().message().empty());
  }
}
