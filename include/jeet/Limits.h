//===- Limits.h - The sizes Jeet accepts ------------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// One definition of the size limits that every entry checks: the verifier,
// the graph builder, Python, runtime tensors, .npy files and inline literals
// (docs/Reliability.md). Header-only and dependency-free, so that both the
// compiler and the runtime (which needs nothing from LLVM/MLIR) include it.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIMITS_H
#define JEET_LIMITS_H

#include <cstdint>

namespace jeet {

/// The most elements a tensor may have: 2^40, 4 TiB of f32. The product of
/// its non-zero dimensions is held to it too, so that a tensor with no
/// elements cannot carry a huge dimension either (a loop nest of 2^63-1
/// iterations is a hang even when its innermost body never runs). Element and
/// byte counts within it never overflow int64 (8 bytes an element at most).
constexpr int64_t kMaxTensorElements = int64_t(1) << 40;

/// The highest rank of a tensor.
constexpr int64_t kMaxTensorRank = 64;

/// The number of elements of `shape` (a range of int64_t), or -1 when its
/// rank is beyond kMaxTensorRank, a dimension is negative or the product of
/// the non-zero dimensions is beyond kMaxTensorElements.
template <typename Range> int64_t checkedElementCount(const Range &shape) {
  int64_t product = 1, rank = 0;
  bool empty = false;
  for (int64_t dim : shape) {
    if (dim < 0 || ++rank > kMaxTensorRank)
      return -1;
    if (dim == 0) {
      empty = true;
      continue;
    }
    if (product > kMaxTensorElements / dim)
      return -1;
    product *= dim;
  }
  return empty ? 0 : product;
}

} // namespace jeet

#endif // JEET_LIMITS_H
