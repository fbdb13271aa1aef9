//===- FuzzTensorText.cpp - Fuzz target: inline tensor literals -----------===//
//
// Part of the Jeet project.
//
// Text -> parseTensorLiteral ("2x3xf32=1,2,3,4,5,6", jeet-run --input). A
// literal that parses must print (formatTensor) as a literal that parses back
// to the same shape, dtype and values (NaNs compare equal).
//
//===----------------------------------------------------------------------===//

#include "jeet/Runtime/Npy.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

using namespace jeet::runtime;

/// Whether two element byte strings hold the same values (any NaN equals any
/// NaN: the printed form does not keep NaN payloads).
static bool sameValues(const std::vector<uint8_t> &a,
                       const std::vector<uint8_t> &b, DType dtype) {
  if (a.size() != b.size())
    return false;
  if (!isFloatingPoint(dtype))
    return a == b;
  size_t width = dtypeSize(dtype);
  for (size_t i = 0; i < a.size(); i += width) {
    float x, y;
    if (dtype == DType::F32) {
      std::memcpy(&x, &a[i], 4);
      std::memcpy(&y, &b[i], 4);
    } else {
      uint16_t u, v;
      std::memcpy(&u, &a[i], 2);
      std::memcpy(&v, &b[i], 2);
      x = dtype == DType::F16 ? halfToFloat(u) : bf16ToFloat(u);
      y = dtype == DType::F16 ? halfToFloat(v) : bf16ToFloat(v);
    }
    bool bothNaN = std::isnan(x) && std::isnan(y);
    if (!bothNaN && std::memcmp(&x, &y, 4) != 0)
      return false;
  }
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  StatusOr<Tensor> tensor = parseTensorLiteral(text);
  if (!tensor.ok())
    return 0;
  std::string printed = formatTensor(*tensor);
  StatusOr<Tensor> again = parseTensorLiteral(printed);
  StatusOr<std::vector<uint8_t>> before = tensor->toHostBytes();
  bool same = again.ok() && before.ok() && again->shape() == tensor->shape() &&
              again->dtype() == tensor->dtype();
  if (same) {
    StatusOr<std::vector<uint8_t>> after = again->toHostBytes();
    same = after.ok() && sameValues(*before, *after, tensor->dtype());
  }
  if (!same) {
    std::fprintf(stderr,
                 "jeet-fuzz-tensor-text: '%s' prints as '%s', which does not "
                 "parse back to the same tensor%s%s\n",
                 std::string(text).c_str(), printed.c_str(),
                 again.ok() ? "" : ": ",
                 again.ok() ? "" : again.status().message().c_str());
    std::abort();
  }
  return 0;
}
