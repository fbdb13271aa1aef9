//===- Tensor.h - Buffers and reference-counted tensors ---------*- C++ -*-===//

#ifndef JEET_RUNTIME_TENSOR_H
#define JEET_RUNTIME_TENSOR_H

#include "jeet/Runtime/DType.h"
#include "jeet/Runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jeet {
namespace runtime {

class Device;

/// Memory on a device, obtained from the device's caching allocator and given
/// back to it when the last reference goes away. The device must outlive it.
class Buffer {
public:
  /// Allocates `bytes` on `device` for use on `stream`.
  static StatusOr<std::shared_ptr<Buffer>>
  allocate(Device &device, size_t bytes, void *stream = nullptr);

  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  void *data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Device &device() const { return *device_; }

private:
  Buffer(Device *device, void *data, size_t bytes)
      : device_(device), data_(data), bytes_(bytes) {}
  Device *device_;
  void *data_;
  size_t bytes_;
};

/// A C-contiguous (row-major) tensor. Copies share the buffer.
class Tensor {
public:
  Tensor() = default;
  Tensor(std::vector<int64_t> shape, DType dtype,
         std::shared_ptr<Buffer> buffer);

  /// Uninitialised contents.
  static StatusOr<Tensor> empty(Device &device, std::vector<int64_t> shape,
                                DType dtype, void *stream = nullptr);
  static StatusOr<Tensor> zeros(Device &device, std::vector<int64_t> shape,
                                DType dtype);
  /// Copies `bytes` bytes of host data (must equal the tensor's byte size).
  static StatusOr<Tensor> fromHost(Device &device, std::vector<int64_t> shape,
                                   DType dtype, const void *data, size_t bytes);

  /// Copies the contents to host memory (`bytes` must equal byteSize()).
  Status toHost(void *dst, size_t bytes) const;
  /// The contents as host bytes.
  StatusOr<std::vector<uint8_t>> toHostBytes() const;
  /// A copy on `device` (a new buffer even when the device is the same).
  StatusOr<Tensor> to(Device &device) const;

  bool defined() const { return buffer_ != nullptr; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  DType dtype() const { return dtype_; }
  int64_t numElements() const;
  size_t byteSize() const;
  void *data() const;
  Device *device() const;
  const std::shared_ptr<Buffer> &buffer() const { return buffer_; }

  /// "2x3xf32", "f32" for a scalar.
  std::string typeString() const;

  /// Number of elements of a shape, or -1 when the shape is invalid or beyond
  /// Jeet's limits (jeet/Limits.h).
  static int64_t countElements(const std::vector<int64_t> &shape);
  /// OK when `shape` is valid and within Jeet's limits; otherwise an
  /// InvalidArgument error naming the shape and the rule it breaks.
  static Status checkShape(const std::vector<int64_t> &shape, DType dtype);

private:
  std::vector<int64_t> shape_;
  DType dtype_ = DType::F32;
  std::shared_ptr<Buffer> buffer_;
};

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_TENSOR_H
