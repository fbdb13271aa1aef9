//===- Tensor.h - Buffers and reference-counted tensors ---------*- C++ -*-===//

#ifndef JEET_RUNTIME_TENSOR_H
#define JEET_RUNTIME_TENSOR_H

#include "jeet/Runtime/DType.h"
#include "jeet/Runtime/Status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace jeet {
namespace runtime {

class Device;

/// The static type of one argument or result: "2x3xf32".
struct TensorType {
  std::vector<int64_t> shape;
  DType dtype = DType::F32;

  /// "2x3xf32", "f32" for a scalar.
  std::string str() const;
  int64_t numElements() const;
  size_t byteSize() const;
  /// Parses "2x3xf32" / "f32".
  static StatusOr<TensorType> parse(const std::string &text);
};

/// Memory on a device, obtained from the device's caching allocator and given
/// back to it when the last reference goes away, or memory owned by someone
/// else (a DLPack producer) that the buffer keeps alive.
///
/// A buffer remembers the asynchronous work that last wrote it (a stream and
/// a ticket of CudaDevice::noteSubmission): when that work fails, reading
/// the buffer reports the failure instead of returning stale data. A buffer
/// whose device was closed (setCudaOptions) reports that its memory is gone.
class Buffer {
public:
  /// Allocates `bytes` on `device` for use on `stream` (the device's default
  /// stream when null).
  static StatusOr<std::shared_ptr<Buffer>>
  allocate(Device &device, size_t bytes, void *stream = nullptr);
  /// Wraps `bytes` of memory at `data` on `device` without copying;
  /// `release` runs when the last reference goes away.
  static std::shared_ptr<Buffer> wrap(Device &device, void *data, size_t bytes,
                                      std::function<void()> release);

  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  void *data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Device &device() const { return *device_; }
  /// "cuda:0": the device's name, known even once the device is closed.
  const std::string &deviceName() const { return deviceName_; }
  /// False once the device was closed: the memory is gone.
  bool deviceAlive() const { return !lifetime_.expired(); }
  /// True when the runtime does not own the memory (Buffer::wrap).
  bool external() const { return static_cast<bool>(release_); }

  /// Asynchronous work queued on `stream` under `ticket` writes the buffer.
  void markWritten(void *stream, uint64_t ticket);
  /// The stream of the work that last wrote it (null: none known).
  void *writeStream() const;
  /// Work just queued on `stream`, another stream than the one the buffer
  /// was allocated for, uses the buffer. Its memory goes back to the
  /// allocator only behind that work: the buffer keeps an event recorded on
  /// `stream` now, which the allocation stream waits for (on the device, not
  /// the host) when the buffer is freed; the caching allocator's ordering on
  /// the allocation stream then covers `stream` too.
  Status markUsedOn(void *stream);
  /// Ok when the buffer can be read or used: its device is alive and the
  /// asynchronous work that wrote it has not failed (as far as known: a
  /// failure is known once the stream was waited for).
  Status readable() const;

private:
  Buffer(Device *device, void *data, size_t bytes);
  Device *device_;
  std::string deviceName_;
  std::weak_ptr<const char> lifetime_;
  void *data_;
  size_t bytes_;
  std::function<void()> release_;
  /// The stream the memory was allocated for (null: wrapped memory).
  void *allocationStream_ = nullptr;
  mutable std::mutex writeMutex_;
  void *writeStream_ = nullptr;
  uint64_t writeTicket_ = 0;
  /// (stream, event) of each other stream that used the buffer.
  std::vector<std::pair<void *, void *>> foreignUses_;
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
