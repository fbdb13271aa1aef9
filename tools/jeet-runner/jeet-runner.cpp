//===- jeet-runner.cpp - Run graphs compiled ahead of time ----------------===//
//
// Part of the Jeet project.
//
// Runs an artifact written by jeet-compile, with the inputs and outputs of
// jeet-run. Depends on libjeet_runtime only: no LLVM, no MLIR, so it runs on
// a GPU server that has nothing but the runtime and the driver.
//
//===----------------------------------------------------------------------===//

#include "jeet/Runtime/Artifact.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Npy.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace jeet::runtime;

namespace {

const char *kUsage =
    "usage: jeet-runner <graph.so> [options]\n"
    "\n"
    "Runs a graph compiled ahead of time by jeet-compile.\n"
    "\n"
    "  --input=<2x3xf32=1,2,...|@a.npy>  one per argument, in order\n"
    "  --output=@out.npy                 one per result, in order (results\n"
    "                                    are printed when none is given)\n"
    "  --device=auto|cpu|gpu             where to run; must match the\n"
    "                                    artifact (auto: the artifact's)\n"
    "  --cuda-device=N                   the CUDA device ordinal (default 0)\n"
    "  --cuda-graphs=true|false          replay GPU executions as a CUDA\n"
    "                                    graph from the second one on\n"
    "                                    (default true)\n"
    "  --benchmark=N                     run N times (after one warm-up run)\n"
    "                                    and print the median time (on a\n"
    "                                    GPU also the device's, from CUDA\n"
    "                                    events)\n"
    "  --print-stats                     print kernels launched and memory\n"
    "                                    statistics\n"
    "  --print-signature                 print the artifact's signature and\n"
    "                                    exit (nothing runs)\n"
    "  --list-devices                    print the devices and why each is\n"
    "                                    unavailable, and exit\n"
    "  --copy-bandwidth=BYTES            no artifact: time device-to-device\n"
    "                                    copies of BYTES on the CUDA device\n"
    "                                    (--benchmark runs, default 20) and\n"
    "                                    print GB/s, bytes read and written\n";

constexpr double kMillisecondsPerSecond = 1e3;

/// What every time measured on the emulated GPU says after it.
constexpr const char *kEmulatedTimes =
    " (emulated GPU: host CPU time, not GPU speed)";

/// Times work queued on a CUDA stream with two events around it.
class StreamTimer {
public:
  explicit StreamTimer(CudaDevice &cuda) : cuda_(cuda) {}
  StreamTimer(const StreamTimer &) = delete;
  StreamTimer &operator=(const StreamTimer &) = delete;
  ~StreamTimer() {
    if (start_)
      (void)cuda_.destroyEvent(start_);
    if (end_)
      (void)cuda_.destroyEvent(end_);
  }

  /// Queues `work()` (which returns a Status) on `stream` between the
  /// events, waits for the stream and returns the milliseconds between them.
  template <typename Work>
  StatusOr<float> time(void *stream, const Work &work) {
    for (void **event : {&start_, &end_}) {
      if (*event)
        continue;
      StatusOr<void *> created = cuda_.createEvent();
      if (!created.ok())
        return created.status();
      *event = *created;
    }
    JEET_RETURN_IF_ERROR(cuda_.recordEvent(start_, stream));
    JEET_RETURN_IF_ERROR(work());
    JEET_RETURN_IF_ERROR(cuda_.recordEvent(end_, stream));
    JEET_RETURN_IF_ERROR(cuda_.synchronizeStream(stream));
    return cuda_.elapsedMs(start_, end_);
  }

private:
  CudaDevice &cuda_;
  void *start_ = nullptr, *end_ = nullptr;
};

/// What the command line asks for.
struct RunnerFlags {
  std::string artifactPath;
  std::string device = "auto";
  std::vector<std::string> inputs, outputs;
  long long benchmark = 0, cudaOrdinal = 0, copyBandwidth = 0;
  bool printStats = false, printSignature = false, listDevices = false;
  bool help = false;
  bool cudaGraphs = true;
};

/// What the timed runs measured.
struct RunMeasurements {
  /// Host time of each run, from its call to the end of its work.
  std::vector<double> seconds;
  /// GPU: the device's time of each run, between CUDA events queued before
  /// and after its work on the device's stream (launch gaps included).
  std::vector<double> deviceMs;
  AllocatorStats before, after;
  ExecutionStats launchesBefore, launchesAfter;
};

int fail(const std::string &message) {
  std::fprintf(stderr, "jeet-runner: error: %s\n", message.c_str());
  return 1;
}

/// When `arg` is `flag` followed by a value (`flag` ends with '='), sets
/// `value` to it.
bool flagValue(const std::string &arg, const std::string &flag,
               std::string &value) {
  if (arg.compare(0, flag.size(), flag) != 0)
    return false;
  value = arg.substr(flag.size());
  return true;
}

bool parseCount(const std::string &text, long long &out) {
  char *end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0' && out >= 0;
}

/// Parses the command line into `flags`; an error message when it is bad.
std::string parseFlags(int argc, char **argv, RunnerFlags &flags) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    // Accept both --flag=value and -flag=value, as LLVM tools do.
    if (arg.size() > 1 && arg[0] == '-' && arg[1] != '-')
      arg = "-" + arg;
    // --help and --list-devices act at once, whatever follows.
    if (arg == "--help" || arg == "--h") {
      flags.help = true;
      return "";
    } else if (arg == "--list-devices") {
      flags.listDevices = true;
      return "";
    } else if (flagValue(arg, "--input=", value)) {
      flags.inputs.push_back(value);
    } else if (flagValue(arg, "--output=", value)) {
      flags.outputs.push_back(value);
    } else if (flagValue(arg, "--device=", value)) {
      flags.device = value;
    } else if (flagValue(arg, "--cuda-device=", value)) {
      if (!parseCount(value, flags.cudaOrdinal))
        return "--cuda-device: expected a device ordinal, given '" + value +
               "'";
    } else if (flagValue(arg, "--cuda-graphs=", value)) {
      if (value != "true" && value != "false")
        return "--cuda-graphs: expected true or false, given '" + value + "'";
      flags.cudaGraphs = value == "true";
    } else if (flagValue(arg, "--benchmark=", value)) {
      if (!parseCount(value, flags.benchmark))
        return "--benchmark: expected a count, given '" + value + "'";
    } else if (flagValue(arg, "--copy-bandwidth=", value)) {
      if (!parseCount(value, flags.copyBandwidth) || flags.copyBandwidth == 0)
        return "--copy-bandwidth: expected a byte count, given '" + value + "'";
    } else if (arg == "--print-stats") {
      flags.printStats = true;
    } else if (arg == "--print-signature") {
      flags.printSignature = true;
    } else if (arg.compare(0, 2, "--") == 0) {
      return "unknown option '" + std::string(argv[i]) + "' (see --help)";
    } else if (flags.artifactPath.empty()) {
      flags.artifactPath = arg;
    } else {
      return "more than one artifact given: '" + flags.artifactPath +
             "' and '" + arg + "'";
    }
  }
  return "";
}

StatusOr<Tensor> readInput(const std::string &text) {
  if (!text.empty() && text[0] == '@')
    return loadNpy(text.substr(1));
  return parseTensorLiteral(text);
}

int listDevicesMain() {
  for (const DeviceInfo &info : listDevices()) {
    if (info.available)
      std::printf("%s: available (%s)\n", info.name.c_str(),
                  info.description.c_str());
    else
      std::printf("%s: unavailable: %s\n", info.name.c_str(),
                  info.reason.c_str());
  }
  return 0;
}

/// --copy-bandwidth: the device's own copy engine on `bytes` bytes, the
/// bandwidth a memory-bound kernel is compared to. Timed with CUDA events
/// around each copy on the device's stream.
int copyBandwidthMain(const RunnerFlags &flags) {
  StatusOr<CudaDevice *> opened =
      getCudaDevice(static_cast<int>(flags.cudaOrdinal));
  if (!opened.ok())
    return fail(opened.status().message());
  CudaDevice &cuda = **opened;
  size_t bytes = static_cast<size_t>(flags.copyBandwidth);
  StatusOr<void *> src = cuda.allocator().allocate(bytes);
  if (!src.ok())
    return fail("--copy-bandwidth: " + src.status().message());
  StatusOr<void *> dst = cuda.allocator().allocate(bytes);
  if (!dst.ok())
    return fail("--copy-bandwidth: " + dst.status().message());
  void *stream = cuda.stream();
  long long runs = flags.benchmark > 0 ? flags.benchmark : 20;
  StreamTimer timer(cuda);
  std::vector<double> ms;
  // One warm-up copy, then the timed ones.
  for (long long r = 0; r <= runs; ++r) {
    StatusOr<float> elapsed = timer.time(
        stream, [&] { return cuda.copyAsync(*dst, *src, bytes, stream); });
    if (!elapsed.ok())
      return fail("--copy-bandwidth: " + elapsed.status().message());
    if (r > 0)
      ms.push_back(*elapsed);
  }
  std::sort(ms.begin(), ms.end());
  double median = ms[ms.size() / 2];
  std::printf("copy: %zu bytes, %zu runs, median %.3f ms, min %.3f ms, "
              "%.1f GB/s (bytes read and written)%s\n",
              bytes, ms.size(), median, ms.front(),
              2.0 * static_cast<double>(bytes) / median / 1e6,
              cuda.isEmulated() ? kEmulatedTimes : "");
  (void)cuda.allocator().free(*src);
  (void)cuda.allocator().free(*dst);
  return 0;
}

int printSignatureMain(const std::string &artifactPath) {
  StatusOr<ArtifactSignature> sig = Artifact::readSignature(artifactPath);
  if (!sig.ok())
    return fail(sig.status().message());
  std::printf("%s\n", sig->str().c_str());
  return 0;
}

/// Checks the device before loading: a GPU artifact loads its kernels at
/// load time, and --device=cpu on it must not open the GPU at all.
StatusOr<std::unique_ptr<Artifact>> loadArtifact(const RunnerFlags &flags) {
  StatusOr<ArtifactSignature> sig = Artifact::readSignature(flags.artifactPath);
  if (!sig.ok())
    return sig.status();
  if (flags.device != "auto" && flags.device != sig->device)
    return invalidArgument(
        flags.artifactPath + " was compiled for device '" + sig->device +
        "', not '" + flags.device +
        "' (compile it again with jeet-compile --device=" + flags.device + ")");
  return Artifact::load(flags.artifactPath, static_cast<int>(flags.cudaOrdinal),
                        flags.cudaGraphs);
}

/// The inputs, one per argument, checked against the signature and copied
/// to the artifact's device; and the --output paths checked.
StatusOr<std::vector<Tensor>> readInputs(const RunnerFlags &flags,
                                         const ArtifactSignature &sig,
                                         Device &target) {
  if (flags.inputs.size() != sig.inputs.size())
    return invalidArgument(
        "'" + sig.entry + "' takes " + std::to_string(sig.inputs.size()) +
        " arguments but " + std::to_string(flags.inputs.size()) +
        " --input given");
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < flags.inputs.size(); ++i) {
    StatusOr<Tensor> tensor = readInput(flags.inputs[i]);
    if (!tensor.ok())
      return invalidArgument("--input #" + std::to_string(i) + ": " +
                             tensor.status().message());
    if (tensor->typeString() != sig.inputs[i].str())
      return invalidArgument("argument #" + std::to_string(i) + " of '" +
                             sig.entry + "' expects " + sig.inputs[i].str() +
                             ", given " + tensor->typeString());
    if (&target == &getHostDevice()) {
      tensors.push_back(std::move(*tensor));
      continue;
    }
    StatusOr<Tensor> copy = tensor->to(target);
    if (!copy.ok())
      return invalidArgument("copying inputs to " + target.name() + ": " +
                             copy.status().message());
    tensors.push_back(std::move(*copy));
  }
  if (!flags.outputs.empty() && flags.outputs.size() != sig.outputs.size())
    return invalidArgument(
        "'" + sig.entry + "' returns " + std::to_string(sig.outputs.size()) +
        " results but " + std::to_string(flags.outputs.size()) +
        " --output given");
  for (const std::string &out : flags.outputs)
    if (out.empty() || out[0] != '@')
      return invalidArgument("--output '" + out + "': expected @path.npy");
  return tensors;
}

/// Runs the artifact `runs` times (after one warm-up run when
/// benchmarking), measuring the allocator and launches around the runs.
StatusOr<RunMeasurements> runTimed(Artifact &artifact, long long runs,
                                   bool warmUp,
                                   const std::vector<Tensor> &inputs,
                                   std::vector<Tensor> &outputs) {
  Device &target = artifact.device();
  if (warmUp)
    if (Status status = artifact.run(inputs, outputs); !status.ok())
      return status;
  RunMeasurements measured;
  target.allocator().resetPeak();
  measured.before = target.allocator().stats();
  measured.launchesBefore = target.executionStats();
  // GPU: each run queued without waiting between two events, then waited
  // for.
  std::optional<StreamTimer> timer;
  ExecutionOptions options;
  if (target.kind() == DeviceKind::Cuda) {
    timer.emplace(static_cast<CudaDevice &>(target));
    options.stream = target.defaultStream();
  }
  for (long long r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    if (timer) {
      StatusOr<float> elapsed = timer->time(options.stream, [&] {
        return artifact.run(inputs, outputs, options);
      });
      if (!elapsed.ok())
        return elapsed.status();
      measured.deviceMs.push_back(*elapsed);
    } else if (Status status = artifact.run(inputs, outputs); !status.ok()) {
      return status;
    }
    measured.seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  measured.after = target.allocator().stats();
  measured.launchesAfter = target.executionStats();
  return measured;
}

/// Brings the results to the host and prints them, or writes each to its
/// --output file.
int writeResults(const RunnerFlags &flags, Device &target,
                 const std::vector<Tensor> &deviceOutputs) {
  std::vector<Tensor> results;
  for (const Tensor &t : deviceOutputs) {
    if (&target == &getHostDevice()) {
      results.push_back(t);
      continue;
    }
    StatusOr<Tensor> copy = t.to(getHostDevice());
    if (!copy.ok())
      return fail("copying results from " + target.name() + ": " +
                  copy.status().message());
    results.push_back(std::move(*copy));
  }
  if (flags.outputs.empty()) {
    for (const Tensor &t : results)
      std::printf("%s\n", formatTensor(t).c_str());
    return 0;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    Status status = saveNpy(flags.outputs[i].substr(1), results[i]);
    if (!status.ok())
      return fail(status.message());
  }
  return 0;
}

void printBenchmark(std::vector<double> seconds, std::vector<double> deviceMs,
                    const Device &target) {
  const char *emulated = target.isEmulated() ? kEmulatedTimes : "";
  std::sort(seconds.begin(), seconds.end());
  std::printf("benchmark: %zu runs, median %.3f ms, min %.3f ms%s\n",
              seconds.size(),
              seconds[seconds.size() / 2] * kMillisecondsPerSecond,
              seconds.front() * kMillisecondsPerSecond, emulated);
  if (deviceMs.empty())
    return;
  std::sort(deviceMs.begin(), deviceMs.end());
  std::printf("device time: median %.3f ms, min %.3f ms (CUDA events around "
              "each execution's work)%s\n",
              deviceMs[deviceMs.size() / 2], deviceMs.front(), emulated);
}

/// The device as --print-stats names it: a GPU with its description, which
/// says when the GPU is emulated.
std::string describeDevice(Device &target) {
  if (target.kind() != DeviceKind::Cuda)
    return target.name();
  auto &cuda = static_cast<CudaDevice &>(target);
  return cuda.name() + " (" + cuda.description() + ")";
}

void printStats(const Artifact &artifact, Device &target,
                const RunMeasurements &measured) {
  const ArtifactSignature &sig = artifact.signature();
  const AllocatorStats &before = measured.before, &after = measured.after;
  long long runs = static_cast<long long>(measured.seconds.size());
  const ExecutionStats &start = measured.launchesBefore,
                       &end = measured.launchesAfter;
  // Kernels launched one by one, and those of replayed CUDA graphs.
  uint64_t launched = target.kind() == DeviceKind::Host
                          ? static_cast<uint64_t>(sig.kernels * runs)
                          : end.kernels_launched - start.kernels_launched +
                                (end.graph_launches - start.graph_launches) *
                                    static_cast<uint64_t>(sig.kernels);
  const CompiledEntry &entry = artifact.entry();
  std::printf("device: %s\n", describeDevice(target).c_str());
  std::printf("kernels per execution: %lld\n",
              static_cast<long long>(sig.kernels));
  std::printf("kernels executed: %llu\n",
              static_cast<unsigned long long>(launched));
  if (target.kind() == DeviceKind::Cuda)
    std::printf(
        "cuda graphs: %s\n",
        entry.replaying() ? "on" : ("off: " + entry.replayOffReason()).c_str());
  std::printf("arena bytes: %llu\n",
              static_cast<unsigned long long>(sig.arenaBytes));
  std::printf("peak intermediate bytes: %llu\n",
              static_cast<unsigned long long>(after.peak_allocated_bytes -
                                              before.allocated_bytes));
  std::printf(
      "intermediate allocations: %llu (%llu from the cache, %llu "
      "from the system)\n",
      static_cast<unsigned long long>(after.num_allocs - before.num_allocs),
      static_cast<unsigned long long>(after.cache_hits - before.cache_hits),
      static_cast<unsigned long long>(after.device_mallocs -
                                      before.device_mallocs));
  const char *prefix =
      target.kind() == DeviceKind::Host ? "host" : target.name().c_str();
  for (auto [name, value] : after.items())
    std::printf("%s.%s: %llu\n", prefix, name,
                static_cast<unsigned long long>(value));
  // What the runs asked of the device (the warm-up run excluded).
  auto counts = end.items();
  auto starts = start.items();
  for (size_t i = 0; i < counts.size(); ++i)
    std::printf(
        "%s.%s: %llu\n", prefix, counts[i].first,
        static_cast<unsigned long long>(counts[i].second - starts[i].second));
}

/// Loads the artifact, runs it on the inputs and reports.
int runMain(const RunnerFlags &flags) {
  StatusOr<std::unique_ptr<Artifact>> loaded = loadArtifact(flags);
  if (!loaded.ok())
    return fail(loaded.status().message());
  Artifact &artifact = **loaded;
  Device &target = artifact.device();
  StatusOr<std::vector<Tensor>> inputs =
      readInputs(flags, artifact.signature(), target);
  if (!inputs.ok())
    return fail(inputs.status().message());
  StatusOr<std::vector<Tensor>> outputs = artifact.allocateOutputs();
  if (!outputs.ok())
    return fail(outputs.status().message());
  StatusOr<RunMeasurements> measured =
      runTimed(artifact, std::max(1LL, flags.benchmark), flags.benchmark > 0,
               *inputs, *outputs);
  if (!measured.ok())
    return fail("execution failed: " + measured.status().toString());
  if (int rc = writeResults(flags, target, *outputs))
    return rc;
  if (flags.benchmark > 0)
    printBenchmark(measured->seconds, measured->deviceMs, target);
  if (flags.printStats)
    printStats(artifact, target, *measured);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  RunnerFlags flags;
  if (std::string error = parseFlags(argc, argv, flags); !error.empty())
    return fail(error);
  if (flags.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (flags.listDevices)
    return listDevicesMain();
  if (flags.copyBandwidth > 0)
    return copyBandwidthMain(flags);
  if (flags.artifactPath.empty()) {
    std::fputs(kUsage, stderr);
    return fail("no artifact given");
  }
  if (flags.device != "auto" && flags.device != "cpu" && flags.device != "gpu")
    return fail("unknown device '" + flags.device +
                "' (expected cpu, gpu or auto)");
  if (flags.printSignature)
    return printSignatureMain(flags.artifactPath);
  return runMain(flags);
}
