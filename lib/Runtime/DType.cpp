//===- DType.cpp ----------------------------------------------------------===//

#include "jeet/Runtime/DType.h"

#include <cstring>
#include <iterator>
#include <string>

using namespace jeet::runtime;

namespace {
/// What the runtime knows of each dtype: its spellings and its size.
struct DTypeInfo {
  DType dtype;
  const char *name;
  const char *longName;
  /// Another accepted spelling, or null.
  const char *alias;
  size_t size;
};

constexpr DTypeInfo kDTypeInfo[] = {
    {DType::F32, "f32", "float32", "float", 4},
    {DType::F16, "f16", "float16", "half", 2},
    {DType::BF16, "bf16", "bfloat16", nullptr, 2},
    {DType::I32, "i32", "int32", nullptr, 4},
    {DType::I64, "i64", "int64", nullptr, 8},
    {DType::I1, "i1", "bool", nullptr, 1},
};

const DTypeInfo &info(DType dtype) {
  for (const DTypeInfo &entry : kDTypeInfo)
    if (entry.dtype == dtype)
      return entry;
  return kDTypeInfo[0]; // unreachable: every enumerator has an entry
}
} // namespace

const char *jeet::runtime::dtypeName(DType dtype) { return info(dtype).name; }

const char *jeet::runtime::dtypeLongName(DType dtype) {
  return info(dtype).longName;
}

size_t jeet::runtime::dtypeSize(DType dtype) { return info(dtype).size; }

bool jeet::runtime::isFloatingPoint(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}

StatusOr<DType> jeet::runtime::parseDType(std::string_view text) {
  for (const DTypeInfo &entry : kDTypeInfo)
    if (text == entry.name || text == entry.longName ||
        (entry.alias && text == entry.alias))
      return entry.dtype;
  std::string expected;
  for (size_t i = 0, e = std::size(kDTypeInfo); i < e; ++i)
    expected += std::string(i == 0       ? ""
                            : i + 1 == e ? " or "
                                         : ", ") +
                kDTypeInfo[i].name;
  return invalidArgument("unknown dtype '" + std::string(text) +
                         "' (expected " + expected + ")");
}

static uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

static float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

uint16_t jeet::runtime::floatToHalf(float value) {
  uint32_t x = floatBits(value);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t mant = x & 0x7fffff;
  if (exp == 0xff) // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10)
      return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, giving inf: correct
  return static_cast<uint16_t>(sign | half);
}

float jeet::runtime::halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  if (exp == 0) {
    if (mant == 0)
      return bitsFloat(sign);
    // Subnormal: normalise.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while (!(mant & 0x400));
    mant &= 0x3ff;
    return bitsFloat(sign | (static_cast<uint32_t>(127 - 15 - e) << 23) |
                     (mant << 13));
  }
  if (exp == 0x1f)
    return bitsFloat(sign | 0x7f800000 | (mant << 13));
  return bitsFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t jeet::runtime::floatToBF16(float value) {
  uint32_t x = floatBits(value);
  if ((x & 0x7fffffff) > 0x7f800000) // nan
    return static_cast<uint16_t>((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

float jeet::runtime::bf16ToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}
