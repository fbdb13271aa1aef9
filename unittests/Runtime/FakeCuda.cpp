//===- FakeCuda.cpp - A test double of the CUDA driver --------------------===//
//
// Exports the driver entry points the runtime resolves. Memory is host memory
// (cuMemAlloc = aligned malloc, copies = memcpy); no kernel runs; every call
// is recorded in a log the tests read. See FakeCuda.h for the knobs.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
using CUresult = int;
using CUdeviceptr = unsigned long long;

struct FakeModule;
struct FakeFunction {
  std::string name;
  FakeModule *module;
};
struct FakeModule {
  int id;
  std::vector<std::string> entries;
  /// The byte size of each parameter of each entry, from its PTX signature.
  std::map<std::string, std::vector<size_t>> paramSizes;
  std::map<std::string, std::unique_ptr<FakeFunction>> functions;
};
struct FakeStream {
  int id;
};
struct FakeEvent {
  int id;
  bool recorded = false;
  double time = 0;
};
struct FakeGraphNode {
  int id;
  FakeFunction *function;
};
struct FakeGraph {
  int id;
  std::vector<FakeGraphNode> nodes;
};
struct FakeGraphExec {
  int id;
  int graph;
  std::vector<FakeGraphNode> nodes;
};

struct State {
  std::mutex mutex;
  std::vector<std::string> log;
  std::string joined;
  std::map<std::string, int> failNext;
  size_t memLimit = 0;
  size_t inUse = 0;
  std::map<uintptr_t, size_t> allocations;
  std::map<FakeModule *, std::unique_ptr<FakeModule>> modules;
  std::map<FakeStream *, std::unique_ptr<FakeStream>> streams;
  std::map<FakeEvent *, std::unique_ptr<FakeEvent>> events;
  std::map<FakeGraph *, std::unique_ptr<FakeGraph>> graphs;
  std::map<FakeGraphExec *, std::unique_ptr<FakeGraphExec>> execs;
  int driverVersion = 13000;
  int deviceCount = 1;
  int ccMajor = 9, ccMinor = 0;
  int nextModule = 1, nextStream = 1, nextEvent = 1, nextGraph = 1,
      nextExec = 1, nextNode = 1;
  double clock = 0;
  int context = 0;
};

State &state() {
  static State *instance = new State();
  return *instance;
}

struct ErrorInfo {
  int code;
  const char *name;
  const char *text;
};
const ErrorInfo kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorInfo *findError(int code) {
  for (const ErrorInfo &info : kErrors)
    if (info.code == code)
      return &info;
  return nullptr;
}

/// One recorded call; holds the state's lock for its duration.
/// A new fake handle numbered from `next`, owned by `table` and written to
/// `*out`; returned for the caller to fill in.
template <typename Fake>
Fake *addHandle(std::map<Fake *, std::unique_ptr<Fake>> &table, int &next,
                void **out) {
  auto fake = std::make_unique<Fake>();
  Fake *raw = fake.get();
  raw->id = next++;
  *out = raw;
  table[raw] = std::move(fake);
  return raw;
}

class Call {
public:
  Call(const char *name, const std::string &args)
      : lock_(state().mutex), s(state()), name_(name) {
    s.log.push_back(std::string(name) + "(" + args + ")");
    index_ = s.log.size() - 1;
  }
  /// The failure injected for this call, or 0.
  CUresult injected() {
    auto it = s.failNext.find(name_);
    if (it == s.failNext.end())
      return 0;
    CUresult code = it->second;
    s.failNext.erase(it);
    return result(code);
  }
  CUresult result(CUresult code) {
    if (code) {
      const ErrorInfo *info = findError(code);
      s.log[index_] +=
          " -> " + (info ? std::string(info->name) : std::to_string(code));
    }
    return code;
  }
  void note(const std::string &text) { s.log[index_] += " " + text; }

private:
  std::unique_lock<std::mutex> lock_;

public:
  State &s;

private:
  const char *name_;
  size_t index_;
};

std::string streamName(void *stream) {
  // cuda.h's CU_STREAM_LEGACY and CU_STREAM_PER_THREAD.
  if (reinterpret_cast<uintptr_t>(stream) == 0x1)
    return "legacy";
  if (reinterpret_cast<uintptr_t>(stream) == 0x2)
    return "per-thread";
  return stream ? std::to_string(static_cast<FakeStream *>(stream)->id) : "0";
}

std::string hex(const void *ptr) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", ptr);
  return text;
}

void *toPtr(CUdeviceptr ptr) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
}

std::vector<std::string> findEntries(const char *text) {
  std::vector<std::string> entries;
  for (const char *p = std::strstr(text, ".entry"); p;
       p = std::strstr(p + 6, ".entry")) {
    const char *begin = p + 6;
    while (*begin == ' ' || *begin == '\t' || *begin == '\n' || *begin == '\r')
      ++begin;
    const char *end = begin;
    while (*end && *end != ' ' && *end != '\t' && *end != '\n' &&
           *end != '\r' && *end != '(')
      ++end;
    if (end != begin)
      entries.emplace_back(begin, end);
  }
  return entries;
}

/// The byte size of each `.param` of each `.entry` in PTX text: a scalar's
/// type gives it (.u64 is 8 bytes), an array's count times its element.
std::map<std::string, std::vector<size_t>> findParamSizes(const char *text) {
  std::map<std::string, std::vector<size_t>> sizes;
  for (const char *p = std::strstr(text, ".entry"); p;
       p = std::strstr(p + 6, ".entry")) {
    const char *begin = p + 6;
    while (*begin == ' ' || *begin == '\t' || *begin == '\n' || *begin == '\r')
      ++begin;
    const char *end = begin;
    while (*end && *end != ' ' && *end != '\t' && *end != '\n' &&
           *end != '\r' && *end != '(')
      ++end;
    std::string name(begin, end);
    const char *open = std::strchr(end, '(');
    const char *close = open ? std::strchr(open, ')') : nullptr;
    std::vector<size_t> &params = sizes[name];
    if (!open || !close)
      continue;
    std::string list(open + 1, close);
    for (size_t at = list.find(".param"); at != std::string::npos;
         at = list.find(".param", at + 6)) {
      size_t comma = list.find(',', at);
      std::string decl = list.substr(
          at, comma == std::string::npos ? std::string::npos : comma - at);
      size_t bits = 8;
      for (const char *type : {"64", "32", "16"})
        if (decl.find(std::string(type) + " ") != std::string::npos) {
          bits = std::stoul(type);
          break;
        }
      size_t count = 1;
      if (size_t bracket = decl.find('['); bracket != std::string::npos)
        count = std::stoul(decl.substr(bracket + 1));
      params.push_back(bits / 8 * count);
    }
  }
  return sizes;
}

void writeLog(char *buffer, size_t size, const std::string &text) {
  if (!buffer || !size)
    return;
  size_t n = std::min(size - 1, text.size());
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}
} // namespace

//===----------------------------------------------------------------------===//
// Knobs
//===----------------------------------------------------------------------===//

FAKE_EXPORT void fake_cuda_reset() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto &entry : s.allocations)
    std::free(reinterpret_cast<void *>(entry.first));
  s.allocations.clear();
  s.inUse = 0;
  s.modules.clear();
  s.streams.clear();
  s.events.clear();
  s.graphs.clear();
  s.execs.clear();
  s.log.clear();
  s.failNext.clear();
  s.memLimit = 0;
  s.driverVersion = 13000;
  s.deviceCount = 1;
  s.ccMajor = 9;
  s.ccMinor = 0;
  s.clock = 0;
  s.nextModule = s.nextStream = s.nextEvent = 1;
  s.nextGraph = s.nextExec = s.nextNode = 1;
}

FAKE_EXPORT const char *fake_cuda_log() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.joined.clear();
  for (const std::string &line : s.log)
    s.joined += line + "\n";
  return s.joined.c_str();
}

FAKE_EXPORT void fake_cuda_clear_log() {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().log.clear();
}

FAKE_EXPORT size_t fake_cuda_count_calls(const char *name) {
  std::lock_guard<std::mutex> lock(state().mutex);
  std::string prefix = std::string(name) + "(";
  size_t count = 0;
  for (const std::string &line : state().log)
    count += line.compare(0, prefix.size(), prefix) == 0;
  return count;
}

FAKE_EXPORT void fake_cuda_set_mem_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().memLimit = bytes;
}

FAKE_EXPORT void fake_cuda_set_driver_version(int version) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().driverVersion = version;
}

FAKE_EXPORT void fake_cuda_set_device_count(int count) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().deviceCount = count;
}

FAKE_EXPORT void fake_cuda_set_compute_capability(int major, int minor) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().ccMajor = major;
  state().ccMinor = minor;
}

FAKE_EXPORT void fake_cuda_fail_next(const char *name, int code) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().failNext[name] = code;
}

FAKE_EXPORT size_t fake_cuda_live_allocations() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().allocations.size();
}

FAKE_EXPORT size_t fake_cuda_bytes_in_use() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().inUse;
}

FAKE_EXPORT size_t fake_cuda_live_modules() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().modules.size();
}

//===----------------------------------------------------------------------===//
// Initialisation and devices
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuInit(unsigned flags) {
  Call call("cuInit", std::to_string(flags));
  return call.injected();
}

FAKE_EXPORT CUresult cuDriverGetVersion(int *version) {
  Call call("cuDriverGetVersion", "");
  if (CUresult r = call.injected())
    return r;
  *version = call.s.driverVersion;
  return 0;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  Call call("cuDeviceGetCount", "");
  if (CUresult r = call.injected())
    return r;
  *count = call.s.deviceCount;
  return 0;
}

FAKE_EXPORT CUresult cuDeviceGet(int *device, int ordinal) {
  Call call("cuDeviceGet", std::to_string(ordinal));
  if (CUresult r = call.injected())
    return r;
  if (ordinal < 0 || ordinal >= call.s.deviceCount)
    return call.result(1);
  *device = ordinal;
  return 0;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute,
                                          int device) {
  Call call("cuDeviceGetAttribute",
            std::to_string(attribute) + ", " + std::to_string(device));
  if (CUresult r = call.injected())
    return r;
  if (attribute == 75)
    *value = call.s.ccMajor;
  else if (attribute == 76)
    *value = call.s.ccMinor;
  else
    *value = 1;
  return 0;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int length, int device) {
  Call call("cuDeviceGetName", std::to_string(device));
  if (CUresult r = call.injected())
    return r;
  writeLog(name, static_cast<size_t>(length), "Fake CUDA Device");
  return 0;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  Call call("cuDevicePrimaryCtxRetain", std::to_string(device));
  if (CUresult r = call.injected())
    return r;
  *context = &call.s.context;
  return 0;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(void *context) {
  Call call("cuCtxSetCurrent", context ? "ctx" : "null");
  return call.injected();
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  const ErrorInfo *info = findError(error);
  if (!info) {
    *name = nullptr;
    return 1;
  }
  *name = info->name;
  return 0;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  const ErrorInfo *info = findError(error);
  if (!info) {
    *text = nullptr;
    return 1;
  }
  *text = info->text;
  return 0;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  Call call("cuMemAlloc_v2", "bytes=" + std::to_string(bytes));
  if (CUresult r = call.injected())
    return r;
  State &s = call.s;
  if (s.memLimit && s.inUse + bytes > s.memLimit)
    return call.result(2);
  void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory)
    return call.result(2);
  s.allocations[reinterpret_cast<uintptr_t>(memory)] = bytes;
  s.inUse += bytes;
  *ptr = reinterpret_cast<uintptr_t>(memory);
  return 0;
}

FAKE_EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
  Call call("cuMemFree_v2", hex(toPtr(ptr)));
  if (CUresult r = call.injected())
    return r;
  auto it = call.s.allocations.find(static_cast<uintptr_t>(ptr));
  if (it == call.s.allocations.end())
    return call.result(1);
  call.s.inUse -= it->second;
  call.s.allocations.erase(it);
  std::free(toPtr(ptr));
  return 0;
}

FAKE_EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  Call call("cuMemGetInfo_v2", "");
  if (CUresult r = call.injected())
    return r;
  *total = call.s.memLimit ? call.s.memLimit : (size_t(80) << 30);
  *free = *total - call.s.inUse;
  return 0;
}

FAKE_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src,
                                     size_t bytes) {
  Call call("cuMemcpyHtoD_v2", "bytes=" + std::to_string(bytes));
  if (CUresult r = call.injected())
    return r;
  std::memcpy(toPtr(dst), src, bytes);
  return 0;
}

FAKE_EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  Call call("cuMemcpyDtoH_v2", "bytes=" + std::to_string(bytes));
  if (CUresult r = call.injected())
    return r;
  std::memcpy(dst, toPtr(src), bytes);
  return 0;
}

FAKE_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src,
                                     size_t bytes) {
  Call call("cuMemcpyDtoD_v2", "bytes=" + std::to_string(bytes));
  if (CUresult r = call.injected())
    return r;
  std::memmove(toPtr(dst), toPtr(src), bytes);
  return 0;
}

FAKE_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
                                   size_t bytes, void *stream) {
  Call call("cuMemcpyAsync", "bytes=" + std::to_string(bytes) +
                                 ", stream=" + streamName(stream));
  if (CUresult r = call.injected())
    return r;
  std::memmove(toPtr(dst), toPtr(src), bytes);
  return 0;
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src,
                                          size_t bytes, void *stream) {
  Call call("cuMemcpyHtoDAsync_v2", "bytes=" + std::to_string(bytes) +
                                        ", stream=" + streamName(stream));
  if (CUresult r = call.injected())
    return r;
  std::memcpy(toPtr(dst), src, bytes);
  return 0;
}

static void fill32(CUdeviceptr dst, unsigned value, size_t count) {
  unsigned *words = static_cast<unsigned *>(toPtr(dst));
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
}

FAKE_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned value,
                                    size_t count) {
  Call call("cuMemsetD32_v2", "value=" + std::to_string(value) +
                                  ", count=" + std::to_string(count));
  if (CUresult r = call.injected())
    return r;
  fill32(dst, value, count);
  return 0;
}

FAKE_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value,
                                      size_t count, void *stream) {
  Call call("cuMemsetD32Async", "value=" + std::to_string(value) +
                                    ", count=" + std::to_string(count) +
                                    ", stream=" + streamName(stream));
  if (CUresult r = call.injected())
    return r;
  fill32(dst, value, count);
  return 0;
}

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuModuleLoadDataEx(void **module, const void *image,
                                        unsigned numOptions, int *options,
                                        void **values) {
  const char *text = static_cast<const char *>(image);
  char *errorLog = nullptr, *infoLog = nullptr;
  size_t errorSize = 0, infoSize = 0;
  int errorSizeIndex = -1, infoSizeIndex = -1;
  std::string args;
  for (unsigned i = 0; i < numOptions; ++i) {
    switch (options[i]) {
    case 3:
      infoLog = static_cast<char *>(values[i]);
      break;
    case 4:
      infoSize = reinterpret_cast<uintptr_t>(values[i]);
      infoSizeIndex = static_cast<int>(i);
      break;
    case 5:
      errorLog = static_cast<char *>(values[i]);
      break;
    case 6:
      errorSize = reinterpret_cast<uintptr_t>(values[i]);
      errorSizeIndex = static_cast<int>(i);
      break;
    case 7:
      args += "opt=" + std::to_string(reinterpret_cast<uintptr_t>(values[i])) +
              ", ";
      break;
    default:
      break;
    }
  }
  std::vector<std::string> entries =
      text ? findEntries(text) : std::vector<std::string>();
  args += "entries=";
  for (size_t i = 0; i < entries.size(); ++i)
    args += (i ? "," : "") + entries[i];
  Call call("cuModuleLoadDataEx", args);
  if (CUresult r = call.injected())
    return r;
  if (!text)
    return call.result(1);
  if (std::strstr(text, "FAKE_JIT_ERROR")) {
    std::string log = "ptxas application ptx input, line 3; fatal   : "
                      "FAKE_JIT_ERROR: Parsing error near 'FAKE_JIT_ERROR'";
    writeLog(errorLog, errorSize, log);
    if (errorSizeIndex >= 0)
      values[errorSizeIndex] = reinterpret_cast<void *>(
          static_cast<uintptr_t>(std::min(log.size() + 1, errorSize)));
    return call.result(218);
  }
  std::string info = "fake ptxas: compiled " + std::to_string(entries.size()) +
                     " entry function(s)";
  writeLog(infoLog, infoSize, info);
  if (infoSizeIndex >= 0)
    values[infoSizeIndex] = reinterpret_cast<void *>(
        static_cast<uintptr_t>(std::min(info.size() + 1, infoSize)));
  writeLog(errorLog, errorSize, "");
  FakeModule *fake = addHandle(call.s.modules, call.s.nextModule, module);
  fake->entries = entries;
  fake->paramSizes = findParamSizes(text);
  call.note("=> module " + std::to_string(fake->id));
  return 0;
}

FAKE_EXPORT CUresult cuModuleUnload(void *module) {
  State &s = state();
  std::string id = "?";
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.modules.find(static_cast<FakeModule *>(module));
    if (it != s.modules.end())
      id = std::to_string(it->second->id);
  }
  Call call("cuModuleUnload", "module " + id);
  if (CUresult r = call.injected())
    return r;
  if (!s.modules.erase(static_cast<FakeModule *>(module)))
    return call.result(400);
  return 0;
}

FAKE_EXPORT CUresult cuModuleGetFunction(void **function, void *module,
                                         const char *name) {
  Call call("cuModuleGetFunction", std::string("name=") + name);
  if (CUresult r = call.injected())
    return r;
  auto it = call.s.modules.find(static_cast<FakeModule *>(module));
  if (it == call.s.modules.end())
    return call.result(400);
  FakeModule &fake = *it->second;
  bool found = false;
  for (const std::string &entry : fake.entries)
    found |= entry == name;
  if (!found)
    return call.result(500);
  std::unique_ptr<FakeFunction> &slot = fake.functions[name];
  if (!slot)
    slot.reset(new FakeFunction{name, &fake});
  *function = slot.get();
  return 0;
}

FAKE_EXPORT CUresult cuLaunchKernel(void *function, unsigned gridX,
                                    unsigned gridY, unsigned gridZ,
                                    unsigned blockX, unsigned blockY,
                                    unsigned blockZ, unsigned sharedMemBytes,
                                    void *stream, void **, void **) {
  std::string name =
      function ? static_cast<FakeFunction *>(function)->name : "null";
  Call call("cuLaunchKernel",
            "kernel=" + name + ", grid=" + std::to_string(gridX) + "x" +
                std::to_string(gridY) + "x" + std::to_string(gridZ) +
                ", block=" + std::to_string(blockX) + "x" +
                std::to_string(blockY) + "x" + std::to_string(blockZ) +
                ", smem=" + std::to_string(sharedMemBytes) +
                ", stream=" + streamName(stream));
  if (CUresult r = call.injected())
    return r;
  if (!function)
    return call.result(400);
  if (!gridX || !gridY || !gridZ || uint64_t(blockX) * blockY * blockZ > 1024 ||
      !blockX || !blockY || !blockZ)
    return call.result(1);
  call.s.clock += 0.25;
  return 0;
}

FAKE_EXPORT CUresult cuFuncGetParamInfo(void *function, size_t index,
                                        size_t *offset, size_t *size) {
  // Logged only when it fails: a query past the last parameter is the API
  // error compute-sanitizer reports on a real driver.
  std::lock_guard<std::mutex> lock(state().mutex);
  auto *fake = static_cast<FakeFunction *>(function);
  if (!fake)
    return 400;
  const std::vector<size_t> &sizes = fake->module->paramSizes[fake->name];
  if (index >= sizes.size()) {
    state().log.push_back("cuFuncGetParamInfo(" + fake->name + ", " +
                          std::to_string(index) + ") = 1");
    return 1;
  }
  size_t at = 0;
  for (size_t i = 0; i < index; ++i)
    at += sizes[i];
  if (offset)
    *offset = at;
  if (size)
    *size = sizes[index];
  return 0;
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

FAKE_EXPORT CUresult cuStreamCreate(void **stream, unsigned flags) {
  Call call("cuStreamCreate", "flags=" + std::to_string(flags));
  if (CUresult r = call.injected())
    return r;
  FakeStream *fake = addHandle(call.s.streams, call.s.nextStream, stream);
  call.note("=> stream " + std::to_string(fake->id));
  return 0;
}

FAKE_EXPORT CUresult cuStreamDestroy_v2(void *stream) {
  Call call("cuStreamDestroy_v2", "stream=" + streamName(stream));
  if (CUresult r = call.injected())
    return r;
  if (!call.s.streams.erase(static_cast<FakeStream *>(stream)))
    return call.result(400);
  return 0;
}

FAKE_EXPORT CUresult cuStreamSynchronize(void *stream) {
  Call call("cuStreamSynchronize", "stream=" + streamName(stream));
  return call.injected();
}

FAKE_EXPORT CUresult cuStreamWaitEvent(void *stream, void *event, unsigned) {
  Call call("cuStreamWaitEvent",
            "stream=" + streamName(stream) + ", event=" +
                (event ? std::to_string(static_cast<FakeEvent *>(event)->id)
                       : "null"));
  return call.injected();
}

FAKE_EXPORT CUresult cuEventCreate(void **event, unsigned flags) {
  Call call("cuEventCreate", "flags=" + std::to_string(flags));
  if (CUresult r = call.injected())
    return r;
  addHandle(call.s.events, call.s.nextEvent, event);
  return 0;
}

FAKE_EXPORT CUresult cuEventDestroy_v2(void *event) {
  Call call("cuEventDestroy_v2", "");
  if (CUresult r = call.injected())
    return r;
  if (!call.s.events.erase(static_cast<FakeEvent *>(event)))
    return call.result(400);
  return 0;
}

FAKE_EXPORT CUresult cuEventRecord(void *event, void *stream) {
  Call call("cuEventRecord", "stream=" + streamName(stream));
  if (CUresult r = call.injected())
    return r;
  auto it = call.s.events.find(static_cast<FakeEvent *>(event));
  if (it == call.s.events.end())
    return call.result(400);
  it->second->recorded = true;
  it->second->time = call.s.clock;
  return 0;
}

FAKE_EXPORT CUresult cuEventSynchronize(void *) {
  Call call("cuEventSynchronize", "");
  return call.injected();
}

FAKE_EXPORT CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  Call call("cuEventElapsedTime", "");
  if (CUresult r = call.injected())
    return r;
  auto a = call.s.events.find(static_cast<FakeEvent *>(start));
  auto b = call.s.events.find(static_cast<FakeEvent *>(end));
  if (a == call.s.events.end() || b == call.s.events.end() ||
      !a->second->recorded || !b->second->recorded)
    return call.result(400);
  *ms = static_cast<float>(b->second->time - a->second->time);
  return 0;
}

//===----------------------------------------------------------------------===//
// CUDA graphs (left out of libjeet_fake_cuda_nographs.so, which stands for a
// driver without them)
//===----------------------------------------------------------------------===//

#ifndef FAKE_CUDA_NO_GRAPHS
namespace {
/// The v2 kernel node parameters of cuda.h (CUDA_KERNEL_NODE_PARAMS_v2).
struct KernelNodeParams {
  void *func;
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
  void *kern;
  void *ctx;
};

std::string describeNode(const KernelNodeParams *params) {
  std::string name = params && params->func
                         ? static_cast<FakeFunction *>(params->func)->name
                         : "null";
  if (!params)
    return "kernel=null";
  return "kernel=" + name + ", grid=" + std::to_string(params->gridDimX) + "x" +
         std::to_string(params->gridDimY) + "x" +
         std::to_string(params->gridDimZ) +
         ", block=" + std::to_string(params->blockDimX) + "x" +
         std::to_string(params->blockDimY) + "x" +
         std::to_string(params->blockDimZ);
}
} // namespace

FAKE_EXPORT CUresult cuGraphCreate(void **graph, unsigned flags) {
  Call call("cuGraphCreate", "flags=" + std::to_string(flags));
  if (CUresult r = call.injected())
    return r;
  FakeGraph *fake = addHandle(call.s.graphs, call.s.nextGraph, graph);
  call.note("=> graph " + std::to_string(fake->id));
  return 0;
}

FAKE_EXPORT CUresult cuGraphAddKernelNode_v2(void **node, void *graph,
                                             void **dependencies,
                                             size_t numDependencies,
                                             const KernelNodeParams *params) {
  Call call("cuGraphAddKernelNode_v2",
            describeNode(params) +
                ", dependencies=" + std::to_string(numDependencies));
  if (CUresult r = call.injected())
    return r;
  auto it = call.s.graphs.find(static_cast<FakeGraph *>(graph));
  if (it == call.s.graphs.end() || !params || !params->func ||
      (numDependencies && !dependencies))
    return call.result(1);
  FakeGraph &fake = *it->second;
  fake.nodes.push_back(
      {call.s.nextNode++, static_cast<FakeFunction *>(params->func)});
  // A node handle is its id: enough for the runtime to name it again.
  *node =
      reinterpret_cast<void *>(static_cast<uintptr_t>(fake.nodes.back().id));
  return 0;
}

FAKE_EXPORT CUresult cuGraphInstantiateWithFlags(void **exec, void *graph,
                                                 unsigned long long flags) {
  Call call("cuGraphInstantiateWithFlags", "flags=" + std::to_string(flags));
  if (CUresult r = call.injected())
    return r;
  auto it = call.s.graphs.find(static_cast<FakeGraph *>(graph));
  if (it == call.s.graphs.end())
    return call.result(400);
  FakeGraphExec *fake = addHandle(call.s.execs, call.s.nextExec, exec);
  fake->graph = it->second->id;
  fake->nodes = it->second->nodes;
  call.note("=> exec " + std::to_string(fake->id) + " of " +
            std::to_string(fake->nodes.size()) + " kernels");
  return 0;
}

FAKE_EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(
    void *exec, void *node, const KernelNodeParams *params) {
  Call call("cuGraphExecKernelNodeSetParams_v2", describeNode(params));
  if (CUresult r = call.injected())
    return r;
  auto it = call.s.execs.find(static_cast<FakeGraphExec *>(exec));
  if (it == call.s.execs.end())
    return call.result(400);
  int id = static_cast<int>(reinterpret_cast<uintptr_t>(node));
  for (FakeGraphNode &n : it->second->nodes)
    if (n.id == id) {
      // As the driver: the node's kernel cannot change.
      if (!params || params->func != n.function)
        return call.result(1);
      return 0;
    }
  return call.result(400);
}

FAKE_EXPORT CUresult cuGraphLaunch(void *exec, void *stream) {
  auto *fake = static_cast<FakeGraphExec *>(exec);
  std::string kernels = "?";
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    auto it = state().execs.find(fake);
    if (it != state().execs.end())
      kernels = std::to_string(it->second->nodes.size());
  }
  Call call("cuGraphLaunch",
            "kernels=" + kernels + ", stream=" + streamName(stream));
  if (CUresult r = call.injected())
    return r;
  auto it = call.s.execs.find(fake);
  if (it == call.s.execs.end())
    return call.result(400);
  call.s.clock += 0.25 * static_cast<double>(it->second->nodes.size());
  return 0;
}

FAKE_EXPORT CUresult cuGraphExecDestroy(void *exec) {
  Call call("cuGraphExecDestroy", "");
  if (CUresult r = call.injected())
    return r;
  if (!call.s.execs.erase(static_cast<FakeGraphExec *>(exec)))
    return call.result(400);
  return 0;
}

FAKE_EXPORT CUresult cuGraphDestroy(void *graph) {
  Call call("cuGraphDestroy", "");
  if (CUresult r = call.injected())
    return r;
  if (!call.s.graphs.erase(static_cast<FakeGraph *>(graph)))
    return call.result(400);
  return 0;
}
#endif // FAKE_CUDA_NO_GRAPHS
