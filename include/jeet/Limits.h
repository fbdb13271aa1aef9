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

#include <cstddef>
#include <cstdint>
#include <string_view>

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

/// The highest result number a value use (`%name#N`) may name in MLIR text:
/// MLIR's parser sizes a table by the number it reads before it checks it
/// against the operation's results, so `%r#2147483648` exhausts memory
/// instead of failing to parse. No graph has an op with this many results.
constexpr uint64_t kMaxResultNumber = uint64_t(1) << 20;

/// The offset in `text` (MLIR assembly) of the first value use whose result
/// number is beyond kMaxResultNumber, or std::string_view::npos when there is
/// none. String literals and `//` comments are skipped.
inline size_t findOversizedResultNumber(std::string_view text) {
  auto isNameChar = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.' ||
           c == '-';
  };
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '"') { // A string literal, with backslash escapes.
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
    } else if (c == '%') {
      size_t use = i++;
      while (i < n && isNameChar(text[i]))
        ++i;
      if (i >= n || text[i] != '#')
        continue;
      uint64_t number = 0;
      for (++i; i < n && text[i] >= '0' && text[i] <= '9'; ++i) {
        number = number * 10 + uint64_t(text[i] - '0');
        if (number > kMaxResultNumber)
          return use;
      }
    } else {
      ++i;
    }
  }
  return std::string_view::npos;
}

} // namespace jeet

#endif // JEET_LIMITS_H
