//===- GpuEmulatorTest.cpp - Compiled GPU code on the GPU emulator --------===//
//
// Part of the Jeet project.
//
// The chain compiler -> runtime -> emulator, in one process:
// - a graph compiled for the GPU (gpuTarget "auto" resolves to the emulation
//   target on the emulated device) runs twice through the runtime with the
//   numbers of a float64 reference, one launch per kernel, the second
//   execution served by the allocator's pool, nothing leaked;
// - kernels with planted bugs, written as gpu.func and compiled by Jeet's
//   GPU codegen stage for the emulation target (the same lowering as Jeet's
//   own kernels), are reported by the emulator: a missing barrier, an
//   off-by-one index, a divergent barrier; the correct twin runs clean.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Compiler.h"
#include "jeet/InitAllJeet.h"
#include "jeet/Pipelines/GpuPipeline.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Tensor.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace jeet;

namespace {

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

/// The process's CUDA device, on the emulator (the registry opens it once).
runtime::CudaDevice &emulatedDevice() {
  static runtime::CudaDevice *device = [] {
    runtime::CudaOptions options;
    options.driverPath = JEET_EMULATOR_PATH;
    runtime::setCudaOptions(options);
    auto cuda = runtime::getCudaDevice();
    if (!cuda.ok()) {
      ADD_FAILURE() << cuda.status().toString();
      return static_cast<runtime::CudaDevice *>(nullptr);
    }
    runtime::setCurrentDevice(*cuda);
    return *cuda;
  }();
  return *device;
}

std::vector<float> randomFloats(std::mt19937 &rng, size_t n) {
  std::normal_distribution<float> normal;
  std::vector<float> values(n);
  for (float &v : values)
    v = normal(rng);
  return values;
}

//===----------------------------------------------------------------------===//
// A compiled graph
//===----------------------------------------------------------------------===//

// matmul + bias + relu (one kernel), then softmax (one kernel: a
// multi-reduction group, blocks of 8 rows with a partial last one), with
// sizes off the 64x64 matmul tile and K two K-tiles and a half long.
constexpr int64_t kRows = 67, kDepth = 40, kCols = 45;
constexpr int64_t kGraphKernels = 2;
const char *kGraph = R"mlir(
func.func @main(%x: tensor<67x40xf32>, %w: tensor<40x45xf32>,
                %b: tensor<45xf32>) -> tensor<67x45xf32> {
  %0 = jeet.matmul %x, %w : tensor<67x40xf32>, tensor<40x45xf32> -> tensor<67x45xf32>
  %1 = jeet.add %0, %b : tensor<67x45xf32>, tensor<45xf32> -> tensor<67x45xf32>
  %2 = jeet.relu %1 : tensor<67x45xf32>
  %3 = jeet.softmax %2 {axis = 1 : i64} : tensor<67x45xf32>
  return %3 : tensor<67x45xf32>
}
)mlir";

/// softmax(relu(x @ w + b)) along rows, in double.
std::vector<double> reference(const std::vector<float> &x,
                              const std::vector<float> &w,
                              const std::vector<float> &b) {
  std::vector<double> out(kRows * kCols);
  for (int64_t i = 0; i < kRows; ++i) {
    double *row = &out[i * kCols];
    double max = -INFINITY;
    for (int64_t j = 0; j < kCols; ++j) {
      double sum = b[j];
      for (int64_t k = 0; k < kDepth; ++k)
        sum += double(x[i * kDepth + k]) * double(w[k * kCols + j]);
      row[j] = std::max(sum, 0.0);
      max = std::max(max, row[j]);
    }
    double total = 0;
    for (int64_t j = 0; j < kCols; ++j)
      total += row[j] = std::exp(row[j] - max);
    for (int64_t j = 0; j < kCols; ++j)
      row[j] /= total;
  }
  return out;
}

runtime::Tensor upload(runtime::Device &device,
                       const std::vector<int64_t> &shape,
                       const std::vector<float> &values) {
  auto tensor = runtime::Tensor::empty(device, shape, runtime::DType::F32);
  EXPECT_TRUE(tensor.ok()) << tensor.status().toString();
  EXPECT_TRUE(device
                  .copyHostToDevice(tensor->data(), values.data(),
                                    values.size() * sizeof(float))
                  .ok());
  return std::move(*tensor);
}

TEST(GpuEmulator, CompiledGraphRunsWithTheNumbersOfTheReference) {
  runtime::CudaDevice &device = emulatedDevice();
  ASSERT_TRUE(device.isEmulated());
  unsigned seed = std::random_device()();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);

  std::vector<float> x = randomFloats(rng, kRows * kDepth);
  std::vector<float> w = randomFloats(rng, kDepth * kCols);
  std::vector<float> b = randomFloats(rng, kCols);
  std::vector<runtime::Tensor> tensors;
  tensors.push_back(upload(device, {kRows, kDepth}, x));
  tensors.push_back(upload(device, {kDepth, kCols}, w));
  tensors.push_back(upload(device, {kCols}, b));
  auto out =
      runtime::Tensor::empty(device, {kRows, kCols}, runtime::DType::F32);
  ASSERT_TRUE(out.ok());
  std::vector<const void *> inputs;
  for (const runtime::Tensor &t : tensors)
    inputs.push_back(t.data());
  std::vector<void *> outputs = {out->data()};
  std::vector<double> expected = reference(x, w, b);

  // With CUDA graphs the emulator replays the kernels the first execution
  // launched; without, each execution launches them. Same numbers.
  for (bool cudaGraphs : {true, false}) {
    SCOPED_TRACE(cudaGraphs ? "CUDA graphs on" : "CUDA graphs off");
    CompileOptions options;
    options.device = "gpu";
    options.cudaGraphs = cudaGraphs;
    Compiler compiler;
    auto compiled = compiler.compile(kGraph, "graph.mlir", options);
    ASSERT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    const Executable &exe = **compiled;
    // "auto" compiled for the device it found: the emulator.
    EXPECT_EQ(exe.options().gpuTarget, "emulator");
    ASSERT_EQ(exe.numKernels(), kGraphKernels);

    uint64_t allocatedBefore = device.allocator().stats().allocated_bytes;
    uint64_t withArena = 0;
    for (int execution = 0; execution < 3; ++execution) {
      SCOPED_TRACE("execution " + std::to_string(execution));
      runtime::ExecutionStats before = device.executionStats();
      uint64_t mallocsBefore = device.allocator().stats().device_mallocs;
      ASSERT_TRUE(device.zero(out->data(), out->byteSize()).ok());
      ASSERT_FALSE(static_cast<bool>(exe.run(inputs, outputs)));
      runtime::ExecutionStats after = device.executionStats();
      bool replayed = cudaGraphs && execution > 0;
      EXPECT_EQ(after.kernels_launched - before.kernels_launched,
                replayed ? 0u : uint64_t(kGraphKernels));
      EXPECT_EQ(after.graph_launches - before.graph_launches,
                replayed ? 1u : 0u);
      // The first execution allocates the arena of intermediates; later
      // ones allocate nothing.
      uint64_t allocated = device.allocator().stats().allocated_bytes;
      if (execution == 0) {
        withArena = allocated;
        EXPECT_GE(allocated - allocatedBefore,
                  static_cast<uint64_t>(exe.memoryPlan().arenaBytes));
      } else {
        EXPECT_EQ(device.allocator().stats().device_mallocs, mallocsBefore);
        EXPECT_EQ(allocated, withArena);
      }

      std::vector<float> result(kRows * kCols);
      ASSERT_TRUE(device
                      .copyDeviceToHost(result.data(), out->data(),
                                        result.size() * sizeof(float))
                      .ok());
      for (size_t i = 0; i < result.size(); ++i)
        ASSERT_NEAR(result[i], expected[i], 1e-5 + 1e-4 * std::abs(expected[i]))
            << "at " << i / kCols << "," << i % kCols;
    }
  }
}

//===----------------------------------------------------------------------===//
// Planted bugs, compiled by Jeet
//===----------------------------------------------------------------------===//

constexpr unsigned kBlock = 256;
const char *kKernels = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @planted {
    // out[t] = in[(t + 1) % 256] through shared memory: stage, barrier,
    // read the neighbour's element.
    gpu.func @shift(%in: memref<256xf32>, %out: memref<256xf32>)
        workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel {
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %t = gpu.thread_id x
      %v = memref.load %in[%t] : memref<256xf32>
      memref.store %v, %tile[%t] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %next = arith.addi %t, %c1 : index
      %n = arith.remui %next, %c256 : index
      %w = memref.load %tile[%n] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%t] : memref<256xf32>
      gpu.return
    }
    // The same without the barrier: a thread reads its neighbour's element
    // in the interval in which the neighbour writes it.
    gpu.func @shift_missing_barrier(%in: memref<256xf32>, %out: memref<256xf32>)
        workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>)
        kernel {
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %t = gpu.thread_id x
      %v = memref.load %in[%t] : memref<256xf32>
      memref.store %v, %tile[%t] : memref<256xf32, #gpu.address_space<workgroup>>
      %next = arith.addi %t, %c1 : index
      %n = arith.remui %next, %c256 : index
      %w = memref.load %tile[%n] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%t] : memref<256xf32>
      gpu.return
    }
    // out[i] = 2 in[i] for i <= n: one element past the end.
    gpu.func @scale_off_by_one(%in: memref<?xf32>, %out: memref<?xf32>,
                               %n: index) kernel {
      %two = arith.constant 2.0 : f32
      %b = gpu.block_id x
      %d = gpu.block_dim x
      %t = gpu.thread_id x
      %base = arith.muli %b, %d : index
      %i = arith.addi %base, %t : index
      %inside = arith.cmpi ule, %i, %n : index
      scf.if %inside {
        %v = memref.load %in[%i] : memref<?xf32>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
    // A barrier inside a branch that half of the block takes.
    gpu.func @divergent_barrier(%out: memref<256xf32>) kernel {
      %c128 = arith.constant 128 : index
      %one = arith.constant 1.0 : f32
      %t = gpu.thread_id x
      %low = arith.cmpi ult, %t, %c128 : index
      scf.if %low {
        gpu.barrier
      }
      memref.store %one, %out[%t] : memref<256xf32>
      gpu.return
    }
  }
}
)mlir";

/// A 1-D memref as the kernels take it: allocated and aligned pointers,
/// offset, size, stride (one kernel parameter each).
struct MemRef1D {
  void *allocated, *aligned;
  int64_t offset, size, stride;
  MemRef1D(void *data, int64_t size)
      : allocated(data), aligned(data), offset(0), size(size), stride(1) {}
  void appendTo(std::vector<void *> &params) {
    for (void *field :
         {static_cast<void *>(&allocated), static_cast<void *>(&aligned),
          static_cast<void *>(&offset), static_cast<void *>(&size),
          static_cast<void *>(&stride)})
      params.push_back(field);
  }
};

class PlantedBugs : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    mlir::DialectRegistry registry;
    registerAllJeetDialects(registry);
    mlir::MLIRContext context(registry);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(kKernels, &context,
                                                "planted-bugs.mlir");
    ASSERT_TRUE(module);
    // The GPU pipeline's code generation stage, for the emulation target.
    GpuPipelineOptions options;
    options.target = "emulator";
    mlir::PassManager pm(&context);
    buildJeetGpuCodegenPipeline(pm, options);
    ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
    auto binary = *module->getOps<mlir::gpu::BinaryOp>().begin();
    llvm::StringRef object =
        mlir::cast<mlir::gpu::ObjectAttr>(binary.getObjects()[0])
            .getObject()
            .getValue();
    image() = object.str();
    auto loaded = emulatedDevice().loadModule(
        image().data(), image().size(), runtime::ModuleFormat::Auto, "planted");
    ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
    module_ = *loaded;
  }
  static std::string &image() {
    static std::string bytes;
    return bytes;
  }

  void SetUp() override {
    ASSERT_NE(module_, nullptr);
    start = emulatedDevice().allocator().stats().allocated_bytes;
  }
  void TearDown() override {
    EXPECT_EQ(emulatedDevice().allocator().stats().allocated_bytes, start);
  }

  /// Launches kernel `name` and synchronises: its status, with the
  /// emulator's report.
  runtime::Status run(const char *name, runtime::Dim3 grid,
                      std::vector<void *> params) {
    runtime::CudaDevice &device = emulatedDevice();
    auto kernel = module_->getFunction(name);
    if (!kernel.ok())
      return kernel.status();
    runtime::Status launched = device.launch(**kernel, grid, {kBlock, 1, 1}, 0,
                                             device.stream(), params.data());
    if (!launched.ok())
      return launched;
    return device.synchronizeStream(device.stream());
  }

  void *allocate(size_t bytes, const float *values = nullptr) {
    auto ptr = emulatedDevice().allocator().allocate(bytes);
    EXPECT_TRUE(ptr.ok()) << ptr.status().toString();
    if (values) {
      EXPECT_TRUE(emulatedDevice().copyHostToDevice(*ptr, values, bytes).ok());
    }
    return *ptr;
  }
  void release(void *ptr) {
    EXPECT_TRUE(emulatedDevice().allocator().free(ptr).ok());
  }

  /// The correct kernel runs clean with the right numbers: the module and
  /// the device stay usable after a report.
  void expectShiftWorks() {
    std::vector<float> input(kBlock);
    for (unsigned i = 0; i < kBlock; ++i)
      input[i] = float(i) * 0.5f - 7.0f;
    void *in = allocate(kBlock * sizeof(float), input.data());
    void *out = allocate(kBlock * sizeof(float));
    MemRef1D a(in, kBlock), b(out, kBlock);
    std::vector<void *> params;
    a.appendTo(params);
    b.appendTo(params);
    runtime::Status status = run("shift", {1, 1, 1}, params);
    EXPECT_TRUE(status.ok()) << status.toString();
    std::vector<float> result(kBlock);
    EXPECT_TRUE(
        emulatedDevice()
            .copyDeviceToHost(result.data(), out, kBlock * sizeof(float))
            .ok());
    for (unsigned i = 0; i < kBlock; ++i)
      EXPECT_EQ(result[i], input[(i + 1) % kBlock]) << "at " << i;
    release(in);
    release(out);
  }

  static runtime::CudaModule *module_;
  uint64_t start = 0;
};

runtime::CudaModule *PlantedBugs::module_ = nullptr;

::testing::AssertionResult contains(const std::string &text,
                                    std::initializer_list<const char *> parts) {
  for (const char *part : parts)
    if (text.find(part) == std::string::npos)
      return ::testing::AssertionFailure() << "missing \"" << part << "\" in:\n"
                                           << text;
  return ::testing::AssertionSuccess();
}

TEST_F(PlantedBugs, TheCorrectKernelRunsClean) { expectShiftWorks(); }

TEST_F(PlantedBugs, AMissingBarrierIsReportedAsARace) {
  std::vector<float> input(kBlock, 1.0f);
  void *in = allocate(kBlock * sizeof(float), input.data());
  void *out = allocate(kBlock * sizeof(float));
  MemRef1D a(in, kBlock), b(out, kBlock);
  std::vector<void *> params;
  a.appendTo(params);
  b.appendTo(params);
  runtime::Status status = run("shift_missing_barrier", {1, 1, 1}, params);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), runtime::StatusCode::DriverError);
  EXPECT_TRUE(contains(status.message(),
                       {"CUDA_ERROR_LAUNCH_FAILED",
                        "shared memory race in kernel 'shift_missing_barrier'",
                        "planted-bugs.mlir:"}));
  release(in);
  release(out);
  expectShiftWorks();
}

TEST_F(PlantedBugs, AnOffByOneIndexIsReportedOutOfBounds) {
  const int64_t n = 1000;
  std::vector<float> input(n, 1.0f);
  void *in = allocate(n * sizeof(float), input.data());
  void *out = allocate(n * sizeof(float));
  MemRef1D a(in, n), b(out, n);
  int64_t count = n;
  std::vector<void *> params;
  a.appendTo(params);
  b.appendTo(params);
  params.push_back(&count);
  runtime::Status status = run(
      "scale_off_by_one", {unsigned(n + kBlock - 1) / kBlock, 1, 1}, params);
  ASSERT_FALSE(status.ok());
  // Thread 232 of block 3 is element 1000, one past the end.
  EXPECT_TRUE(contains(
      status.message(),
      {"CUDA_ERROR_ILLEGAL_ADDRESS", "(out of bounds)",
       "in kernel 'scale_off_by_one', block (3,0,0), thread "
       "(232,0,0)",
       "memref.load at planted-bugs.mlir:", "nearest allocation: 4000 bytes"}));
  release(in);
  release(out);
  expectShiftWorks();
}

TEST_F(PlantedBugs, ADivergentBarrierIsReportedNotHung) {
  void *out = allocate(kBlock * sizeof(float));
  MemRef1D b(out, kBlock);
  std::vector<void *> params;
  b.appendTo(params);
  runtime::Status status = run("divergent_barrier", {1, 1, 1}, params);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(contains(status.message(),
                       {"CUDA_ERROR_LAUNCH_FAILED",
                        "divergent barrier in kernel 'divergent_barrier'",
                        "planted-bugs.mlir:"}));
  release(out);
  expectShiftWorks();
}

} // namespace
