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
#include "jeet/Tools/PassManagerOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <optional>

using namespace jeet;
namespace cl = llvm::cl;

namespace {

constexpr double kMillisecondsPerSecond = 1e3;

/// What the command line asks for.
struct RunFlags {
  std::string inputFile;
  std::string device;
  std::vector<std::string> inputs, outputs;
  unsigned benchmark = 0;
  bool printStats = false;
  CompileOptions compile;
};

/// The device chosen to run on.
struct RunTarget {
  runtime::Device *device = nullptr;
  bool onGpu = false;
};

/// What the timed runs measured.
struct RunMeasurements {
  std::vector<double> seconds;
  runtime::AllocatorStats before, after;
  runtime::ExecutionStats executed;
};

int fail(const llvm::Twine &message) {
  llvm::errs() << "jeet-run: error: " << message << "\n";
  return 1;
}

RunFlags parseFlags(int argc, char **argv) {
  // Options keep pointers to their categories: these outlive the parse.
  static cl::OptionCategory category("jeet-run options");
  static cl::OptionCategory mlirCategory(
      "MLIR pass-manager options (applied to every stage of the pipeline)");
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
      cl::init(kDefaultMaxFusionOps), cl::cat(category));
  cl::opt<bool> fuseAttention(
      "fuse-attention",
      cl::desc("CPU: attention as one kernel where its blocks of rows fit "
               "(default true)"),
      cl::init(true), cl::cat(category));
  cl::opt<bool> parallel("parallel",
                         cl::desc("Use all cores on the CPU (default true)"),
                         cl::init(true), cl::cat(category));
  cl::opt<bool> cudaGraphs(
      "cuda-graphs",
      cl::desc("Replay GPU executions as a CUDA graph from the second one on "
               "(default true)"),
      cl::init(true), cl::cat(category));
  registerPassManagerOptions(mlirCategory);
  cl::HideUnrelatedOptions({&category, &mlirCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "jeet-run: compile and execute a jeet graph\n\n"
      "JEET_DEBUG=1 prints each stage of the compilation with its time and "
      "the fusion groups; JEET_DUMP_DIR=<dir> writes the IR after each "
      "stage.\n");

  RunFlags flags;
  flags.inputFile = inputFile;
  flags.device = device;
  flags.inputs = inputs;
  flags.outputs = outputs;
  flags.benchmark = benchmark;
  flags.printStats = printStats;
  flags.compile.entry = entry;
  flags.compile.gpuTarget = gpuTarget;
  flags.compile.fuse = fuse;
  flags.compile.maxFusionOps = maxFusionOps;
  flags.compile.fuseAttention = fuseAttention;
  flags.compile.parallel = parallel;
  flags.compile.cudaGraphs = cudaGraphs;
  return flags;
}

/// `gpu` fails with the runtime's reason where no GPU is usable; `auto`
/// takes the GPU when it is usable, else the CPU.
std::optional<RunTarget> chooseDevice(llvm::StringRef device) {
  if (device != "cpu" && device != "gpu" && device != "auto") {
    fail("unknown device '" + device + "' (expected cpu, gpu or auto)");
    return std::nullopt;
  }
  RunTarget target{&runtime::getHostDevice(), false};
  if (device != "cpu") {
    auto cuda = runtime::getCudaDevice();
    if (cuda.ok()) {
      target = {*cuda, true};
    } else if (device == "gpu") {
      fail("device 'gpu' is unavailable: " + cuda.status().message());
      return std::nullopt;
    }
  }
  runtime::setCurrentDevice(target.device);
  return target;
}

/// Reads one `--input`: `@file.npy` or an inline `2x3xf32=1,2,3,4,5,6`.
runtime::StatusOr<runtime::Tensor> readInput(const std::string &text) {
  if (!text.empty() && text[0] == '@')
    return runtime::loadNpy(text.substr(1));
  return runtime::parseTensorLiteral(text);
}

/// A bf16 copy of an f32 host tensor (rounded to nearest even): NumPy has no
/// bfloat16, so a bf16 argument may be given as float32 data.
runtime::StatusOr<runtime::Tensor> toBF16(const runtime::Tensor &tensor) {
  std::vector<float> values(static_cast<size_t>(tensor.numElements()));
  JEET_RETURN_IF_ERROR(tensor.toHost(values.data(), tensor.byteSize()));
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    bits[i] = runtime::floatToBF16(values[i]);
  return runtime::Tensor::fromHost(runtime::getHostDevice(), tensor.shape(),
                                   runtime::DType::BF16, bits.data(),
                                   bits.size() * sizeof(uint16_t));
}

/// The inputs, one per argument, checked against the graph's signature and
/// moved to the device; and the --output paths checked.
std::optional<std::vector<runtime::Tensor>>
readInputs(const RunFlags &flags, const Executable &exe,
           const RunTarget &target) {
  const std::string &entry = flags.compile.entry;
  if (flags.inputs.size() != exe.inputs().size()) {
    fail(llvm::formatv("'{0}' takes {1} arguments but {2} --input given", entry,
                       exe.inputs().size(), flags.inputs.size()));
    return std::nullopt;
  }
  std::vector<runtime::Tensor> tensors;
  for (auto [i, text] : llvm::enumerate(flags.inputs)) {
    auto tensor = readInput(text);
    if (!tensor.ok()) {
      fail(llvm::formatv("--input #{0}: {1}", i, tensor.status().message()));
      return std::nullopt;
    }
    const TensorSpec &spec = exe.inputs()[i];
    if (spec.dtype == "bf16" && tensor->dtype() == runtime::DType::F32 &&
        tensor->shape() == spec.shape)
      tensor = toBF16(*tensor);
    if (!tensor.ok()) {
      fail(llvm::formatv("--input #{0}: {1}", i, tensor.status().message()));
      return std::nullopt;
    }
    if (tensor->typeString() != spec.str()) {
      fail(llvm::formatv("argument #{0} of '{1}' expects {2}, given {3}", i,
                         entry, spec.str(), tensor->typeString()));
      return std::nullopt;
    }
    if (target.onGpu) {
      auto onDevice = tensor->to(*target.device);
      if (!onDevice.ok()) {
        fail(
            llvm::formatv("--input #{0}: {1}", i, onDevice.status().message()));
        return std::nullopt;
      }
      tensor = std::move(onDevice);
    }
    tensors.push_back(std::move(*tensor));
  }
  if (!flags.outputs.empty() && flags.outputs.size() != exe.outputs().size()) {
    fail(llvm::formatv("'{0}' returns {1} results but {2} --output given",
                       entry, exe.outputs().size(), flags.outputs.size()));
    return std::nullopt;
  }
  for (const std::string &out : flags.outputs) {
    if (out.empty() || out[0] != '@') {
      fail("--output '" + out + "': expected @path.npy");
      return std::nullopt;
    }
  }
  return tensors;
}

/// Runs the graph `runs` times, waiting for each run, and measures the
/// allocator around the runs.
std::optional<RunMeasurements>
runTimed(const Executable &exe, runtime::Device &dev, unsigned runs,
         const std::vector<runtime::Tensor> &inputs,
         const std::vector<runtime::Tensor> &outputs) {
  std::vector<const void *> inputData;
  for (const runtime::Tensor &t : inputs)
    inputData.push_back(t.data());
  std::vector<void *> outputData;
  for (const runtime::Tensor &t : outputs)
    outputData.push_back(t.data());

  RunMeasurements measured;
  dev.allocator().resetPeak();
  dev.resetExecutionStats();
  measured.before = dev.allocator().stats();
  for (unsigned r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    if (llvm::Error error = exe.run(inputData, outputData)) {
      fail("execution failed: " + llvm::toString(std::move(error)));
      return std::nullopt;
    }
    if (runtime::Status status = dev.synchronize(); !status.ok()) {
      fail("execution failed: " + status.message());
      return std::nullopt;
    }
    measured.seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  measured.after = dev.allocator().stats();
  measured.executed = dev.executionStats();
  return measured;
}

/// Brings the results to the host and prints them, or writes each to its
/// --output file.
int writeResults(const RunFlags &flags, const RunTarget &target,
                 std::vector<runtime::Tensor> &results) {
  if (target.onGpu) {
    for (runtime::Tensor &t : results) {
      auto onHost = t.to(runtime::getHostDevice());
      if (!onHost.ok())
        return fail(onHost.status().message());
      t = std::move(*onHost);
    }
  }
  if (flags.outputs.empty()) {
    for (const runtime::Tensor &t : results)
      llvm::outs() << runtime::formatTensor(t) << "\n";
    return 0;
  }
  for (auto [path, t] : llvm::zip(flags.outputs, results)) {
    runtime::Status status = runtime::saveNpy(path.substr(1), t);
    if (!status.ok())
      return fail(status.message());
  }
  return 0;
}

/// What a time measured on an emulated GPU is.
constexpr llvm::StringLiteral kEmulatedTimeNote =
    " (emulated GPU: host CPU time, not GPU speed)";

void printBenchmark(std::vector<double> seconds, const RunTarget &target) {
  std::sort(seconds.begin(), seconds.end());
  llvm::outs() << llvm::formatv(
      "benchmark: {0} runs, median {1:f3} ms, min {2:f3} ms{3}\n",
      seconds.size(), seconds[seconds.size() / 2] * kMillisecondsPerSecond,
      seconds.front() * kMillisecondsPerSecond,
      target.device->isEmulated() ? kEmulatedTimeNote : "");
}

/// The device as --print-stats names it: a GPU with its description, which
/// says when the GPU is emulated.
std::string describeDevice(const RunTarget &target) {
  if (!target.onGpu)
    return "cpu";
  // Only getCudaDevice() gives a GPU target.
  auto &cuda = static_cast<runtime::CudaDevice &>(*target.device);
  return "gpu (" + cuda.name() + ": " + cuda.description() + ")";
}

void printStats(const Executable &exe, const RunTarget &target,
                const RunMeasurements &measured) {
  const runtime::AllocatorStats &before = measured.before;
  const runtime::AllocatorStats &after = measured.after;
  llvm::raw_ostream &os = llvm::outs();
  os << "device: " << describeDevice(target) << "\n";
  os << "kernels per execution: " << exe.numKernels() << "\n";
  const runtime::ExecutionStats &executed = measured.executed;
  // Kernels launched one by one, and those of replayed CUDA graphs.
  uint64_t launched =
      executed.kernels_launched +
      executed.graph_launches * static_cast<uint64_t>(exe.numKernels());
  os << "kernels executed: "
     << (target.onGpu ? launched : exe.numKernels() * measured.seconds.size())
     << (target.onGpu ? " (launched)" : "") << "\n";
  if (target.onGpu)
    os << "cuda graphs: " << exe.cudaGraphStatus() << "\n";
  const MemoryPlan &plan = exe.memoryPlan();
  os << "arena bytes: " << plan.arenaBytes
     << " (intermediates: " << plan.intermediateBytes << " bytes in "
     << plan.buffers << " buffers; most alive at once: " << plan.liveBytesBound
     << ")\n";
  os << "planned peak intermediate bytes: " << exe.peakIntermediateBytes()
     << "\n";
  os << "peak intermediate bytes: "
     << (after.peak_allocated_bytes - before.allocated_bytes) << "\n";
  os << "intermediate allocations: " << after.num_allocs - before.num_allocs
     << " (" << after.cache_hits - before.cache_hits << " from the cache, "
     << after.device_mallocs - before.device_mallocs << " from the system)\n";
  for (auto [name, value] : after.items())
    os << (target.onGpu ? "gpu." : "host.") << name << ": " << value << "\n";
  if (target.onGpu)
    for (auto [name, value] : executed.items())
      os << "gpu." << name << ": " << value << "\n";
}

/// Allocates the outputs on the device, runs, and reports.
int execute(const RunFlags &flags, const Executable &exe,
            const RunTarget &target,
            const std::vector<runtime::Tensor> &inputs) {
  std::vector<runtime::Tensor> outputs;
  for (const TensorSpec &spec : exe.outputs()) {
    auto dtype = runtime::parseDType(spec.dtype);
    auto tensor =
        dtype.ok() ? runtime::Tensor::empty(*target.device, spec.shape, *dtype)
                   : runtime::StatusOr<runtime::Tensor>(dtype.status());
    if (!tensor.ok())
      return fail(tensor.status().message());
    outputs.push_back(std::move(*tensor));
  }
  unsigned runs = std::max(1u, flags.benchmark);
  std::optional<RunMeasurements> measured =
      runTimed(exe, *target.device, runs, inputs, outputs);
  if (!measured)
    return 1;
  if (int rc = writeResults(flags, target, outputs))
    return rc;
  if (flags.benchmark > 0)
    printBenchmark(measured->seconds, target);
  if (flags.printStats)
    printStats(exe, target, *measured);
  return 0;
}

} // namespace

int jeet::jeetRunMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  RunFlags flags = parseFlags(argc, argv);
  const std::string &gpuTarget = flags.compile.gpuTarget;
  if (gpuTarget != "auto" && gpuTarget != "ptx" && gpuTarget != "emulator")
    return fail("unknown GPU target '" + gpuTarget +
                "' (expected auto, ptx or emulator)");
  std::optional<RunTarget> target = chooseDevice(flags.device);
  if (!target)
    return 1;
  flags.compile.device = target->onGpu ? "gpu" : "cpu";

  auto file = llvm::MemoryBuffer::getFileOrSTDIN(flags.inputFile);
  if (!file)
    return fail("cannot read '" + flags.inputFile +
                "': " + file.getError().message());
  auto compiled = Compiler::global().compile((*file)->getBuffer(),
                                             flags.inputFile, flags.compile);
  if (!compiled) {
    llvm::errs() << llvm::toString(compiled.takeError());
    return fail("compilation of '" + flags.inputFile + "' failed");
  }
  const Executable &exe = **compiled;
  std::optional<std::vector<runtime::Tensor>> inputs =
      readInputs(flags, exe, *target);
  if (!inputs)
    return 1;
  return execute(flags, exe, *target, *inputs);
}
