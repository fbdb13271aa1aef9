//===- Cache.h - A thread-safe LRU cache ------------------------*- C++ -*-===//
//
// Maps string keys to shared values, keeping at most `capacity` entries and
// evicting the least recently used. Used for compiled graphs, keyed by the
// structural hash of the graph + shapes + dtypes + device + options. An
// evicted value lives on while someone still holds it.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_RUNTIME_CACHE_H
#define JEET_RUNTIME_CACHE_H

#include "jeet/Runtime/Status.h"

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace jeet {
namespace runtime {

struct CacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;
  size_t size = 0;
  size_t capacity = 0;
};

template <typename V> class LRUCache {
public:
  /// Capacity 0 caches nothing.
  explicit LRUCache(size_t capacity) : capacity_(capacity) {}

  /// The value for `key` (marked most recently used), or null. Counts a hit or
  /// a miss.
  std::shared_ptr<V> lookup(const std::string &key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++stats_.misses;
      return nullptr;
    }
    ++stats_.hits;
    entries_.splice(entries_.begin(), entries_, it->second);
    return it->second->second;
  }

  /// True when `key` is cached (no counting, no reordering).
  bool contains(const std::string &key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return index_.count(key) != 0;
  }

  /// Inserts or replaces the value for `key`, evicting the least recently
  /// used entries beyond the capacity.
  void insert(const std::string &key, std::shared_ptr<V> value) {
    std::lock_guard<std::mutex> lock(mutex_);
    insertLocked(key, std::move(value));
  }

  /// The cached value, or the one `create()` makes (a callable returning
  /// StatusOr<std::shared_ptr<V>>), which is then cached. `create` runs
  /// without the lock held; if two threads create the same key at once, the
  /// first one inserted wins and both get it.
  template <typename F>
  StatusOr<std::shared_ptr<V>> getOrCreate(const std::string &key, F &&create) {
    if (std::shared_ptr<V> value = lookup(key))
      return value;
    StatusOr<std::shared_ptr<V>> created = create();
    if (!created.ok())
      return created.status();
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it != index_.end())
      return it->second->second;
    insertLocked(key, *created);
    return created;
  }

  bool erase(const std::string &key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end())
      return false;
    entries_.erase(it->second);
    index_.erase(it);
    return true;
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
    index_.clear();
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

  size_t capacity() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return capacity_;
  }

  /// Shrinking evicts the least recently used entries.
  void setCapacity(size_t capacity) {
    std::lock_guard<std::mutex> lock(mutex_);
    capacity_ = capacity;
    evictLocked();
  }

  CacheStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    CacheStats stats = stats_;
    stats.size = entries_.size();
    stats.capacity = capacity_;
    return stats;
  }

  void resetStats() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_ = CacheStats();
  }

private:
  using Entry = std::pair<std::string, std::shared_ptr<V>>;

  void insertLocked(const std::string &key, std::shared_ptr<V> value) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      it->second->second = std::move(value);
      entries_.splice(entries_.begin(), entries_, it->second);
      return;
    }
    entries_.emplace_front(key, std::move(value));
    index_[key] = entries_.begin();
    evictLocked();
  }

  void evictLocked() {
    while (entries_.size() > capacity_) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
      ++stats_.evictions;
    }
  }

  mutable std::mutex mutex_;
  size_t capacity_;
  std::list<Entry> entries_; // most recently used first
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
  CacheStats stats_;
};

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_CACHE_H
