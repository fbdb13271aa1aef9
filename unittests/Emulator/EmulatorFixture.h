//===- EmulatorFixture.h - The runtime's CudaDevice on the emulator -*- C++
//-*-===//
//
// Tests open the runtime's CudaDevice with CudaOptions::driverPath set to
// libjeet_cuda_emulator.so, load the test kernel objects through
// CudaDevice::loadModule (the path mgpuModuleLoad takes), and launch them
// through CudaDevice::launch, as JIT'ed host code does.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_UNITTESTS_EMULATOR_EMULATORFIXTURE_H
#define JEET_UNITTESTS_EMULATOR_EMULATORFIXTURE_H

#include "jeet/Emulator/Emulator.h"
#include "jeet/Runtime/CudaDevice.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace jeet {
namespace testing {

using namespace jeet::runtime;

inline std::vector<char> readFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(file), {});
}

inline std::string kernelObject(const std::string &name) {
  return std::string(JEET_EMULATOR_KERNELS) + "/jeet_emu_test_" + name + ".so";
}

/// Fresh random inputs, replayable: the seed is printed with any failure and
/// can be fixed with JEET_TEST_SEED.
inline unsigned testSeed() {
  if (const char *text = std::getenv("JEET_TEST_SEED"))
    return static_cast<unsigned>(std::strtoul(text, nullptr, 10));
  return std::random_device()();
}

inline std::vector<float> randomFloats(std::mt19937 &rng, size_t n,
                                       float low = -1.0f, float high = 1.0f) {
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(n);
  for (float &v : values)
    v = dist(rng);
  return values;
}

/// The emulator's own knobs (Emulator.h), found in the driver library.
struct EmulatorKnobs {
  explicit EmulatorKnobs(void *handle) {
    resolve(handle, "jeetEmulatorSetMemoryCapacity", setMemoryCapacity);
    resolve(handle, "jeetEmulatorSetChecks", setChecks);
    resolve(handle, "jeetEmulatorChecks", checks);
    resolve(handle, "jeetEmulatorGetStats", getStats);
    resolve(handle, "jeetEmulatorResetStats", resetStats);
  }
  template <typename F>
  static void resolve(void *handle, const char *name, F &fn) {
    fn = reinterpret_cast<F>(dlsym(handle, name));
  }
  JeetEmulatorStats stats() const {
    JeetEmulatorStats result{};
    getStats(&result);
    return result;
  }
  void (*setMemoryCapacity)(size_t) = nullptr;
  void (*setChecks)(int) = nullptr;
  int (*checks)() = nullptr;
  void (*getStats)(JeetEmulatorStats *) = nullptr;
  void (*resetStats)() = nullptr;
};

class EmulatorTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    CudaOptions options;
    options.driverPath = JEET_EMULATOR_PATH;
    StatusOr<std::unique_ptr<CudaDevice>> opened = CudaDevice::open(options);
    if (!opened.ok()) {
      openError() = opened.status().toString();
      return;
    }
    device = opened->release();
    knobs = new EmulatorKnobs(device->driver().handle);
  }
  static void TearDownTestSuite() {
    delete knobs;
    knobs = nullptr;
    delete device;
    device = nullptr;
  }
  static std::string &openError() {
    static std::string error;
    return error;
  }

  void SetUp() override {
    ASSERT_NE(device, nullptr) << openError();
    seed = testSeed();
    rng.seed(seed);
    start = device->allocator().stats();
  }
  void TearDown() override {
    if (HasFailure())
      std::fprintf(stderr, "random inputs: JEET_TEST_SEED=%u replays them\n",
                   seed);
    // Whatever a test did, the device and its allocator are as before.
    AllocatorStats now = device->allocator().stats();
    EXPECT_EQ(now.allocated_bytes, start.allocated_bytes)
        << "a test leaked device memory";
  }

  /// The module of test kernels `name` (Kernels/<name>.c), loaded once.
  CudaModule &module(const std::string &name) {
    static std::map<std::string, CudaModule *> modules;
    CudaModule *&slot = modules[name];
    if (!slot) {
      std::vector<char> bytes = readFile(kernelObject(name));
      StatusOr<CudaModule *> loaded = device->loadModule(
          bytes.data(), bytes.size(), ModuleFormat::Auto, name);
      EXPECT_TRUE(loaded.ok()) << loaded.status().toString();
      slot = loaded.ok() ? *loaded : nullptr;
    }
    return *slot;
  }

  CudaKernel &kernel(const std::string &moduleName, const std::string &name) {
    StatusOr<CudaKernel *> found = module(moduleName).getFunction(name);
    EXPECT_TRUE(found.ok()) << found.status().toString();
    return **found;
  }

  /// Launches on the device's stream and synchronises it: the launch's error,
  /// if any, with the emulator's report.
  Status run(const std::string &moduleName, const std::string &name, Dim3 grid,
             Dim3 block, std::vector<void *> params, unsigned sharedBytes = 0) {
    Status launched =
        device->launch(kernel(moduleName, name), grid, block, sharedBytes,
                       device->stream(), params.data());
    if (!launched.ok())
      return launched;
    return device->synchronizeStream(device->stream());
  }

  /// A device buffer from the runtime's allocator holding `values`.
  template <typename T> void *upload(const std::vector<T> &values) {
    StatusOr<void *> ptr =
        device->allocator().allocate(values.size() * sizeof(T));
    EXPECT_TRUE(ptr.ok()) << ptr.status().toString();
    EXPECT_TRUE(
        device->copyHostToDevice(*ptr, values.data(), values.size() * sizeof(T))
            .ok());
    return *ptr;
  }
  void *allocate(size_t bytes) {
    StatusOr<void *> ptr = device->allocator().allocate(bytes);
    EXPECT_TRUE(ptr.ok()) << ptr.status().toString();
    return *ptr;
  }
  template <typename T> std::vector<T> download(const void *ptr, size_t n) {
    std::vector<T> values(n);
    Status status = device->copyDeviceToHost(values.data(), ptr, n * sizeof(T));
    EXPECT_TRUE(status.ok()) << status.toString();
    return values;
  }
  void release(void *ptr) { EXPECT_TRUE(device->allocator().free(ptr).ok()); }

  /// After a fault: a correct launch still works and computes the right
  /// values (the process, the emulator and the allocator are usable).
  void expectNextLaunchWorks() {
    const int64_t n = 1000;
    std::vector<float> input = randomFloats(rng, n);
    void *in = upload(input);
    void *out = allocate(n * sizeof(float));
    float factor = 3.0f;
    int64_t count = n;
    Status status = run("Good", "scale", {(n + 255) / 256, 1, 1}, {256, 1, 1},
                        {&in, &out, &factor, &count});
    EXPECT_TRUE(status.ok()) << status.toString();
    std::vector<float> result = download<float>(out, n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(result[i], input[i] * factor) << "at " << i;
    release(in);
    release(out);
  }

  static CudaDevice *device;
  static EmulatorKnobs *knobs;
  unsigned seed = 0;
  std::mt19937 rng;
  AllocatorStats start;
};

inline CudaDevice *EmulatorTest::device = nullptr;
inline EmulatorKnobs *EmulatorTest::knobs = nullptr;

/// `text` contains every one of `parts`.
inline ::testing::AssertionResult
containsAll(const std::string &text, const std::vector<std::string> &parts) {
  for (const std::string &part : parts)
    if (text.find(part) == std::string::npos)
      return ::testing::AssertionFailure() << "missing \"" << part << "\" in:\n"
                                           << text;
  return ::testing::AssertionSuccess();
}

} // namespace testing
} // namespace jeet

#endif // JEET_UNITTESTS_EMULATOR_EMULATORFIXTURE_H
