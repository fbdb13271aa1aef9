//===- Shadow.cpp - Race detection on a block's shared memory -------------===//

#include "Shadow.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace jeet::emulator;

SharedShadow::~SharedShadow() {
  std::free(granules_);
  std::free(bytes_);
  std::free(split_);
}

bool SharedShadow::allocate(size_t bytes) {
  if (capacity_ >= bytes)
    return true;
  size_t granules = (bytes + kGranule - 1) / kGranule;
  // calloc: pages are only touched where kernels use shared memory.
  auto *newGranules =
      static_cast<Stamps *>(std::calloc(granules, sizeof(Stamps)));
  auto *newBytes =
      static_cast<Stamps *>(std::calloc(granules * kGranule, sizeof(Stamps)));
  auto *newSplit = static_cast<uint8_t *>(std::calloc(granules, 1));
  if (!newGranules || !newBytes || !newSplit) {
    std::free(newGranules);
    std::free(newBytes);
    std::free(newSplit);
    return false;
  }
  std::free(granules_);
  std::free(bytes_);
  std::free(split_);
  granules_ = newGranules;
  bytes_ = newBytes;
  split_ = newSplit;
  capacity_ = granules * kGranule;
  epoch_ = 0;
  dirty_ = 0;
  return true;
}

void SharedShadow::advance(size_t usedBytes) {
  if (epoch_ == kMaxEpoch) {
    // Old stamps would read as current: forget them.
    size_t granules = (dirty_ + kGranule - 1) / kGranule;
    std::memset(granules_, 0, granules * sizeof(Stamps));
    std::memset(bytes_, 0, granules * kGranule * sizeof(Stamps));
    std::memset(split_, 0, granules);
    epoch_ = 0;
    dirty_ = 0;
  }
  ++epoch_;
  dirty_ = std::max(dirty_, usedBytes);
}

void SharedShadow::split(uint64_t granule) {
  for (uint64_t b = granule * kGranule; b < (granule + 1) * kGranule; ++b)
    bytes_[b] = granules_[granule];
  split_[granule] = 1;
}

void SharedShadow::join(uint64_t granule) {
  // After a whole write, every byte has the same write stamp; the granule is
  // whole again if the read stamps agree too.
  const Stamps *first = &bytes_[granule * kGranule];
  for (uint64_t b = 1; b < kGranule; ++b)
    if (first[b].read != first[0].read || first[b].write != first[0].write)
      return;
  granules_[granule] = first[0];
  split_[granule] = 0;
}
