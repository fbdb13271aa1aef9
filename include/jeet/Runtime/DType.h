//===- DType.h - Element types of runtime tensors ---------------*- C++ -*-===//

#ifndef JEET_RUNTIME_DTYPE_H
#define JEET_RUNTIME_DTYPE_H

#include "jeet/Runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace jeet {
namespace runtime {

/// Element types. I1 is stored as one byte per element (0 or 1).
enum class DType { F32, F16, BF16, I32, I64, I1 };

/// Every dtype, in the order of the enum.
inline constexpr DType kDTypes[] = {DType::F32, DType::F16, DType::BF16,
                                    DType::I32, DType::I64, DType::I1};

/// The MLIR spelling: "f32", "f16", "bf16", "i32", "i64", "i1".
const char *dtypeName(DType dtype);

/// The NumPy-style spelling: "float32", "float16", "bfloat16", "int32",
/// "int64", "bool".
const char *dtypeLongName(DType dtype);

/// Bytes per element (I1: 1).
size_t dtypeSize(DType dtype);

bool isFloatingPoint(DType dtype);

/// Parses either spelling of a dtype, or "float" (f32) or "half" (f16)
/// (case-sensitive). This is the one table of dtype spellings: the compiler
/// parses with it too.
StatusOr<DType> parseDType(std::string_view text);

/// IEEE half and bfloat16 conversions (round to nearest even).
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBF16(float value);
float bf16ToFloat(uint16_t bits);

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_DTYPE_H
