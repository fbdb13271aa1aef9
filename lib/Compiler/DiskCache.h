//===- DiskCache.h - Compiled graphs kept on disk ---------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Internal to lib/Compiler. The persistent compiled-graph cache: a graph
// compiled for the CPU is kept as its object code and what the Executable
// reports, in one file per (graph, options, Jeet version, host CPU) under
// JEET_CACHE_DIR (default: $XDG_CACHE_HOME/jeet, else ~/.cache/jeet; set to
// an empty string to switch the cache off). A new process that compiles the
// same graph links the object instead of running the pipelines and LLVM.
//
// A file is written under a temporary name and renamed into place, so
// readers never see a partial one and two processes writing the same entry
// leave one of them whole. Every file ends with a SHA-256 of its contents
// and names its key, version and CPU: a truncated, corrupt, foreign or stale
// file is ignored (and replaced by the next store). Nothing the cache does
// fails a compilation: an unusable directory, a full disk or a bad file only
// cost a compilation, and JEET_DEBUG says why. The directory's files are
// capped (JEET_CACHE_MAX_BYTES, default 2 GiB): a store over the cap removes
// the least recently used entries.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_COMPILER_DISKCACHE_H
#define JEET_LIB_COMPILER_DISKCACHE_H

#include "jeet/Compiler/Compiler.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace jeet::detail {

/// The environment variable that names the cache directory.
inline constexpr llvm::StringLiteral kCacheDirEnvVar = "JEET_CACHE_DIR";

/// The environment variable that caps the bytes of the cache's files, and
/// its default. A store that takes the directory over the cap removes the
/// least recently used entries (the modification time, which a hit
/// refreshes) until it holds at most 80% of it; 0: no cap.
inline constexpr llvm::StringLiteral kCacheMaxBytesEnvVar =
    "JEET_CACHE_MAX_BYTES";
inline constexpr uint64_t kDefaultCacheMaxBytes = uint64_t(2) << 30;

/// A size as JEET_CACHE_MAX_BYTES takes it: a number of bytes, or of
/// KiB/MiB/GiB with a K, M or G after it; nothing where `text` is not one.
std::optional<uint64_t> parseByteSize(llvm::StringRef text);

/// What a cache file holds: the object code of the host module and what
/// Executable reports about the graph.
struct CachedExecutable {
  std::vector<TensorSpec> inputs, outputs;
  std::vector<std::vector<std::string>> kernelOps;
  /// The static memory plan the object's entry expects (its arena size).
  MemoryPlan memoryPlan;
  std::vector<std::string> stageNames;
  /// The relocatable object files (ELF) that the JIT produced: one, or one
  /// per partition when code generation was split over threads.
  std::vector<std::string> objects;
};

/// The name of a graph's entry: a BLAKE3 of its key text (options and graph
/// text), in hex. Computed once per lookup: the text of a graph with its
/// weights inside runs to tens of megabytes.
struct CacheKey {
  std::string hash;
  static CacheKey of(llvm::StringRef keyText);
};

class DiskCache {
public:
  /// The cache of this process, configured from the environment when first
  /// used.
  static DiskCache &global();

  /// Reads JEET_CACHE_DIR (or the XDG default) again: tests and tools that
  /// change it at run time.
  void configureFromEnvironment();

  bool enabled() const;
  std::string directory() const;

  /// The entry for `key`, or nothing; a file that cannot be used is
  /// reported (JEET_DEBUG) and left for store() to replace.
  std::optional<CachedExecutable> load(const CacheKey &key);

  /// Writes the entry for `key`; failures are reported (JEET_DEBUG) and
  /// otherwise ignored.
  void store(const CacheKey &key, const CachedExecutable &entry);

  /// The file that holds `key`'s entry.
  std::string pathFor(const CacheKey &key) const;

  struct Stats {
    int64_t hits = 0, misses = 0, stores = 0, rejected = 0, failedStores = 0;
  };
  Stats stats() const;

  /// The cap on the bytes of the cache's files (0: none).
  uint64_t maxBytes() const;

private:
  DiskCache() = default;
  /// Removes the least recently used entries but `kept` while the cache's
  /// files hold more than the cap.
  void prune(llvm::StringRef kept);

  mutable std::mutex mutex;
  std::string dir;
  uint64_t capBytes = kDefaultCacheMaxBytes;
  bool configured = false;
  Stats counters;
};

/// Says `message` on stderr when JEET_DEBUG asks for it.
void reportCacheEvent(const llvm::Twine &message);

/// Links `objects` (from CachedExecutable, or just compiled) together into
/// a new JIT for the host with `symbols` defined, the process's own symbols
/// visible and `libraries` loaded. The JIT runs no initializers: an object
/// with constructors or destructors (Jeet's have none) is an error, as are
/// bytes that are not an object file.
llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
linkCachedObjects(llvm::ArrayRef<std::string> objects,
                  llvm::ArrayRef<llvm::StringRef> libraries,
                  const std::vector<std::pair<std::string, void *>> &symbols);

/// "<cpu name> <feature list>" of the host: part of every key.
std::string hostCpuDescription();

} // namespace jeet::detail

#endif // JEET_LIB_COMPILER_DISKCACHE_H
