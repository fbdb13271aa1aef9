//===- DiskCache.cpp - Compiled graphs kept on disk -----------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A cache file, all text up to the object's bytes:
//
//   JEETCACHE 3
//   key <BLAKE3 of the key text>
//   version <Jeet version> build <compiler library's size.mtime>
//   cpu <host cpu and features>
//   inputs <spec>,<spec>,...        (IREE-style, e.g. 256x1024xf32)
//   outputs <spec>,...
//   plan <arena> <intermediates> <live bound> <buffers>  (bytes, bytes, bytes,
//                                                         count)
//   stages <name>,<name>,...
//   kernels <count>                 then one line per kernel: its op names
//   objects <count>                 then for each object (one per partition
//   object <bytes>                  of code generation) its size line, its
//   <the object's bytes>            bytes and a newline
//   sha256 <hash of everything above>
//
//===----------------------------------------------------------------------===//

#include "DiskCache.h"

#include "jeet/Pipelines/PipelineRunner.h"
#include "jeet/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <sys/time.h>

using namespace jeet;
using namespace jeet::detail;

/// The first line of every cache file; a new layout takes a new number.
static constexpr llvm::StringLiteral kMagic = "JEETCACHE 3";
/// Files larger than this are not read (no graph's object comes close).
static constexpr uint64_t kMaxFileBytes = uint64_t(1) << 30;
static constexpr llvm::StringLiteral kSuffix = ".jeetc";

void jeet::detail::reportCacheEvent(const llvm::Twine &message) {
  if (DebugSettings::fromEnvironment().printStages)
    llvm::errs() << "jeet: disk cache: " << message << "\n";
}

std::string jeet::detail::hostCpuDescription() {
  std::string text = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> enabled;
  for (const auto &feature : features)
    if (feature.second)
      enabled.push_back(feature.first().str());
  llvm::sort(enabled);
  for (const std::string &feature : enabled)
    text += " +" + feature;
  return text;
}

/// Jeet's version and the identity of the compiler library that holds this
/// code (its size and modification time): a rebuilt compiler of the same
/// version may generate other code, so its entries must not be reused.
static const std::string &compilerBuild() {
  static const std::string build = [] {
    std::string text = JEET_VERSION_STRING;
    Dl_info info;
    llvm::sys::fs::file_status status;
    if (dladdr(reinterpret_cast<void *>(&reportCacheEvent), &info) &&
        info.dli_fname && !llvm::sys::fs::status(info.dli_fname, status))
      text += " build " + llvm::utohexstr(status.getSize()) + "." +
              llvm::utohexstr(
                  status.getLastModificationTime().time_since_epoch().count());
    return text;
  }();
  return build;
}

static std::string sha256Hex(llvm::StringRef data) {
  llvm::SHA256 hash;
  hash.update(data);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

CacheKey CacheKey::of(llvm::StringRef keyText) {
  // BLAKE3 (SIMD in LLVM's build) reads ~1.4 GB/s on a Zen 1 core, SHA-256
  // ~170 MB/s: a graph whose weights are constants has a key of tens of
  // megabytes.
  return {llvm::toHex(llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(keyText)),
                      /*LowerCase=*/true)};
}

DiskCache &DiskCache::global() {
  static DiskCache *cache = new DiskCache();
  return *cache;
}

std::optional<uint64_t> jeet::detail::parseByteSize(llvm::StringRef text) {
  text = text.trim();
  unsigned shift = 0;
  if (!text.empty()) {
    switch (llvm::toUpper(text.back())) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    default:
      break;
    }
    if (shift)
      text = text.drop_back();
  }
  uint64_t value = 0;
  if (text.empty() || !llvm::all_of(text, llvm::isDigit) ||
      text.getAsInteger(10, value) || value > (UINT64_MAX >> shift))
    return std::nullopt;
  return value << shift;
}

/// The cap JEET_CACHE_MAX_BYTES sets, or the default (said once a process
/// where the variable holds no size).
static uint64_t cacheMaxBytesFromEnvironment() {
  const char *env = std::getenv(kCacheMaxBytesEnvVar.data());
  if (!env || !*env)
    return kDefaultCacheMaxBytes;
  if (std::optional<uint64_t> bytes = parseByteSize(env))
    return *bytes;
  static std::once_flag warnOnce;
  std::call_once(warnOnce, [&] {
    llvm::errs() << "jeet: warning: ignoring " << kCacheMaxBytesEnvVar << "='"
                 << env
                 << "': expected a size in bytes, or with K, M or G after "
                    "it (0: no cap); using "
                 << (kDefaultCacheMaxBytes >> 30) << "G\n";
  });
  return kDefaultCacheMaxBytes;
}

void DiskCache::configureFromEnvironment() {
  uint64_t cap = cacheMaxBytesFromEnvironment();
  std::lock_guard<std::mutex> lock(mutex);
  configured = true;
  capBytes = cap;
  dir.clear();
  if (const char *env = std::getenv(kCacheDirEnvVar.data())) {
    // Set and empty: no disk cache.
    dir = env;
    return;
  }
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME");
      xdg && *xdg && llvm::sys::path::is_absolute(xdg)) {
    path = xdg;
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    path = home;
    llvm::sys::path::append(path, ".cache");
  } else {
    return;
  }
  llvm::sys::path::append(path, "jeet");
  dir = std::string(path);
}

bool DiskCache::enabled() const { return !directory().empty(); }

std::string DiskCache::directory() const {
  if (!configured)
    const_cast<DiskCache *>(this)->configureFromEnvironment();
  std::lock_guard<std::mutex> lock(mutex);
  return dir;
}

std::string DiskCache::pathFor(const CacheKey &key) const {
  llvm::SmallString<256> path(directory());
  llvm::sys::path::append(path, key.hash + kSuffix.str());
  return std::string(path);
}

DiskCache::Stats DiskCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counters;
}

uint64_t DiskCache::maxBytes() const {
  if (!configured)
    const_cast<DiskCache *>(this)->configureFromEnvironment();
  std::lock_guard<std::mutex> lock(mutex);
  return capBytes;
}

void DiskCache::prune(llvm::StringRef kept) {
  uint64_t cap = maxBytes();
  if (cap == 0)
    return;
  struct File {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> used;
  };
  std::vector<File> files;
  uint64_t total = 0;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(directory(), error), end;
       it != end && !error; it.increment(error)) {
    if (!llvm::StringRef(it->path()).ends_with(kSuffix))
      continue;
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> status = it->status();
    if (!status)
      continue;
    files.push_back(
        {it->path(), status->getSize(), status->getLastModificationTime()});
    total += status->getSize();
  }
  if (total <= cap)
    return;
  // Down to 80% of the cap: the next stores do not prune again at once.
  uint64_t target = cap - cap / 5;
  llvm::sort(files,
             [](const File &a, const File &b) { return a.used < b.used; });
  int64_t removed = 0;
  uint64_t removedBytes = 0;
  for (const File &file : files) {
    if (total <= target)
      break;
    // Another process may have removed it, or be reading it: it has the
    // file open, and a removed file stays readable until closed.
    if (file.path == kept || llvm::sys::fs::remove(file.path))
      continue;
    total -= file.size;
    removedBytes += file.size;
    ++removed;
  }
  reportCacheEvent("removed " + llvm::Twine(removed) +
                   " least recently used entr" + (removed == 1 ? "y" : "ies") +
                   " (" + llvm::Twine(removedBytes) + " bytes) to keep " +
                   directory() + " under " + llvm::Twine(cap) + " bytes (" +
                   kCacheMaxBytesEnvVar + ")");
}

/// The first line of `*rest`, removed from it.
static llvm::StringRef takeLine(llvm::StringRef *rest) {
  auto [line, tail] = rest->split('\n');
  *rest = tail;
  return line;
}

static std::string joinSpecs(const std::vector<TensorSpec> &specs) {
  std::string text;
  for (const TensorSpec &spec : specs)
    text += (text.empty() ? "" : ",") + spec.str();
  return text;
}

static std::optional<TensorSpec> parseSpec(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, 'x');
  TensorSpec spec;
  spec.dtype = parts.pop_back_val().str();
  if (spec.dtype != "f32" && spec.dtype != "f16" && spec.dtype != "bf16" &&
      spec.dtype != "i32")
    return std::nullopt;
  for (llvm::StringRef dim : parts) {
    int64_t size;
    if (dim.getAsInteger(10, size) || size < 0)
      return std::nullopt;
    spec.shape.push_back(size);
  }
  return spec;
}

static std::optional<std::vector<TensorSpec>> parseSpecs(llvm::StringRef text) {
  std::vector<TensorSpec> specs;
  if (text.empty())
    return specs;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  for (llvm::StringRef part : parts) {
    std::optional<TensorSpec> spec = parseSpec(part);
    if (!spec)
      return std::nullopt;
    specs.push_back(*spec);
  }
  return specs;
}

/// The header lines of a file for `keyHash`, up to and including the
/// object's size line.
static std::string formatEntry(llvm::StringRef keyHash,
                               const CachedExecutable &entry) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kMagic << "\n"
     << "key " << keyHash << "\n"
     << "version " << compilerBuild() << "\n"
     << "cpu " << hostCpuDescription() << "\n"
     << "inputs " << joinSpecs(entry.inputs) << "\n"
     << "outputs " << joinSpecs(entry.outputs) << "\n"
     << "plan " << entry.memoryPlan.arenaBytes << " "
     << entry.memoryPlan.intermediateBytes << " "
     << entry.memoryPlan.liveBytesBound << " " << entry.memoryPlan.buffers
     << "\n"
     << "stages " << llvm::join(entry.stageNames, ",") << "\n"
     << "kernels " << entry.kernelOps.size() << "\n";
  for (const std::vector<std::string> &ops : entry.kernelOps)
    os << llvm::join(ops, " ") << "\n";
  os << "objects " << entry.objects.size() << "\n";
  for (size_t i = 0; i < entry.objects.size(); ++i)
    os << (i ? "\n" : "") << "object " << entry.objects[i].size() << "\n"
       << entry.objects[i];
  return text;
}

/// Reads a plan line's four non-negative integers into `plan`.
static bool parsePlan(llvm::StringRef line, MemoryPlan &plan) {
  llvm::SmallVector<llvm::StringRef, 4> fields;
  line.split(fields, ' ', -1, /*KeepEmpty=*/false);
  int64_t *slots[] = {&plan.arenaBytes, &plan.intermediateBytes,
                      &plan.liveBytesBound, &plan.buffers};
  if (fields.size() != std::size(slots))
    return false;
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].getAsInteger(10, *slots[i]) || *slots[i] < 0)
      return false;
  return true;
}

/// Parses a whole file, or says what is wrong with it.
static llvm::Expected<CachedExecutable> parseEntry(llvm::StringRef data,
                                                   llvm::StringRef keyHash) {
  auto bad = [](const llvm::Twine &why) {
    return llvm::createStringError(why.str());
  };
  // The trailer first: it covers truncation and corruption of all the rest.
  size_t trailer = data.rfind("\nsha256 ");
  if (!data.starts_with(kMagic) || trailer == llvm::StringRef::npos)
    return bad("not a Jeet cache file, or truncated");
  llvm::StringRef body = data.take_front(trailer + 1);
  llvm::StringRef recorded = data.drop_front(trailer + 8).rtrim("\n");
  if (recorded != sha256Hex(body))
    return bad("its checksum does not match its contents (corrupt or "
               "truncated)");
  llvm::StringRef rest = body;
  takeLine(&rest);
  auto field = [&](llvm::StringRef name) -> std::optional<llvm::StringRef> {
    llvm::StringRef line = takeLine(&rest);
    if (!line.consume_front(name) || !line.consume_front(" "))
      return std::nullopt;
    return line;
  };
  std::optional<llvm::StringRef> key = field("key");
  if (!key || *key != keyHash)
    return bad("it holds another graph");
  std::optional<llvm::StringRef> version = field("version");
  if (!version || *version != compilerBuild())
    return bad("it was written by Jeet " +
               (version ? version->str() : std::string("?")));
  std::optional<llvm::StringRef> cpu = field("cpu");
  if (!cpu || *cpu != hostCpuDescription())
    return bad("it was compiled for another CPU");
  CachedExecutable entry;
  std::optional<llvm::StringRef> inputs = field("inputs"),
                                 outputs = field("outputs");
  std::optional<std::vector<TensorSpec>> inputSpecs, outputSpecs;
  if (inputs)
    inputSpecs = parseSpecs(*inputs);
  if (outputs)
    outputSpecs = parseSpecs(*outputs);
  if (!inputSpecs || !outputSpecs)
    return bad("its signature cannot be read");
  entry.inputs = std::move(*inputSpecs);
  entry.outputs = std::move(*outputSpecs);
  std::optional<llvm::StringRef> plan = field("plan"), stages = field("stages"),
                                 kernels = field("kernels");
  size_t numKernels;
  if (!plan || !parsePlan(*plan, entry.memoryPlan) || !stages || !kernels ||
      kernels->getAsInteger(10, numKernels) || numKernels > body.size())
    return bad("its header cannot be read");
  llvm::SmallVector<llvm::StringRef> names;
  stages->split(names, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef name : names)
    entry.stageNames.push_back(name.str());
  for (size_t i = 0; i < numKernels; ++i) {
    llvm::SmallVector<llvm::StringRef> ops;
    takeLine(&rest).split(ops, ' ', -1, /*KeepEmpty=*/false);
    entry.kernelOps.emplace_back();
    for (llvm::StringRef op : ops)
      entry.kernelOps.back().push_back(op.str());
  }
  std::optional<llvm::StringRef> objectCount = field("objects");
  size_t numObjects;
  if (!objectCount || objectCount->getAsInteger(10, numObjects) ||
      numObjects == 0 || numObjects > body.size())
    return bad("its object count cannot be read");
  for (size_t i = 0; i < numObjects; ++i) {
    std::optional<llvm::StringRef> objectSize = field("object");
    size_t size;
    // Each object is followed by a newline: the next size line's, or the
    // body's last.
    if (!objectSize || objectSize->getAsInteger(10, size) ||
        size >= rest.size() || rest[size] != '\n' ||
        (i + 1 == numObjects && size != rest.size() - 1))
      return bad("its object has the wrong size");
    entry.objects.push_back(rest.take_front(size).str());
    rest = rest.drop_front(size + 1);
  }
  return entry;
}

std::optional<CachedExecutable> DiskCache::load(const CacheKey &key) {
  if (!enabled())
    return std::nullopt;
  std::string path = pathFor(key);
  auto count = [&](int64_t Stats::*counter) {
    std::lock_guard<std::mutex> lock(mutex);
    ++(counters.*counter);
  };
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(path, size)) {
    count(&Stats::misses);
    return std::nullopt;
  }
  if (size > kMaxFileBytes) {
    reportCacheEvent("ignoring " + path + ": too large");
    count(&Stats::rejected);
    return std::nullopt;
  }
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    reportCacheEvent("cannot read " + path + ": " +
                     buffer.getError().message() + "; compiling");
    count(&Stats::misses);
    return std::nullopt;
  }
  llvm::Expected<CachedExecutable> entry =
      parseEntry((*buffer)->getBuffer(), key.hash);
  if (!entry) {
    reportCacheEvent("ignoring " + path + ": " +
                     llvm::toString(entry.takeError()) +
                     "; compiling again and replacing it");
    count(&Stats::rejected);
    return std::nullopt;
  }
  count(&Stats::hits);
  // Used now: the last to go when the cache is pruned (a read-only cache
  // keeps the old time).
  (void)::utimes(path.c_str(), nullptr);
  return std::move(*entry);
}

void DiskCache::store(const CacheKey &key, const CachedExecutable &entry) {
  if (!enabled())
    return;
  std::string path = pathFor(key);
  auto fail = [&](const llvm::Twine &why) {
    reportCacheEvent("cannot store " + path + ": " + why +
                     " (the graph runs; the next process compiles it again)");
    std::lock_guard<std::mutex> lock(mutex);
    ++counters.failedStores;
  };
  if (std::error_code error = llvm::sys::fs::create_directories(directory()))
    return fail(error.message());
  std::string body = formatEntry(key.hash, entry) + "\n";
  std::string contents = body + "sha256 " + sha256Hex(body) + "\n";
  // A name of this process's own, renamed into place once complete.
  llvm::SmallString<256> temporary;
  int fd;
  if (std::error_code error = llvm::sys::fs::createUniqueFile(
          path + ".%%%%%%%%.tmp", fd, temporary))
    return fail(error.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.close();
    if (os.has_error()) {
      std::string why = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return fail(why);
    }
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return fail(error.message());
  }
  reportCacheEvent("stored " + path);
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++counters.stores;
  }
  prune(path);
}

/// An error if `object` is not an object file, or has code that a loader
/// runs before or after the program (constructors, destructors): the JIT
/// below does not run them.
static llvm::Error checkNoInitializers(llvm::StringRef object) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(object, "jeet-graph"));
  if (!file)
    return file.takeError();
  for (const llvm::object::SectionRef &section : (*file)->sections()) {
    llvm::Expected<llvm::StringRef> name = section.getName();
    if (!name)
      return name.takeError();
    if (llvm::is_contained({".init_array", ".fini_array", ".preinit_array",
                            ".ctors", ".dtors", ".init", ".fini"},
                           *name))
      return llvm::createStringError(
          "the object has initializers or finalizers (section " + *name +
          "), which Jeet's JIT does not run");
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
jeet::detail::linkCachedObjects(
    llvm::ArrayRef<std::string> objects,
    llvm::ArrayRef<llvm::StringRef> libraries,
    const std::vector<std::pair<std::string, void *>> &symbols) {
  // What every JIT of the process shares: the native target, the host's
  // target machine description and its data layout (which LLJIT would
  // otherwise make a target machine to find, for each graph).
  struct HostJitSettings {
    std::optional<llvm::orc::JITTargetMachineBuilder> machineBuilder;
    std::optional<llvm::DataLayout> dataLayout;
    std::string error;
  };
  static const HostJitSettings *settings = [] {
    auto *settings = new HostJitSettings();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!machineBuilder) {
      settings->error = llvm::toString(machineBuilder.takeError());
      return settings;
    }
    auto dataLayout = machineBuilder->getDefaultDataLayoutForTarget();
    if (!dataLayout) {
      settings->error = llvm::toString(dataLayout.takeError());
      return settings;
    }
    settings->machineBuilder = std::move(*machineBuilder);
    settings->dataLayout = std::move(*dataLayout);
    return settings;
  }();
  if (!settings->machineBuilder)
    return llvm::createStringError("cannot set up the host's JIT: " +
                                   settings->error);
  for (const std::string &object : objects)
    if (llvm::Error error = checkNoInitializers(object))
      return std::move(error);
  // Jeet's objects have no initializers or finalizers to run (checked
  // above): the inactive platform, which adds nothing, serves them; the
  // default one builds and adds an IR module of its own to every JIT. The
  // process's symbols are searched by the generator added below, not by a
  // JITDylib of their own.
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(*settings->machineBuilder)
          .setDataLayout(*settings->dataLayout)
          .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
          .setLinkProcessSymbolsByDefault(false)
          .setObjectLinkingLayerCreator(
              [](llvm::orc::ExecutionSession &session)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                    session, [](const llvm::MemoryBuffer &) {
                      return std::make_unique<llvm::SectionMemoryManager>();
                    });
              })
          .create();
  if (!jit)
    return jit.takeError();
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  for (llvm::StringRef library : libraries) {
    std::string error;
    auto loaded = llvm::sys::DynamicLibrary::getPermanentLibrary(
        library.str().c_str(), &error);
    if (!loaded.isValid())
      return llvm::createStringError("cannot load " + library.str() + ": " +
                                     error);
    main.addGenerator(
        std::make_unique<llvm::orc::DynamicLibrarySearchGenerator>(loaded,
                                                                   prefix));
  }
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  main.addGenerator(std::move(*process));
  llvm::orc::SymbolMap defined;
  for (const auto &[name, address] : symbols)
    defined[(*jit)->mangleAndIntern(name)] = {
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported};
  if (llvm::Error error =
          main.define(llvm::orc::absoluteSymbols(std::move(defined))))
    return std::move(error);
  for (const std::string &object : objects)
    if (llvm::Error error = (*jit)->addObjectFile(
            llvm::MemoryBuffer::getMemBufferCopy(object, "jeet-graph")))
      return std::move(error);
  if (llvm::Error error = (*jit)->initialize(main))
    return std::move(error);
  return std::move(*jit);
}
