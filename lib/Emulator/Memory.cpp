//===- Memory.cpp - Device allocations, regions and the quarantine --------===//

#include "Memory.h"

#include <cstring>
#include <iterator>
#include <sys/mman.h>
#include <unistd.h>

using namespace jeet::emulator;

namespace {
/// Freed allocations stay reserved (no pages behind them) until the
/// quarantine holds more than this many, or this much address space.
constexpr size_t kQuarantineEntries = 4096;
constexpr size_t kQuarantineBytes = size_t(64) << 30;
/// Bytes of a fresh region: 0xff in every byte reads as NaN in floats and -1
/// in integers, so a kernel that reads what nobody wrote shows it.
constexpr int kPoisonByte = 0xff;

size_t pageSize() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

bool contains(uintptr_t base, size_t size, uintptr_t address, size_t bytes) {
  return address >= base && address - base <= size &&
         bytes <= size - (address - base);
}

uintptr_t distance(const Range &range, uintptr_t address) {
  if (address < range.base)
    return range.base - address;
  if (address - range.base < range.size)
    return 0;
  return address - (range.base + range.size) + 1;
}
} // namespace

MemoryTracker &jeet::emulator::memory() {
  static MemoryTracker *tracker = new MemoryTracker();
  return *tracker;
}

size_t MemoryTracker::capacity() const {
  return capacity_ ? capacity_ : config().capacity;
}

//===----------------------------------------------------------------------===//
// Allocations
//===----------------------------------------------------------------------===//

CUresult MemoryTracker::allocate(size_t bytes, uintptr_t *out) {
  if (bytes == 0)
    return fail(kInvalidValue, "cuMemAlloc of 0 bytes");
  if (bytes > capacity() || inUse_ > capacity() - bytes)
    return fail(kOutOfMemory,
                "cuMemAlloc of " + std::to_string(bytes) +
                    " bytes: " + std::to_string(inUse_) + " of " +
                    std::to_string(capacity()) +
                    " bytes of the emulated device are in use (the capacity "
                    "is set by JEET_EMULATOR_MEMORY)");
  size_t mapped = (bytes + pageSize() - 1) / pageSize() * pageSize();
  void *memory = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED)
    return fail(kOutOfMemory, "cuMemAlloc of " + std::to_string(bytes) +
                                  " bytes: the host has no memory left "
                                  "(mmap failed: " +
                                  std::strerror(errno) + ")");
  uintptr_t base = reinterpret_cast<uintptr_t>(memory);
  allocations_[base] = Allocation{bytes, mapped};
  inUse_ += bytes;
  *out = base;
  return kSuccess;
}

CUresult MemoryTracker::release(uintptr_t base) {
  auto it = allocations_.find(base);
  if (it == allocations_.end()) {
    Range range;
    uintptr_t owner = 0;
    if (allocationAt(base, &owner))
      return fail(kInvalidValue, "cuMemFree of " + formatAddress(base) +
                                     ", which is inside the allocation at " +
                                     formatAddress(owner) + ", not its start");
    if (quarantinedAt(base, &range))
      return fail(kInvalidValue, "cuMemFree of " + formatAddress(base) +
                                     ", which was freed already");
    return fail(kInvalidValue, "cuMemFree of " + formatAddress(base) +
                                   ", which is not a device allocation");
  }
  Allocation allocation = it->second;
  allocations_.erase(it);
  inUse_ -= allocation.size;
  dropRegionsIn(base, allocation.size);
  // Keep the addresses reserved so that a stale pointer is recognised, and
  // give the pages back.
  void *memory = reinterpret_cast<void *>(base);
  mprotect(memory, allocation.mapped, PROT_NONE);
  madvise(memory, allocation.mapped, MADV_DONTNEED);
  quarantine_.push_back(Freed{base, allocation.size, allocation.mapped});
  quarantineBytes_ += allocation.mapped;
  evictQuarantine();
  return kSuccess;
}

void MemoryTracker::evictQuarantine() {
  while (!quarantine_.empty() && (quarantine_.size() > kQuarantineEntries ||
                                  quarantineBytes_ > kQuarantineBytes)) {
    const Freed &oldest = quarantine_.front();
    munmap(reinterpret_cast<void *>(oldest.base), oldest.mapped);
    quarantineBytes_ -= oldest.mapped;
    quarantine_.pop_front();
  }
}

//===----------------------------------------------------------------------===//
// Regions
//===----------------------------------------------------------------------===//

void MemoryTracker::dropRegionsIn(uintptr_t base, size_t size) {
  for (auto *map : {&regions_, &freedRegions_}) {
    auto first = map->lower_bound(base);
    auto last = map->lower_bound(base + size);
    map->erase(first, last);
  }
}

void MemoryTracker::registerRegion(uintptr_t base, size_t bytes, bool poison) {
  uintptr_t owner = 0;
  Allocation *allocation = const_cast<Allocation *>(allocationAt(base, &owner));
  if (!allocation)
    return; // not device memory: nothing to describe
  allocation->pool = true;
  // A new block replaces whatever freed blocks it overlaps.
  auto first = freedRegions_.lower_bound(base);
  if (first != freedRegions_.begin()) {
    auto previous = std::prev(first);
    if (previous->first + previous->second > base)
      first = previous;
  }
  freedRegions_.erase(first, freedRegions_.lower_bound(base + bytes));
  regions_[base] = bytes;
  if (poison && bytes)
    std::memset(reinterpret_cast<void *>(base), kPoisonByte,
                std::min(bytes, owner + allocation->size - base));
}

void MemoryTracker::unregisterRegion(uintptr_t base) {
  auto it = regions_.find(base);
  if (it == regions_.end())
    return;
  freedRegions_[base] = it->second;
  regions_.erase(it);
}

//===----------------------------------------------------------------------===//
// Lookups
//===----------------------------------------------------------------------===//

const MemoryTracker::Allocation *
MemoryTracker::allocationAt(uintptr_t address, uintptr_t *base) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin())
    return nullptr;
  --it;
  if (address - it->first >= it->second.size)
    return nullptr;
  *base = it->first;
  return &it->second;
}

static bool findIn(const std::map<uintptr_t, size_t> &map, uintptr_t address,
                   Range *range) {
  auto it = map.upper_bound(address);
  if (it == map.begin())
    return false;
  --it;
  // A region of 0 bytes still names the block its pointer points at.
  if (address - it->first >= std::max<size_t>(it->second, 1))
    return false;
  *range = Range{it->first, it->second};
  return true;
}

bool MemoryTracker::regionAt(uintptr_t address, Range *range) const {
  return findIn(regions_, address, range);
}

bool MemoryTracker::freedRegionAt(uintptr_t address, Range *range) const {
  return findIn(freedRegions_, address, range);
}

bool MemoryTracker::quarantinedAt(uintptr_t address, Range *range) const {
  for (auto it = quarantine_.rbegin(); it != quarantine_.rend(); ++it)
    if (address >= it->base && address - it->base < it->mapped) {
      *range = Range{it->base, it->size};
      return true;
    }
  return false;
}

bool MemoryTracker::accessible(uintptr_t address, size_t bytes,
                               Range *range) const {
  Range region;
  if (regionAt(address, &region)) {
    if (!contains(region.base, region.size, address, bytes))
      return false;
    *range = region;
    return true;
  }
  uintptr_t base = 0;
  const Allocation *allocation = allocationAt(address, &base);
  if (!allocation || allocation->pool ||
      !contains(base, allocation->size, address, bytes))
    return false;
  *range = Range{base, allocation->size};
  return true;
}

bool MemoryTracker::inAllocation(uintptr_t address, size_t bytes) const {
  uintptr_t base = 0;
  const Allocation *allocation = allocationAt(address, &base);
  return allocation && contains(base, allocation->size, address, bytes);
}

bool MemoryTracker::isDevice(uintptr_t address) const {
  uintptr_t base = 0;
  return allocationAt(address, &base) != nullptr;
}

bool MemoryTracker::nearest(uintptr_t address, Range *range,
                            bool *isRegion) const {
  bool found = false;
  auto consider = [&](const Range &candidate, bool region) {
    if (!found || distance(candidate, address) < distance(*range, address)) {
      *range = candidate;
      *isRegion = region;
      found = true;
    }
  };
  auto after = regions_.upper_bound(address);
  if (after != regions_.end())
    consider(Range{after->first, after->second}, true);
  if (after != regions_.begin()) {
    auto before = std::prev(after);
    consider(Range{before->first, before->second}, true);
  }
  // Allocations that are not pools (pools are described by their regions).
  auto next = allocations_.upper_bound(address);
  for (auto it = next; it != allocations_.end(); ++it)
    if (!it->second.pool) {
      consider(Range{it->first, it->second.size}, false);
      break;
    }
  for (auto it = next; it != allocations_.begin();) {
    --it;
    if (!it->second.pool) {
      consider(Range{it->first, it->second.size}, false);
      break;
    }
  }
  return found;
}

//===----------------------------------------------------------------------===//
// Explanations
//===----------------------------------------------------------------------===//

std::string jeet::emulator::describeRelation(const Range &range,
                                             uintptr_t address, size_t bytes) {
  std::string text = std::to_string(range.size) + " bytes at " +
                     formatAddress(range.base) + ", ";
  uintptr_t end = range.base + range.size;
  if (address < range.base) {
    text += "the access starts " + std::to_string(range.base - address) +
            " bytes before it";
    if (address + bytes > range.base)
      text += " and overlaps its start";
  } else if (address >= end) {
    text += "the access starts " + std::to_string(address - end) +
            " bytes past its end";
  } else if (address + bytes > end) {
    text += "the access starts at offset " +
            std::to_string(address - range.base) + " and overruns its end by " +
            std::to_string(address + bytes - end) + " bytes";
  } else {
    text += "the access is at offset " + std::to_string(address - range.base);
  }
  return text;
}

void MemoryTracker::explain(uintptr_t address, size_t bytes,
                            std::string *problem, std::string *detail) const {
  Range range;
  bool isRegion = false;
  if (regionAt(address, &range)) {
    *problem = "out of bounds";
    *detail = "allocation: " + describeRelation(range, address, bytes);
    return;
  }
  uintptr_t base = 0;
  const Allocation *allocation = allocationAt(address, &base);
  if (allocation && !allocation->pool) {
    *problem = "out of bounds";
    *detail = "allocation: " +
              describeRelation(Range{base, allocation->size}, address, bytes);
    return;
  }
  if (allocation ? freedRegionAt(address, &range)
                 : quarantinedAt(address, &range)) {
    *problem = "use after free";
    *detail = "freed allocation: " + describeRelation(range, address, bytes);
    return;
  }
  *problem = "out of bounds";
  if (nearest(address, &range, &isRegion))
    *detail = "nearest allocation: " + describeRelation(range, address, bytes);
  else
    *detail = "no device memory is allocated";
}

std::string MemoryTracker::explainRange(uintptr_t address, size_t bytes) const {
  std::string problem, detail;
  uintptr_t base = 0;
  if (const Allocation *allocation = allocationAt(address, &base))
    return std::to_string(bytes) + " bytes at " + formatAddress(address) +
           " leave their allocation (" +
           describeRelation(Range{base, allocation->size}, address, bytes) +
           ")";
  explain(address, bytes, &problem, &detail);
  return std::to_string(bytes) + " bytes at " + formatAddress(address) +
         " are not device memory (" + problem + "; " + detail + ")";
}
