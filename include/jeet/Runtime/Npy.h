//===- Npy.h - NumPy .npy files and inline tensor literals ------*- C++ -*-===//

#ifndef JEET_RUNTIME_NPY_H
#define JEET_RUNTIME_NPY_H

#include "jeet/Runtime/Status.h"
#include "jeet/Runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jeet {
namespace runtime {

/// Reads a .npy file (format 1.0, 2.0 or 3.0; C order; dtypes <f4, <f2, <i4,
/// <i8, |b1, and <V2/|V2 as bfloat16 (how ml_dtypes saves it); any rank
/// including 0-d) into a host tensor. Reads are bounded: the header first,
/// then exactly the data it announces, checked against the file's size
/// before anything is allocated. Errors name the path
/// and the problem, e.g. "a.npy: not a .npy file (bad magic)",
/// "a.npy: Fortran order is not supported", "a.npy: unsupported dtype '>f8'",
/// "a.npy: truncated: expected 24 bytes of data, file has 8".
StatusOr<Tensor> loadNpy(const std::string &path);
/// Same, from bytes in memory; `name` stands for the path in errors.
StatusOr<Tensor> parseNpy(const void *data, size_t size,
                          const std::string &name);

/// Writes `tensor` (copied to the host if needed) as a format 1.0 .npy file
/// (2.0 when the header needs it). BF16 has no NumPy dtype: InvalidArgument.
Status saveNpy(const std::string &path, const Tensor &tensor);
StatusOr<std::vector<uint8_t>> encodeNpy(const Tensor &tensor);

/// Parses an IREE-style inline tensor: "2x3xf32=1,2,3,4,5,6", "f32=5".
/// Values may be separated by commas and/or spaces; brackets are ignored.
/// The value count must equal the element count. The tensor is on `device`
/// (the host device when null).
StatusOr<Tensor> parseTensorLiteral(std::string_view text,
                                    Device *device = nullptr);

/// Prints a tensor: "2x3xf32=[[1 2 3][4 5 6]]", "f32=5". Copies from the
/// device if needed.
std::string formatTensor(const Tensor &tensor);

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_NPY_H
