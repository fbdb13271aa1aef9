//===- FuzzNpy.cpp - Fuzz target: the .npy reader -------------------------===//
//
// Part of the Jeet project.
//
// Bytes -> parseNpy. A file that parses must encode again and parse back to
// the same shape, dtype and bytes.
//
//===----------------------------------------------------------------------===//

#include "jeet/Runtime/Npy.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace jeet::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StatusOr<Tensor> tensor = parseNpy(data, size, "fuzz.npy");
  if (!tensor.ok())
    return 0;
  StatusOr<std::vector<uint8_t>> encoded = encodeNpy(*tensor);
  if (!encoded.ok())
    return 0; // A dtype NumPy cannot hold.
  StatusOr<Tensor> again =
      parseNpy(encoded->data(), encoded->size(), "fuzz-roundtrip.npy");
  StatusOr<std::vector<uint8_t>> before = tensor->toHostBytes();
  StatusOr<std::vector<uint8_t>> after =
      again.ok() ? again->toHostBytes()
                 : StatusOr<std::vector<uint8_t>>(again.status());
  if (!again.ok() || again->shape() != tensor->shape() ||
      again->dtype() != tensor->dtype() || !before.ok() || !after.ok() ||
      *before != *after) {
    std::fprintf(stderr, "jeet-fuzz-npy: %s does not round-trip: %s\n",
                 tensor->typeString().c_str(),
                 again.ok() ? "contents differ"
                            : again.status().message().c_str());
    std::abort();
  }
  return 0;
}
