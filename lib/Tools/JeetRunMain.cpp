//===- JeetRunMain.cpp - The jeet-run driver ------------------------------===//
//
// Part of the Jeet project.
//
// Compiles a .mlir graph and executes it, with inputs and outputs in the
// style of IREE's run tool.
//
//===----------------------------------------------------------------------===//

#include "jeet/Tools/JeetRunMain.h"

#include "jeet/Compiler/Compiler.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Npy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace jeet;
namespace cl = llvm::cl;

namespace {

int fail(const llvm::Twine &message) {
  llvm::errs() << "jeet-run: error: " << message << "\n";
  return 1;
}

/// Reads one `--input`: `@file.npy` or an inline `2x3xf32=1,2,3,4,5,6`.
runtime::StatusOr<runtime::Tensor> readInput(const std::string &text) {
  if (!text.empty() && text[0] == '@')
    return runtime::loadNpy(text.substr(1));
  return runtime::parseTensorLiteral(text);
}

std::string specOf(const runtime::Tensor &tensor) {
  return tensor.typeString();
}

} // namespace

int jeet::jeetRunMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::OptionCategory category("jeet-run options");
  cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph.mlir>"),
                                 cl::Required, cl::cat(category));
  cl::opt<std::string> entry("entry", cl::desc("The function to run"),
                             cl::init("main"), cl::cat(category));
  cl::opt<std::string> device(
      "device",
      cl::desc("Where to run: cpu, gpu or auto (the GPU when usable, "
               "else the CPU)"),
      cl::init("auto"), cl::cat(category));
  cl::opt<std::string> gpuTarget(
      "gpu-target",
      cl::desc("What GPU kernels are compiled for: ptx, emulator (the host, "
               "for the CUDA driver emulator) or auto (the emulator when the "
               "CUDA device is the emulator, else ptx)"),
      cl::init("auto"), cl::cat(category));
  cl::list<std::string> inputs(
      "input",
      cl::desc("One per argument, in order: 2x3xf32=1,2,3,4,5,6 or @a.npy"),
      cl::cat(category));
  cl::list<std::string> outputs(
      "output",
      cl::desc("One per result, in order: @out.npy (results are printed when "
               "no --output is given)"),
      cl::cat(category));
  cl::opt<unsigned> benchmark(
      "benchmark",
      cl::desc("Run N times and print the median time (compilation excluded)"),
      cl::init(0), cl::cat(category));
  cl::opt<bool> printStats(
      "print-stats", cl::desc("Print kernels executed and memory statistics"),
      cl::init(false), cl::cat(category));
  cl::opt<bool> fuse("fuse", cl::desc("Fuse ops into kernels (default true)"),
                     cl::init(true), cl::cat(category));
  cl::opt<int64_t> maxFusionOps(
      "max-fusion-ops", cl::desc("The largest number of ops in one kernel"),
      cl::init(64), cl::cat(category));
  cl::opt<bool> parallel("parallel",
                         cl::desc("Use all cores on the CPU (default true)"),
                         cl::init(true), cl::cat(category));
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "jeet-run: compile and execute a jeet graph\n");

  // Choose the device: `gpu` fails with the runtime's reason where no GPU is
  // usable; `auto` takes the GPU when it is usable, else the CPU.
  if (device != "cpu" && device != "gpu" && device != "auto")
    return fail("unknown device '" + device + "' (expected cpu, gpu or auto)");
  if (gpuTarget != "auto" && gpuTarget != "ptx" && gpuTarget != "emulator")
    return fail("unknown GPU target '" + gpuTarget +
                "' (expected auto, ptx or emulator)");
  runtime::Device *target = &runtime::getHostDevice();
  if (device != "cpu") {
    auto cuda = runtime::getCudaDevice();
    if (cuda.ok())
      target = *cuda;
    else if (device == "gpu")
      return fail("device 'gpu' is unavailable: " + cuda.status().message());
  }
  bool onGpu = target != &runtime::getHostDevice();
  runtime::setCurrentDevice(target);
  CompileOptions options;
  options.entry = entry;
  options.device = onGpu ? "gpu" : "cpu";
  options.gpuTarget = gpuTarget;
  options.fuse = fuse;
  options.maxFusionOps = maxFusionOps;
  options.parallel = parallel;

  auto file = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!file)
    return fail("cannot read '" + inputFile +
                "': " + file.getError().message());

  auto compiled =
      Compiler::global().compile((*file)->getBuffer(), inputFile, options);
  if (!compiled) {
    llvm::errs() << llvm::toString(compiled.takeError());
    llvm::errs() << "jeet-run: error: compilation of '" << inputFile
                 << "' failed\n";
    return 1;
  }
  const Executable &exe = **compiled;

  // Inputs: one per argument, checked against the graph's signature.
  if (inputs.size() != exe.inputs().size())
    return fail(llvm::formatv("'{0}' takes {1} arguments but {2} --input "
                              "given",
                              entry, exe.inputs().size(), inputs.size()));
  std::vector<runtime::Tensor> inputTensors;
  for (auto [i, text] : llvm::enumerate(inputs)) {
    auto tensor = readInput(text);
    if (!tensor.ok())
      return fail(
          llvm::formatv("--input #{0}: {1}", i, tensor.status().message()));
    const TensorSpec &spec = exe.inputs()[i];
    if (specOf(*tensor) != spec.str())
      return fail(llvm::formatv("argument #{0} of '{1}' expects {2}, given "
                                "{3}",
                                i, entry, spec.str(), specOf(*tensor)));
    if (onGpu) {
      auto onDevice = tensor->to(*target);
      if (!onDevice.ok())
        return fail(
            llvm::formatv("--input #{0}: {1}", i, onDevice.status().message()));
      tensor = std::move(onDevice);
    }
    inputTensors.push_back(std::move(*tensor));
  }
  if (!outputs.empty() && outputs.size() != exe.outputs().size())
    return fail(llvm::formatv("'{0}' returns {1} results but {2} --output "
                              "given",
                              entry, exe.outputs().size(), outputs.size()));
  for (const std::string &out : outputs)
    if (out.empty() || out[0] != '@')
      return fail("--output '" + out + "': expected @path.npy");

  runtime::Device &host = runtime::getHostDevice();
  runtime::Device &dev = *target;
  std::vector<runtime::Tensor> outputTensors;
  for (const TensorSpec &spec : exe.outputs()) {
    auto dtype = runtime::parseDType(spec.dtype);
    auto tensor = dtype.ok()
                      ? runtime::Tensor::empty(dev, spec.shape, *dtype)
                      : runtime::StatusOr<runtime::Tensor>(dtype.status());
    if (!tensor.ok())
      return fail(tensor.status().message());
    outputTensors.push_back(std::move(*tensor));
  }
  std::vector<const void *> inputData;
  for (const runtime::Tensor &t : inputTensors)
    inputData.push_back(t.data());
  std::vector<void *> outputData;
  for (const runtime::Tensor &t : outputTensors)
    outputData.push_back(t.data());

  dev.allocator().resetPeak();
  dev.resetExecutionStats();
  runtime::AllocatorStats before = dev.allocator().stats();
  unsigned runs = std::max(1u, static_cast<unsigned>(benchmark));
  std::vector<double> times;
  for (unsigned r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = exe.run(inputData, outputData))
      return fail("execution failed: " + llvm::toString(std::move(error)));
    if (runtime::Status status = dev.synchronize(); !status.ok())
      return fail("execution failed: " + status.message());
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  runtime::AllocatorStats after = dev.allocator().stats();

  if (onGpu) {
    for (runtime::Tensor &t : outputTensors) {
      auto onHost = t.to(host);
      if (!onHost.ok())
        return fail(onHost.status().message());
      t = std::move(*onHost);
    }
  }
  if (outputs.empty()) {
    for (const runtime::Tensor &t : outputTensors)
      llvm::outs() << runtime::formatTensor(t) << "\n";
  } else {
    for (auto [path, t] : llvm::zip(outputs, outputTensors)) {
      runtime::Status status = runtime::saveNpy(path.substr(1), t);
      if (!status.ok())
        return fail(status.message());
    }
  }

  if (benchmark > 0) {
    std::sort(times.begin(), times.end());
    llvm::outs() << llvm::formatv("benchmark: {0} runs, median {1:f3} ms, "
                                  "min {2:f3} ms\n",
                                  runs, times[runs / 2] * 1e3,
                                  times.front() * 1e3);
  }
  if (printStats) {
    llvm::outs() << "device: " << (onGpu ? "gpu (" + dev.name() + ")" : "cpu")
                 << "\n";
    llvm::outs() << "kernels per execution: " << exe.numKernels() << "\n";
    uint64_t launched = dev.executionStats().kernels_launched;
    llvm::outs() << "kernels executed: "
                 << (onGpu ? launched : exe.numKernels() * runs)
                 << (onGpu ? " (launched)" : "") << "\n";
    llvm::outs() << "planned peak intermediate bytes: "
                 << exe.peakIntermediateBytes() << "\n";
    llvm::outs() << "peak intermediate bytes: "
                 << (after.peak_allocated_bytes - before.allocated_bytes)
                 << "\n";
    llvm::outs() << "intermediate allocations: "
                 << after.num_allocs - before.num_allocs << " ("
                 << after.cache_hits - before.cache_hits << " from the cache, "
                 << after.device_mallocs - before.device_mallocs
                 << " from the system)\n";
    for (auto [name, value] : after.items())
      llvm::outs() << (onGpu ? "gpu." : "host.") << name << ": " << value
                   << "\n";
  }
  return 0;
}
