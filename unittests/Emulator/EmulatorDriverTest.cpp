//===- EmulatorDriverTest.cpp - The emulator as a driver ------------------===//
//
// The device it describes, module images it accepts and refuses (and the
// real-driver path refusing emulator objects), deferred work on streams and
// events, device memory and launch validation.
//
//===----------------------------------------------------------------------===//

#include "EmulatorFixture.h"
#include "FakeCuda.h"

#include <algorithm>
#include <cstdio>

using namespace jeet::testing;

namespace {
const char *kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry scale(.param .u64 a) { ret; }
)";
} // namespace

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

TEST_F(EmulatorTest, DescribesItselfAsTheEmulator) {
  EXPECT_TRUE(device->isEmulator());
  EXPECT_TRUE(device->isEmulated());
  EXPECT_EQ(device->name(), "cuda:0");
  EXPECT_EQ(device->deviceName(), "Jeet GPU emulator (CPU)");
  EXPECT_EQ(device->computeCapability(), 90);
  EXPECT_EQ(device->driverVersion(), 13000);
  EXPECT_EQ(device->description(),
            "Jeet GPU emulator (CPU), sm_90, driver 13.0 (emulated: kernels "
            "run on the host CPU; no GPU speed)");
}

TEST(EmulatorRegistry, SelectedByTheEnvironment) {
  // JEET_CUDA_DRIVER picks the driver for the process-wide devices, and the
  // device list says what it is.
  ASSERT_EQ(setenv("JEET_CUDA_DRIVER", JEET_EMULATOR_PATH, 1), 0);
  std::vector<DeviceInfo> devices = listDevices();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1].name, "cuda:0");
  EXPECT_TRUE(devices[1].available) << devices[1].reason;
  EXPECT_TRUE(devices[1].emulated);
  EXPECT_NE(devices[1].description.find("Jeet GPU emulator"),
            std::string::npos);
  EXPECT_FALSE(devices[0].emulated);
  StatusOr<CudaDevice *> cuda = getCudaDevice(0);
  ASSERT_TRUE(cuda.ok());
  EXPECT_TRUE((*cuda)->isEmulator());
}

TEST(EmulatorOnARealDriver, FakeDriverIsNotTheEmulator) {
  fake_cuda_reset();
  CudaOptions options;
  options.driverPath = JEET_FAKE_CUDA_PATH;
  StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::open(options);
  ASSERT_TRUE(device.ok()) << device.status().toString();
  EXPECT_FALSE((*device)->isEmulator());
  EXPECT_FALSE((*device)->isEmulated());
}

TEST(EmulatorOnARealDriver, EmulatorObjectIsRefusedBeforeTheDriverSeesIt) {
  // The fake driver stands for a real one.
  fake_cuda_reset();
  CudaOptions options;
  options.driverPath = JEET_FAKE_CUDA_PATH;
  StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::open(options);
  ASSERT_TRUE(device.ok()) << device.status().toString();
  std::vector<char> object = readFile(kernelObject("Good"));
  ASSERT_FALSE(object.empty());
  fake_cuda_clear_log();
  StatusOr<CudaModule *> module = (*device)->loadModule(
      object.data(), object.size(), ModuleFormat::Auto, "graph0");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(module.status().message(),
            "module 'graph0' was compiled for the Jeet GPU emulator (x86-64 "
            "host code), not for this GPU (Fake CUDA Device, sm_90, driver "
            "13.0); compile with target=ptx, or run it on the emulator "
            "(JEET_CUDA_DRIVER=<build>/lib/libjeet_cuda_emulator.so)");
  EXPECT_EQ(fake_cuda_count_calls("cuModuleLoadDataEx"), 0u);
}

//===----------------------------------------------------------------------===//
// Module images
//===----------------------------------------------------------------------===//

TEST_F(EmulatorTest, ModuleInfoLogNamesTheKernels) {
  EXPECT_EQ(module("Good").infoLog(),
            "Jeet GPU emulator: loaded 6 kernel(s) for the host CPU: "
            "bytes_interleaved, row_sum, scale, shuffle_modes, sum4, "
            "transpose");
}

TEST_F(EmulatorTest, PtxIsRefusedWithWhatToDo) {
  StatusOr<CudaModule *> module = device->loadPtx(kPtx, "graph1");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), StatusCode::DriverError);
  EXPECT_TRUE(containsAll(
      module.status().message(),
      {"cuModuleLoadDataEx failed for module 'graph1' (PTX",
       "CUDA_ERROR_INVALID_IMAGE",
       "this is PTX; the Jeet GPU emulator runs modules compiled with "
       "jeet-gpu-pipeline{target=emulator}",
       "compile with target=emulator"}));
}

TEST_F(EmulatorTest, CubinAndFatbinAreRefused) {
  // An ELF header for NVIDIA GPUs (e_machine 190, EM_CUDA).
  std::vector<unsigned char> cubin(64, 0);
  const unsigned char ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::copy(std::begin(ident), std::end(ident), cubin.begin());
  cubin[16] = 2;   // ET_EXEC
  cubin[18] = 190; // EM_CUDA
  StatusOr<CudaModule *> module =
      device->loadModule(cubin.data(), cubin.size(), ModuleFormat::Auto, "k");
  ASSERT_FALSE(module.ok());
  EXPECT_TRUE(containsAll(module.status().message(),
                          {"(cubin, 64 bytes)", "CUDA_ERROR_NO_BINARY_FOR_GPU",
                           "this is a cubin (ELF for NVIDIA GPUs); the Jeet "
                           "GPU emulator runs modules compiled with"}));
  const unsigned char fatbin[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 0x10, 0};
  module = device->loadModule(fatbin, sizeof(fatbin), ModuleFormat::Auto, "k");
  ASSERT_FALSE(module.ok());
  EXPECT_TRUE(containsAll(module.status().message(),
                          {"(fatbin, 16 bytes)", "this is a fatbin"}));
  const char junk[] = "\x01\x02 not a module";
  module = device->loadModule(junk, sizeof(junk), ModuleFormat::Cubin, "k");
  ASSERT_FALSE(module.ok());
  EXPECT_TRUE(containsAll(module.status().message(),
                          {"CUDA_ERROR_INVALID_IMAGE",
                           "not a module image the emulator knows (first "
                           "bytes: 01 02 20 6e 6f 74 20 61)"}));
}

TEST_F(EmulatorTest, HostObjectWithoutTheAbiIsRefused) {
  std::vector<char> object = readFile(kernelObject("NoAbi"));
  ASSERT_FALSE(object.empty());
  StatusOr<CudaModule *> module = device->loadModule(
      object.data(), object.size(), ModuleFormat::Auto, "noabi");
  ASSERT_FALSE(module.ok());
  EXPECT_TRUE(containsAll(module.status().message(),
                          {"(emulator object, ",
                           "this host shared object lacks "
                           "__jeet_emu_abi_version, so it was not compiled "
                           "for the emulator"}));
}

TEST_F(EmulatorTest, MissingKernelNamesTheOnesThere) {
  StatusOr<CudaKernel *> kernel = module("Good").getFunction("nope");
  ASSERT_FALSE(kernel.ok());
  EXPECT_TRUE(containsAll(
      kernel.status().message(),
      {"cuModuleGetFunction failed for kernel 'nope' in module 'Good'",
       "CUDA_ERROR_NOT_FOUND",
       "the emulator object has no kernel 'nope' (it defines: "
       "bytes_interleaved, row_sum, scale, shuffle_modes, sum4, "
       "transpose)"}));
}

TEST_F(EmulatorTest, ModulesLoadAndUnloadRepeatedly) {
  std::vector<char> object = readFile(kernelObject("Elementwise"));
  for (int i = 0; i < 3; ++i) {
    StatusOr<CudaModule *> loaded = device->loadModule(
        object.data(), object.size(), ModuleFormat::Auto, "ew");
    ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
    StatusOr<CudaKernel *> kernel = (*loaded)->getFunction("ew_chain10");
    ASSERT_TRUE(kernel.ok()) << kernel.status().toString();
    ASSERT_TRUE(device->unloadModule(*loaded).ok());
  }
}

//===----------------------------------------------------------------------===//
// Streams and events: deferred work
//===----------------------------------------------------------------------===//

namespace {
/// Device memory as it is now, read behind the runtime's back (the driver's
/// synchronous copy does not wait for the runtime's non-blocking streams).
std::vector<float> peek(CudaDevice &device, const void *ptr, size_t n) {
  std::vector<float> values(n);
  EXPECT_EQ(device.driver().cuMemcpyDtoH_v2(
                values.data(),
                static_cast<cu::CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr)),
                n * sizeof(float)),
            0);
  return values;
}

bool allPoison(const std::vector<float> &values) {
  for (float v : values) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    if (bits != 0xffffffffu)
      return false;
  }
  return true;
}
} // namespace

TEST_F(EmulatorTest, AsyncWorkCompletesAtSynchronisation) {
  const int64_t n = 512;
  std::vector<float> input = randomFloats(rng, n);
  void *in = allocate(n * sizeof(float));
  void *out = allocate(n * sizeof(float));
  // Fresh blocks hold a poison pattern (NaN): nothing has written them.
  EXPECT_TRUE(allPoison(peek(*device, in, n)));
  StatusOr<void *> stream = device->createStream();
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(
      device->copyAsync(in, input.data(), n * sizeof(float), *stream).ok());
  // The copy's source is read when it is queued, as for pageable memory.
  std::vector<float> original = input;
  std::fill(input.begin(), input.end(), 0.0f);
  float factor = 0.5f;
  int64_t count = n;
  void *params[] = {&in, &out, &factor, &count};
  ASSERT_TRUE(device
                  ->launch(kernel("Good", "scale"), {2, 1, 1}, {256, 1, 1}, 0,
                           *stream, params)
                  .ok());
  EXPECT_TRUE(allPoison(peek(*device, in, n))) << "the copy ran early";
  EXPECT_TRUE(allPoison(peek(*device, out, n))) << "the launch ran early";
  ASSERT_TRUE(device->synchronizeStream(*stream).ok());
  std::vector<float> result = peek(*device, out, n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(result[i], original[i] * factor) << i;
  ASSERT_TRUE(device->destroyStream(*stream).ok());
  release(in);
  release(out);
}

TEST_F(EmulatorTest, EventSynchronisesUpToItsRecord) {
  const int64_t n = 256;
  std::vector<float> input = randomFloats(rng, n);
  void *in = upload(input);
  void *first = allocate(n * sizeof(float));
  void *second = allocate(n * sizeof(float));
  void *stream = device->stream();
  void *start = *device->createEvent();
  void *middle = *device->createEvent();
  float factor = 2.0f;
  int64_t count = n;
  void *params1[] = {&in, &first, &factor, &count};
  void *params2[] = {&in, &second, &factor, &count};
  CudaKernel &scale = kernel("Good", "scale");
  ASSERT_TRUE(device->recordEvent(start, stream).ok());
  ASSERT_TRUE(
      device->launch(scale, {1, 1, 1}, {256, 1, 1}, 0, stream, params1).ok());
  ASSERT_TRUE(device->recordEvent(middle, stream).ok());
  ASSERT_TRUE(
      device->launch(scale, {1, 1, 1}, {256, 1, 1}, 0, stream, params2).ok());
  ASSERT_TRUE(device->synchronizeEvent(middle).ok());
  EXPECT_EQ(peek(*device, first, n)[7], input[7] * factor);
  EXPECT_TRUE(allPoison(peek(*device, second, n)))
      << "work after the event ran";
  StatusOr<float> ms = device->elapsedMs(start, middle);
  ASSERT_TRUE(ms.ok()) << ms.status().toString();
  EXPECT_GE(*ms, 0.0f);
  ASSERT_TRUE(device->synchronizeStream(stream).ok());
  EXPECT_EQ(peek(*device, second, n)[7], input[7] * factor);
  ASSERT_TRUE(device->destroyEvent(start).ok());
  ASSERT_TRUE(device->destroyEvent(middle).ok());
  release(in);
  release(first);
  release(second);
}

TEST_F(EmulatorTest, StreamWaitsForAnEventOfAnother) {
  const int64_t n = 256;
  std::vector<float> input = randomFloats(rng, n);
  void *in = upload(input);
  void *mid = allocate(n * sizeof(float));
  void *out = allocate(n * sizeof(float));
  void *producer = *device->createStream();
  void *consumer = *device->createStream();
  void *ready = *device->createEvent(/*timing=*/false);
  float factor = 4.0f;
  int64_t count = n;
  void *params[] = {&in, &mid, &factor, &count};
  ASSERT_TRUE(device
                  ->launch(kernel("Good", "scale"), {1, 1, 1}, {256, 1, 1}, 0,
                           producer, params)
                  .ok());
  ASSERT_TRUE(device->recordEvent(ready, producer).ok());
  ASSERT_TRUE(device->streamWaitEvent(consumer, ready).ok());
  ASSERT_TRUE(device->copyAsync(out, mid, n * sizeof(float), consumer).ok());
  // Synchronising the consumer runs the producer's work it waits for.
  ASSERT_TRUE(device->synchronizeStream(consumer).ok());
  EXPECT_EQ(peek(*device, out, n)[n - 1], input[n - 1] * factor);
  ASSERT_TRUE(device->destroyEvent(ready).ok());
  ASSERT_TRUE(device->destroyStream(producer).ok());
  ASSERT_TRUE(device->destroyStream(consumer).ok());
  release(in);
  release(mid);
  release(out);
}

TEST_F(EmulatorTest, FaultSkipsTheRestOfTheStreamUntilReported) {
  const int64_t n = 1000;
  void *in = upload(randomFloats(rng, n));
  void *out = allocate(n * sizeof(float));
  void *after = allocate(n * sizeof(float));
  void *stream = device->stream();
  int64_t count = n;
  float factor = 1.0f;
  void *bad[] = {&in, &out, &count};
  void *good[] = {&in, &after, &factor, &count};
  ASSERT_TRUE(device
                  ->launch(kernel("Bugs", "oob_off_by_one"), {4, 1, 1},
                           {256, 1, 1}, 0, stream, bad)
                  .ok());
  ASSERT_TRUE(device
                  ->launch(kernel("Good", "scale"), {4, 1, 1}, {256, 1, 1}, 0,
                           stream, good)
                  .ok());
  Status status = device->synchronizeStream(stream);
  EXPECT_NE(status.message().find("oob_off_by_one"), std::string::npos)
      << status.toString();
  // As on a GPU whose context faulted, the work queued behind the fault did
  // not run; unlike one, the stream works again once the error is reported.
  EXPECT_TRUE(allPoison(peek(*device, after, n)));
  EXPECT_TRUE(device->synchronizeStream(stream).ok());
  release(in);
  release(out);
  release(after);
  expectNextLaunchWorks();
}

//===----------------------------------------------------------------------===//
// Memory and launch validation
//===----------------------------------------------------------------------===//

TEST_F(EmulatorTest, OutOfMemoryAtTheConfiguredCapacity) {
  StatusOr<std::pair<size_t, size_t>> before = device->memInfo();
  ASSERT_TRUE(before.ok());
  knobs->setMemoryCapacity(64 << 20);
  StatusOr<std::pair<size_t, size_t>> info = device->memInfo();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->second, size_t(64) << 20);
  StatusOr<void *> big = device->allocator().allocate(100 << 20);
  knobs->setMemoryCapacity(0);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::OutOfMemory);
  EXPECT_TRUE(containsAll(big.status().message(),
                          {"CUDA_ERROR_OUT_OF_MEMORY",
                           "bytes of the emulated device are in use (the "
                           "capacity is set by JEET_EMULATOR_MEMORY)"}));
  EXPECT_EQ(device->memInfo()->second, before->second);
  expectNextLaunchWorks();
}

TEST_F(EmulatorTest, LaunchesAreValidatedAsByTheDriver) {
  void *in = allocate(1024), *out = allocate(1024);
  float factor = 1.0f;
  int64_t count = 0;
  void *params[] = {&in, &out, &factor, &count};
  CudaKernel &scale = kernel("Good", "scale");
  Status status = device->launch(scale, {1, 1, 1}, {2048, 1, 1}, 0,
                                 device->stream(), params);
  EXPECT_TRUE(containsAll(status.message(),
                          {"CUDA_ERROR_INVALID_VALUE",
                           "launch of 'scale': block x = 2048 (1 to 1024)"}));
  status = device->launch(scale, {1, 1, 1}, {32, 1, 1}, 64 << 10,
                          device->stream(), params);
  EXPECT_TRUE(containsAll(status.message(),
                          {"CUDA_ERROR_INVALID_VALUE",
                           "needs 65536 bytes of shared memory per block"}));
  status = device->launch(scale, {1, 1, 1}, {32, 1, 1}, 0, device->stream(),
                          nullptr);
  EXPECT_TRUE(
      containsAll(status.message(), {"takes 4 parameters; none given"}));
  EXPECT_TRUE(device->synchronize().ok());
  release(in);
  release(out);
}

TEST_F(EmulatorTest, CopiesOutsideDeviceMemoryAreRefused) {
  std::vector<char> host(64), other(64);
  Status status = device->copyHostToDevice(host.data(), other.data(), 64);
  EXPECT_TRUE(containsAll(status.message(),
                          {"CUDA_ERROR_INVALID_VALUE",
                           "cuMemcpyHtoD: the destination (64 bytes at",
                           "are not device memory"}));
}
