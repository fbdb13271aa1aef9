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
#include <cstring>
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
    "  --benchmark=N                     run N times (after one warm-up run)\n"
    "                                    and print the median time\n"
    "  --print-stats                     print kernels launched and memory\n"
    "                                    statistics\n"
    "  --print-signature                 print the artifact's signature and\n"
    "                                    exit (nothing runs)\n"
    "  --list-devices                    print the devices and why each is\n"
    "                                    unavailable, and exit\n";

int fail(const std::string &message) {
  std::fprintf(stderr, "jeet-runner: error: %s\n", message.c_str());
  return 1;
}

bool startsWith(const std::string &s, const char *prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

bool parseCount(const std::string &text, long long &out) {
  char *end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0' && out >= 0;
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

} // namespace

int main(int argc, char **argv) {
  std::string artifactPath, device = "auto";
  std::vector<std::string> inputs, outputs;
  long long benchmark = 0, cudaOrdinal = 0;
  bool printStats = false, printSignature = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    // Accept both --flag=value and -flag=value, as LLVM tools do.
    if (startsWith(arg, "-") && !startsWith(arg, "--"))
      arg = "-" + arg;
    if (arg == "--help" || arg == "-h" || arg == "---h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (startsWith(arg, "--input=")) {
      inputs.push_back(arg.substr(8));
    } else if (startsWith(arg, "--output=")) {
      outputs.push_back(arg.substr(9));
    } else if (startsWith(arg, "--device=")) {
      device = arg.substr(9);
    } else if (startsWith(arg, "--cuda-device=")) {
      if (!parseCount(arg.substr(14), cudaOrdinal))
        return fail("--cuda-device: expected a device ordinal, given '" +
                    arg.substr(14) + "'");
    } else if (startsWith(arg, "--benchmark=")) {
      if (!parseCount(arg.substr(12), benchmark))
        return fail("--benchmark: expected a count, given '" + arg.substr(12) +
                    "'");
    } else if (arg == "--print-stats") {
      printStats = true;
    } else if (arg == "--print-signature") {
      printSignature = true;
    } else if (arg == "--list-devices") {
      return listDevicesMain();
    } else if (startsWith(arg, "--")) {
      return fail("unknown option '" + std::string(argv[i]) + "' (see --help)");
    } else if (artifactPath.empty()) {
      artifactPath = arg;
    } else {
      return fail("more than one artifact given: '" + artifactPath + "' and '" +
                  arg + "'");
    }
  }
  if (artifactPath.empty()) {
    std::fputs(kUsage, stderr);
    return fail("no artifact given");
  }
  if (device != "auto" && device != "cpu" && device != "gpu")
    return fail("unknown device '" + device + "' (expected cpu, gpu or auto)");

  if (printSignature) {
    StatusOr<ArtifactSignature> sig = Artifact::readSignature(artifactPath);
    if (!sig.ok())
      return fail(sig.status().message());
    std::printf("%s\n", sig->str().c_str());
    return 0;
  }

  // Check the device before loading: a GPU artifact loads its kernels at
  // load time, and --device=cpu on it must not open the GPU at all.
  {
    StatusOr<ArtifactSignature> sig = Artifact::readSignature(artifactPath);
    if (!sig.ok())
      return fail(sig.status().message());
    if (device != "auto" && device != sig->device)
      return fail(artifactPath + " was compiled for device '" + sig->device +
                  "', not '" + device +
                  "' (compile it again with "
                  "jeet-compile --device=" +
                  device + ")");
  }
  StatusOr<std::unique_ptr<Artifact>> loaded =
      Artifact::load(artifactPath, static_cast<int>(cudaOrdinal));
  if (!loaded.ok())
    return fail(loaded.status().message());
  Artifact &artifact = **loaded;
  const ArtifactSignature &sig = artifact.signature();
  Device &target = artifact.device();

  // Inputs: one per argument, checked against the signature.
  if (inputs.size() != sig.inputs.size())
    return fail("'" + sig.entry + "' takes " +
                std::to_string(sig.inputs.size()) + " arguments but " +
                std::to_string(inputs.size()) + " --input given");
  std::vector<Tensor> inputTensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    StatusOr<Tensor> tensor = readInput(inputs[i]);
    if (!tensor.ok())
      return fail("--input #" + std::to_string(i) + ": " +
                  tensor.status().message());
    if (tensor->typeString() != sig.inputs[i].str())
      return fail("argument #" + std::to_string(i) + " of '" + sig.entry +
                  "' expects " + sig.inputs[i].str() + ", given " +
                  tensor->typeString());
    inputTensors.push_back(std::move(*tensor));
  }
  if (!outputs.empty() && outputs.size() != sig.outputs.size())
    return fail("'" + sig.entry + "' returns " +
                std::to_string(sig.outputs.size()) + " results but " +
                std::to_string(outputs.size()) + " --output given");
  for (const std::string &out : outputs)
    if (out.empty() || out[0] != '@')
      return fail("--output '" + out + "': expected @path.npy");

  // Inputs to the device once; outputs allocated there once.
  std::vector<Tensor> deviceInputs;
  for (const Tensor &t : inputTensors) {
    if (&target == &getHostDevice()) {
      deviceInputs.push_back(t);
      continue;
    }
    StatusOr<Tensor> copy = t.to(target);
    if (!copy.ok())
      return fail("copying inputs to " + target.name() + ": " +
                  copy.status().message());
    deviceInputs.push_back(std::move(*copy));
  }
  StatusOr<std::vector<Tensor>> deviceOutputs = artifact.allocateOutputs();
  if (!deviceOutputs.ok())
    return fail(deviceOutputs.status().message());

  auto runOnce = [&]() -> Status {
    return artifact.run(deviceInputs, *deviceOutputs);
  };
  if (benchmark > 0) {
    Status status = runOnce(); // warm-up
    if (!status.ok())
      return fail("execution failed: " + status.toString());
  }
  target.allocator().resetPeak();
  AllocatorStats before = target.allocator().stats();
  ExecutionStats launchesBefore = target.executionStats();
  long long runs = std::max(1LL, benchmark);
  std::vector<double> times;
  for (long long r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    Status status = runOnce();
    if (!status.ok())
      return fail("execution failed: " + status.toString());
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  AllocatorStats after = target.allocator().stats();
  ExecutionStats launchesAfter = target.executionStats();

  // Outputs back to the host.
  std::vector<Tensor> results;
  for (const Tensor &t : *deviceOutputs) {
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
  if (outputs.empty()) {
    for (const Tensor &t : results)
      std::printf("%s\n", formatTensor(t).c_str());
  } else {
    for (size_t i = 0; i < results.size(); ++i) {
      Status status = saveNpy(outputs[i].substr(1), results[i]);
      if (!status.ok())
        return fail(status.message());
    }
  }

  if (benchmark > 0) {
    std::sort(times.begin(), times.end());
    std::printf("benchmark: %lld runs, median %.3f ms, min %.3f ms\n", runs,
                times[runs / 2] * 1e3, times.front() * 1e3);
  }
  if (printStats) {
    uint64_t launched =
        target.kind() == DeviceKind::Host
            ? static_cast<uint64_t>(sig.kernels * runs)
            : launchesAfter.kernels_launched - launchesBefore.kernels_launched;
    std::printf("device: %s\n", target.name().c_str());
    std::printf("kernels per execution: %lld\n",
                static_cast<long long>(sig.kernels));
    std::printf("kernels executed: %llu\n",
                static_cast<unsigned long long>(launched));
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
  }
  return 0;
}
