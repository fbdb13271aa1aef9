//===- Memory.h - Device allocations, regions and the quarantine -*- C++
//-*-===//
//
// Device memory is host memory: each cuMemAlloc is its own anonymous mapping,
// so device pointers are real host addresses (page aligned). The tracker
// knows, for any address, whether a kernel may touch it:
//
// - Allocations: live cuMemAlloc results.
// - Regions: blocks the runtime's caching allocator carves out of an
//   allocation (jeetEmulatorRegisterRegion). An allocation with regions is a
//   pool: only its live regions are accessible, with their requested sizes,
//   so an off-by-one past a tensor is caught even though the allocator's
//   segment continues.
// - The quarantine: freed allocations keep their address range reserved
//   (PROT_NONE, pages given back) for a while, and unregistered regions are
//   remembered until a new region overlaps them, so that an access through a
//   stale pointer is reported as a use after free, not as a random overlap.
//
// Mutated only with the device lock held; read by access checks during a
// launch, while the launching thread holds that lock.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_EMULATOR_MEMORY_H
#define JEET_LIB_EMULATOR_MEMORY_H

#include "Driver.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

namespace jeet {
namespace emulator {

/// An accessible address range.
struct Range {
  uintptr_t base = 0;
  size_t size = 0;
};

class MemoryTracker {
public:
  /// cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY past the capacity.
  CUresult allocate(size_t bytes, uintptr_t *out);
  /// cuMemFree: CUDA_ERROR_INVALID_VALUE unless `base` is a live allocation.
  CUresult release(uintptr_t base);

  void registerRegion(uintptr_t base, size_t bytes, bool poison);
  void unregisterRegion(uintptr_t base);

  /// True (and the range that allows it) when a kernel may access
  /// [address, address + bytes).
  bool accessible(uintptr_t address, size_t bytes, Range *range) const;

  /// Why [address, address + bytes) may not be accessed: "out of bounds" or
  /// "use after free" in `problem`, and a line naming the allocation or
  /// region involved (the nearest one when none contains the address).
  void explain(uintptr_t address, size_t bytes, std::string *problem,
               std::string *detail) const;

  /// The live allocation containing [address, address + bytes) (copies and
  /// memsets are checked against allocations, as the driver does).
  bool inAllocation(uintptr_t address, size_t bytes) const;
  /// True when `address` lies in a live allocation (a device pointer).
  bool isDevice(uintptr_t address) const;
  /// A sentence for a copy or memset that leaves its allocation.
  std::string explainRange(uintptr_t address, size_t bytes) const;

  size_t capacity() const;
  void setCapacity(size_t bytes) { capacity_ = bytes; }
  size_t bytesInUse() const { return inUse_; }

private:
  struct Allocation {
    size_t size;
    size_t mapped;
    bool pool = false;
  };
  struct Freed {
    uintptr_t base;
    size_t size;
    size_t mapped;
  };

  const Allocation *allocationAt(uintptr_t address, uintptr_t *base) const;
  bool regionAt(uintptr_t address, Range *range) const;
  bool freedRegionAt(uintptr_t address, Range *range) const;
  bool quarantinedAt(uintptr_t address, Range *range) const;
  /// The live region or non-pool allocation nearest to `address`.
  bool nearest(uintptr_t address, Range *range, bool *isRegion) const;
  void evictQuarantine();
  void dropRegionsIn(uintptr_t base, size_t size);

  std::map<uintptr_t, Allocation> allocations_;
  std::map<uintptr_t, size_t> regions_;
  std::map<uintptr_t, size_t> freedRegions_;
  std::deque<Freed> quarantine_;
  size_t quarantineBytes_ = 0;
  size_t inUse_ = 0;
  size_t capacity_ = 0; // 0: config().capacity
};

MemoryTracker &memory();

/// "4000 bytes at 0x7f..." and where `address` lies relative to it.
std::string describeRelation(const Range &range, uintptr_t address,
                             size_t bytes);

} // namespace emulator
} // namespace jeet

#endif // JEET_LIB_EMULATOR_MEMORY_H
