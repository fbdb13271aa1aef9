//===- EmulatorBench.cpp - How long kernels take on the GPU emulator ------===//
//
// Runs, through the runtime's CudaDevice on libjeet_cuda_emulator.so:
// - a 1024x1024x1024 f32 matmul with the shape of Jeet's tiled GPU kernel
//   (256 threads per block, 64x64 tiles, K staged 16 deep in shared memory
//   behind two barriers, a 4x4 register tile per thread);
// - the 10-op elementwise chain on 2^20 elements, unfused (ten launches) and
//   fused (one launch);
// with the checks on and off, and prints one table. These times are the
// emulator's, on this host's CPU: they say nothing about a GPU.
//
//===----------------------------------------------------------------------===//

#include "jeet/Emulator/Emulator.h"
#include "jeet/Runtime/CudaDevice.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

using namespace jeet::runtime;

namespace {
struct Options {
  std::string driver = JEET_EMULATOR_PATH;
  std::string kernels = JEET_EMULATOR_BENCH_KERNELS;
  int64_t size = 1024;
  int log2Elements = 20;
  std::string checks = "both";
};

/// The budgets on a 2-core host, with the checks on.
constexpr double kMatmulBudgetSeconds = 30.0;
constexpr double kChainBudgetSeconds = 5.0;
constexpr int kChainOps = 10;
constexpr int kSampledEntries = 256;

void usage() {
  std::printf(
      "usage: jeet-emulator-bench [--size N] [--log2-elements N]\n"
      "                           [--checks all|none|both] [--driver PATH]\n"
      "Times a tiled NxNxN matmul and a 10-op elementwise chain on the Jeet\n"
      "GPU emulator (JEET_EMULATOR_THREADS sets the host threads).\n");
}

bool parse(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    const char *text = nullptr;
    if (arg == "--size" && (text = value()))
      options.size = std::atoll(text);
    else if (arg == "--log2-elements" && (text = value()))
      options.log2Elements = std::atoi(text);
    else if (arg == "--checks" && (text = value()))
      options.checks = text;
    else if (arg == "--driver" && (text = value()))
      options.driver = text;
    else {
      usage();
      return false;
    }
  }
  return options.size > 0 && options.log2Elements > 0 &&
         options.log2Elements < 31 &&
         (options.checks == "all" || options.checks == "none" ||
          options.checks == "both");
}

bool ok(const Status &status) {
  if (status.ok())
    return true;
  std::fprintf(stderr, "error: %s\n", status.toString().c_str());
  return false;
}

/// Wall-clock and CPU time (all threads of the process) since construction.
struct Timer {
  Timer() : wall(std::chrono::steady_clock::now()), cpu(cpuSeconds()) {}
  static double cpuSeconds() {
    timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
  }
  double wallSeconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         wall)
        .count();
  }
  double cpuSecondsSince() const { return cpuSeconds() - cpu; }
  std::chrono::steady_clock::time_point wall;
  double cpu;
};

struct Row {
  std::string name;
  std::string checks;
  double seconds;
  double cpuSeconds;
  double budget;
  JeetEmulatorStats stats;
  std::string verdict;
};

class Bench {
public:
  Bench(CudaDevice &device, const Options &options)
      : device_(device), options_(options), rng_(1234) {
    void *handle = device.driver().handle;
    setChecks_ =
        reinterpret_cast<void (*)(int)>(dlsym(handle, "jeetEmulatorSetChecks"));
    getStats_ = reinterpret_cast<void (*)(JeetEmulatorStats *)>(
        dlsym(handle, "jeetEmulatorGetStats"));
  }

  bool load() {
    return loadKernel("Matmul", "matmul_tiled", &matmul_) &&
           loadKernel("Elementwise", "ew_step", &step_) &&
           loadKernel("Elementwise", "ew_chain10", &chain_);
  }

  bool run(std::vector<Row> &rows) {
    std::vector<int> modes;
    if (options_.checks != "none")
      modes.push_back(JEET_EMULATOR_CHECK_MEMORY | JEET_EMULATOR_CHECK_RACES);
    if (options_.checks != "all")
      modes.push_back(0);
    for (int checks : modes) {
      setChecks_(checks);
      std::string label = checks ? "all" : "none";
      if (!runMatmul(label, rows) || !runChain(label, rows))
        return false;
    }
    return true;
  }

private:
  bool loadKernel(const std::string &object, const std::string &name,
                  CudaKernel **kernel) {
    std::string path = options_.kernels + "/jeet_emu_bench_" + object + ".so";
    std::ifstream file(path, std::ios::binary);
    std::vector<char> bytes(std::istreambuf_iterator<char>(file), {});
    if (bytes.empty()) {
      std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
      return false;
    }
    StatusOr<CudaModule *> module = device_.loadModule(
        bytes.data(), bytes.size(), ModuleFormat::Auto, object);
    if (!ok(module.status()))
      return false;
    StatusOr<CudaKernel *> found = (*module)->getFunction(name);
    if (!ok(found.status()))
      return false;
    *kernel = *found;
    return true;
  }

  void *upload(const std::vector<float> &values) {
    StatusOr<void *> ptr =
        device_.allocator().allocate(values.size() * sizeof(float));
    if (!ok(ptr.status()) ||
        !ok(device_.copyHostToDevice(*ptr, values.data(),
                                     values.size() * sizeof(float))))
      std::exit(1);
    return *ptr;
  }

  std::vector<float> random(size_t n) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (float &v : values)
      v = dist(rng_);
    return values;
  }

  JeetEmulatorStats stats() {
    JeetEmulatorStats result{};
    getStats_(&result);
    return result;
  }

  static JeetEmulatorStats delta(const JeetEmulatorStats &a,
                                 const JeetEmulatorStats &b) {
    JeetEmulatorStats d{};
    d.launches = b.launches - a.launches;
    d.blocks = b.blocks - a.blocks;
    d.threads = b.threads - a.threads;
    d.barriers = b.barriers - a.barriers;
    d.shuffles = b.shuffles - a.shuffles;
    d.globalChecks = b.globalChecks - a.globalChecks;
    d.sharedChecks = b.sharedChecks - a.sharedChecks;
    d.faults = b.faults - a.faults;
    return d;
  }

  bool runMatmul(const std::string &checks, std::vector<Row> &rows) {
    const int64_t n = options_.size;
    std::vector<float> a = random(n * n), b = random(n * n);
    void *A = upload(a), *B = upload(b);
    StatusOr<void *> C = device_.allocator().allocate(n * n * sizeof(float));
    if (!ok(C.status()))
      return false;
    int64_t m = n, cols = n, k = n;
    void *c = *C;
    void *params[] = {&A, &B, &c, &m, &cols, &k};
    unsigned tiles = static_cast<unsigned>((n + 63) / 64);
    JeetEmulatorStats before = stats();
    Timer timer;
    if (!ok(device_.launch(*matmul_, {tiles, tiles, 1}, {256, 1, 1}, 0,
                           device_.stream(), params)) ||
        !ok(device_.synchronizeStream(device_.stream())))
      return false;
    double elapsed = timer.wallSeconds(), cpu = timer.cpuSecondsSince();
    std::vector<float> result(n * n);
    if (!ok(device_.copyDeviceToHost(result.data(), c,
                                     result.size() * sizeof(float))))
      return false;
    // Sampled entries against float64.
    double worst = 0;
    std::uniform_int_distribution<int64_t> pick(0, n - 1);
    for (int s = 0; s < kSampledEntries; ++s) {
      int64_t i = pick(rng_), j = pick(rng_);
      double expected = 0, magnitude = 0;
      for (int64_t p = 0; p < n; ++p) {
        expected += double(a[i * n + p]) * b[p * n + j];
        magnitude += std::fabs(double(a[i * n + p]) * b[p * n + j]);
      }
      worst = std::max(worst, std::fabs(result[i * n + j] - expected) /
                                  (magnitude + 1e-30));
    }
    char verdict[64];
    std::snprintf(verdict, sizeof(verdict), "%s (rel. err %.1e)",
                  worst < 1e-5 ? "ok" : "WRONG", worst);
    rows.push_back({"matmul " + std::to_string(n) + "^3", checks, elapsed, cpu,
                    kMatmulBudgetSeconds, delta(before, stats()), verdict});
    for (void *ptr : {A, B, c})
      (void)device_.allocator().free(ptr);
    return worst < 1e-5;
  }

  static float apply(int op, float x, float y) {
    switch (op % 5) {
    case 0:
      return x + y;
    case 1:
      return x * y;
    case 2:
      return x - y;
    case 3:
      return x > y ? x : y;
    default:
      return x * 0.5f + y;
    }
  }

  bool runChain(const std::string &checks, std::vector<Row> &rows) {
    const int64_t n = int64_t(1) << options_.log2Elements;
    std::vector<float> x = random(n), y = random(n);
    std::vector<float> expected(n);
    for (int64_t i = 0; i < n; ++i) {
      float v = x[i];
      for (int op = 0; op < kChainOps; ++op)
        v = apply(op, v, y[i]);
      expected[i] = v;
    }
    void *X = upload(x), *Y = upload(y);
    StatusOr<void *> T = device_.allocator().allocate(n * sizeof(float));
    StatusOr<void *> U = device_.allocator().allocate(n * sizeof(float));
    if (!ok(T.status()) || !ok(U.status()))
      return false;
    void *t = *T, *u = *U;
    int64_t count = n;
    unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    std::string size = "2^" + std::to_string(options_.log2Elements);
    for (bool fused : {false, true}) {
      JeetEmulatorStats before = stats();
      Timer timer;
      void *result = t;
      if (fused) {
        void *params[] = {&X, &Y, &t, &count};
        if (!ok(device_.launch(*chain_, {blocks, 1, 1}, {256, 1, 1}, 0,
                               device_.stream(), params)))
          return false;
      } else {
        // Each op reads the previous result (x for the first), writes the
        // other of two buffers.
        void *in = X;
        for (int32_t op = 0; op < kChainOps; ++op) {
          void *out = op % 2 ? u : t;
          void *params[] = {&in, &Y, &out, &count, &op};
          if (!ok(device_.launch(*step_, {blocks, 1, 1}, {256, 1, 1}, 0,
                                 device_.stream(), params)))
            return false;
          in = out;
        }
        result = in;
      }
      if (!ok(device_.synchronizeStream(device_.stream())))
        return false;
      double elapsed = timer.wallSeconds(), cpu = timer.cpuSecondsSince();
      std::vector<float> values(n);
      if (!ok(device_.copyDeviceToHost(values.data(), result,
                                       n * sizeof(float))))
        return false;
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i)
        wrong += values[i] != expected[i];
      rows.push_back(
          {std::string(fused ? "chain fused " : "chain 10 launches ") + size,
           checks, elapsed, cpu, kChainBudgetSeconds, delta(before, stats()),
           wrong ? std::to_string(wrong) + " WRONG" : "ok"});
      if (wrong)
        return false;
    }
    for (void *ptr : {X, Y, t, u})
      (void)device_.allocator().free(ptr);
    return true;
  }

  CudaDevice &device_;
  const Options &options_;
  std::mt19937 rng_;
  void (*setChecks_)(int) = nullptr;
  void (*getStats_)(JeetEmulatorStats *) = nullptr;
  CudaKernel *matmul_ = nullptr, *step_ = nullptr, *chain_ = nullptr;
};

void printTable(const std::vector<Row> &rows) {
  std::printf("%-24s %-6s %8s %8s %7s %7s %9s %8s %11s %7s  %s\n", "case",
              "checks", "wall s", "cpu s", "budget", "blocks", "threads",
              "barriers", "checked", "ns/chk", "result");
  for (const Row &row : rows) {
    uint64_t checked = row.stats.globalChecks + row.stats.sharedChecks;
    char budget[16];
    std::snprintf(budget, sizeof(budget), "%.0f s", row.budget);
    std::printf("%-24s %-6s %8.3f %8.3f %7s %7llu %9llu %8llu %11llu %7.1f  "
                "%s\n",
                row.name.c_str(), row.checks.c_str(), row.seconds,
                row.cpuSeconds, row.checks == "all" ? budget : "-",
                static_cast<unsigned long long>(row.stats.blocks),
                static_cast<unsigned long long>(row.stats.threads),
                static_cast<unsigned long long>(row.stats.barriers),
                static_cast<unsigned long long>(checked),
                checked ? row.cpuSeconds * 1e9 / checked : 0.0,
                row.verdict.c_str());
  }
}
} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parse(argc, argv, options))
    return 2;
  CudaOptions cuda;
  cuda.driverPath = options.driver;
  StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::open(cuda);
  if (!ok(device.status()))
    return 1;
  if (!(*device)->isEmulator()) {
    std::fprintf(stderr, "error: %s is not the Jeet GPU emulator\n",
                 options.driver.c_str());
    return 1;
  }
  int workers = 0;
  (*device)->driver().cuDeviceGetAttribute(
      &workers, cu::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
  std::printf("%s; %d host thread(s) run blocks\n",
              (*device)->description().c_str(), workers);
  std::printf("Emulator times on this CPU, not GPU speed.\n\n");
  Bench bench(**device, options);
  std::vector<Row> rows;
  bool good = bench.load() && bench.run(rows);
  printTable(rows);
  return good ? 0 : 1;
}
