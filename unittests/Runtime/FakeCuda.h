//===- FakeCuda.h - Knobs and call log of the fake CUDA driver --*- C++ -*-===//
//
// libjeet_fake_cuda.so exports the cu* entry points the runtime resolves,
// backed by host memory. It runs no kernels; it records every call. Point
// CudaOptions::driverPath (or $JEET_CUDA_DRIVER) at it.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_UNITTESTS_RUNTIME_FAKECUDA_H
#define JEET_UNITTESTS_RUNTIME_FAKECUDA_H

#include <cstddef>
#include <string>
#include <vector>

extern "C" {
/// Frees everything, clears the log and restores the defaults (driver 13.0,
/// one device of compute capability 9.0, no memory limit).
void fake_cuda_reset();
/// The calls so far, one per line: "cuLaunchKernel(kernel=k, ...)", with
/// " -> CUDA_ERROR_X" appended to failed ones. Valid until the next call.
const char *fake_cuda_log();
void fake_cuda_clear_log();
/// Number of logged calls to `name` (e.g. "cuMemAlloc_v2").
size_t fake_cuda_count_calls(const char *name);
/// cuMemAlloc fails with CUDA_ERROR_OUT_OF_MEMORY past `bytes` in use (0: no
/// limit).
void fake_cuda_set_mem_limit(size_t bytes);
/// As cuDriverGetVersion reports it: 11080 for 11.8.
void fake_cuda_set_driver_version(int version);
void fake_cuda_set_device_count(int count);
void fake_cuda_set_compute_capability(int major, int minor);
/// The next call to `name` returns `code` (once).
void fake_cuda_fail_next(const char *name, int code);
size_t fake_cuda_live_allocations();
size_t fake_cuda_bytes_in_use();
/// Number of modules loaded and not unloaded.
size_t fake_cuda_live_modules();
}

/// The log as a list of calls.
inline std::vector<std::string> fakeCudaCalls() {
  std::vector<std::string> calls;
  std::string log = fake_cuda_log();
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos)
      end = log.size();
    calls.push_back(log.substr(start, end - start));
    start = end + 1;
  }
  return calls;
}

/// The calls whose name starts with `prefix`.
inline std::vector<std::string> fakeCudaCalls(const std::string &prefix) {
  std::vector<std::string> matching;
  for (const std::string &call : fakeCudaCalls())
    if (call.compare(0, prefix.size(), prefix) == 0)
      matching.push_back(call);
  return matching;
}

#endif // JEET_UNITTESTS_RUNTIME_FAKECUDA_H
