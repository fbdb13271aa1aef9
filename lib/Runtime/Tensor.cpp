//===- Tensor.cpp ---------------------------------------------------------===//

#include "jeet/Runtime/Tensor.h"
#include "jeet/Limits.h"
#include "jeet/Runtime/Device.h"

using namespace jeet::runtime;

StatusOr<std::shared_ptr<Buffer>> Buffer::allocate(Device &device, size_t bytes,
                                                   void *stream) {
  StatusOr<void *> ptr = device.allocator().allocate(bytes, stream);
  if (!ptr.ok())
    return ptr.status();
  return std::shared_ptr<Buffer>(new Buffer(&device, *ptr, bytes));
}

Buffer::~Buffer() { device_->allocator().free(data_).ignore(); }

Tensor::Tensor(std::vector<int64_t> shape, DType dtype,
               std::shared_ptr<Buffer> buffer)
    : shape_(std::move(shape)), dtype_(dtype), buffer_(std::move(buffer)) {}

int64_t Tensor::countElements(const std::vector<int64_t> &shape) {
  return checkedElementCount(shape);
}

static std::string shapeString(const std::vector<int64_t> &shape, DType dtype) {
  std::string text;
  for (int64_t dim : shape)
    text += std::to_string(dim) + "x";
  return text + dtypeName(dtype);
}

Status Tensor::checkShape(const std::vector<int64_t> &shape, DType dtype) {
  if (countElements(shape) >= 0)
    return Status();
  if (static_cast<int64_t>(shape.size()) > kMaxTensorRank)
    return invalidArgument(
        "invalid shape: rank " + std::to_string(shape.size()) +
        " is beyond Jeet's limit of " + std::to_string(kMaxTensorRank));
  std::string name = shapeString(shape, dtype);
  for (int64_t dim : shape)
    if (dim < 0)
      return invalidArgument("invalid shape " + name + ": negative dimension " +
                             std::to_string(dim));
  return invalidArgument("invalid shape " + name +
                         ": more elements than Jeet's limit of 2^40 (" +
                         std::to_string(kMaxTensorElements) + ")");
}

StatusOr<Tensor> Tensor::empty(Device &device, std::vector<int64_t> shape,
                               DType dtype, void *stream) {
  JEET_RETURN_IF_ERROR(checkShape(shape, dtype));
  int64_t count = countElements(shape);
  StatusOr<std::shared_ptr<Buffer>> buffer = Buffer::allocate(
      device, static_cast<size_t>(count) * dtypeSize(dtype), stream);
  if (!buffer.ok())
    return buffer.status();
  return Tensor(std::move(shape), dtype, std::move(*buffer));
}

StatusOr<Tensor> Tensor::zeros(Device &device, std::vector<int64_t> shape,
                               DType dtype) {
  StatusOr<Tensor> tensor = empty(device, std::move(shape), dtype);
  if (!tensor.ok())
    return tensor;
  JEET_RETURN_IF_ERROR(device.zero(tensor->data(), tensor->byteSize()));
  return tensor;
}

StatusOr<Tensor> Tensor::fromHost(Device &device, std::vector<int64_t> shape,
                                  DType dtype, const void *data, size_t bytes) {
  JEET_RETURN_IF_ERROR(checkShape(shape, dtype));
  int64_t count = countElements(shape);
  size_t expected = static_cast<size_t>(count) * dtypeSize(dtype);
  if (bytes != expected)
    return invalidArgument(shapeString(shape, dtype) + " needs " +
                           std::to_string(expected) + " bytes, " +
                           std::to_string(bytes) + " given");
  StatusOr<Tensor> tensor = empty(device, std::move(shape), dtype);
  if (!tensor.ok())
    return tensor;
  if (bytes)
    JEET_RETURN_IF_ERROR(device.copyHostToDevice(tensor->data(), data, bytes));
  return tensor;
}

Status Tensor::toHost(void *dst, size_t bytes) const {
  if (!defined())
    return invalidArgument("toHost of an undefined tensor");
  if (bytes != byteSize())
    return invalidArgument(typeString() + " has " + std::to_string(byteSize()) +
                           " bytes, " + std::to_string(bytes) + " requested");
  if (!bytes)
    return Status();
  return buffer_->device().copyDeviceToHost(dst, data(), bytes);
}

StatusOr<std::vector<uint8_t>> Tensor::toHostBytes() const {
  std::vector<uint8_t> bytes(byteSize());
  JEET_RETURN_IF_ERROR(toHost(bytes.data(), bytes.size()));
  return bytes;
}

StatusOr<Tensor> Tensor::to(Device &device) const {
  if (!defined())
    return invalidArgument("copy of an undefined tensor");
  Device &source = buffer_->device();
  if (&source == &device) {
    StatusOr<Tensor> copy = empty(device, shape_, dtype_);
    if (!copy.ok())
      return copy;
    if (byteSize())
      JEET_RETURN_IF_ERROR(
          device.copyDeviceToDevice(copy->data(), data(), byteSize()));
    return copy;
  }
  StatusOr<std::vector<uint8_t>> bytes = toHostBytes();
  if (!bytes.ok())
    return bytes.status();
  return fromHost(device, shape_, dtype_, bytes->data(), bytes->size());
}

int64_t Tensor::numElements() const { return countElements(shape_); }

size_t Tensor::byteSize() const {
  return static_cast<size_t>(numElements()) * dtypeSize(dtype_);
}

void *Tensor::data() const { return buffer_ ? buffer_->data() : nullptr; }

Device *Tensor::device() const {
  return buffer_ ? &buffer_->device() : nullptr;
}

std::string Tensor::typeString() const { return shapeString(shape_, dtype_); }
