//===- Tensor.cpp ---------------------------------------------------------===//

#include "jeet/Runtime/Tensor.h"
#include "jeet/Limits.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"

#include <cerrno>
#include <cstdlib>
#include <limits>

using namespace jeet::runtime;

Buffer::Buffer(Device *device, void *data, size_t bytes)
    : device_(device), deviceName_(device->name()),
      lifetime_(device->lifetime()), data_(data), bytes_(bytes) {}

StatusOr<std::shared_ptr<Buffer>> Buffer::allocate(Device &device, size_t bytes,
                                                   void *stream) {
  void *home = stream ? stream : device.defaultStream();
  StatusOr<void *> ptr = device.allocator().allocate(bytes, home);
  if (!ptr.ok())
    return ptr.status();
  std::shared_ptr<Buffer> buffer(new Buffer(&device, *ptr, bytes));
  buffer->allocationStream_ = home;
  return buffer;
}

std::shared_ptr<Buffer> Buffer::wrap(Device &device, void *data, size_t bytes,
                                     std::function<void()> release) {
  std::shared_ptr<Buffer> buffer(new Buffer(&device, data, bytes));
  buffer->release_ = release ? std::move(release) : [] {};
  return buffer;
}

Buffer::~Buffer() {
  if (release_) {
    release_();
    return;
  }
  // A closed device took its memory (and the events) with it.
  if (!deviceAlive())
    return;
  if (!foreignUses_.empty()) {
    auto &cuda = static_cast<CudaDevice &>(*device_);
    for (auto [stream, event] : foreignUses_) {
      // The allocation stream's later work, which the allocator may give
      // this memory, comes after the other stream's use of it. Should the
      // driver refuse, the host waits instead.
      if (!cuda.streamWaitEvent(allocationStream_, event).ok())
        cuda.synchronizeEvent(event).ignore();
      cuda.destroyEvent(event).ignore();
    }
  }
  device_->allocator().free(data_).ignore();
}

Status Buffer::markUsedOn(void *stream) {
  // Host memory, wrapped memory (its owner orders its reuse) and the
  // allocation stream itself need no mark.
  if (device_->kind() != DeviceKind::Cuda || release_ ||
      stream == allocationStream_ || !deviceAlive())
    return Status();
  auto &cuda = static_cast<CudaDevice &>(*device_);
  std::lock_guard<std::mutex> lock(writeMutex_);
  for (auto [used, event] : foreignUses_)
    if (used == stream) // Moves the mark past the new work.
      return cuda.recordEvent(event, stream);
  StatusOr<void *> event = cuda.createEvent(/*timing=*/false);
  if (!event.ok())
    return event.status();
  if (Status status = cuda.recordEvent(*event, stream); !status.ok()) {
    cuda.destroyEvent(*event).ignore();
    return status;
  }
  foreignUses_.push_back({stream, *event});
  return Status();
}

void *Buffer::writeStream() const {
  std::lock_guard<std::mutex> lock(writeMutex_);
  return writeStream_;
}

void Buffer::markWritten(void *stream, uint64_t ticket) {
  std::lock_guard<std::mutex> lock(writeMutex_);
  writeStream_ = stream;
  writeTicket_ = ticket;
}

Status Buffer::readable() const {
  if (!deviceAlive())
    return invalidArgument(
        "the tensor's device " + deviceName_ +
        " was closed (CUDA options were set again): its memory is gone");
  void *stream;
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(writeMutex_);
    stream = writeStream_;
    ticket = writeTicket_;
  }
  return ticket ? device_->submissionStatus(stream, ticket) : Status();
}

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
  JEET_RETURN_IF_ERROR(buffer_->readable());
  if (!bytes)
    return Status();
  // Work queued on a stream of the caller's (not one the device knows)
  // that writes the tensor is waited for too.
  Device &device = buffer_->device();
  void *stream = buffer_->writeStream();
  if (stream && stream != device.defaultStream())
    JEET_RETURN_IF_ERROR(device.synchronizeStream(stream));
  JEET_RETURN_IF_ERROR(device.copyDeviceToHost(dst, data(), bytes));
  // The wait may have revealed that the work writing the tensor failed.
  return buffer_->readable();
}

StatusOr<std::vector<uint8_t>> Tensor::toHostBytes() const {
  std::vector<uint8_t> bytes(byteSize());
  JEET_RETURN_IF_ERROR(toHost(bytes.data(), bytes.size()));
  return bytes;
}

StatusOr<Tensor> Tensor::to(Device &device) const {
  if (!defined())
    return invalidArgument("copy of an undefined tensor");
  JEET_RETURN_IF_ERROR(buffer_->readable());
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

//===----------------------------------------------------------------------===//
// TensorType
//===----------------------------------------------------------------------===//

std::string TensorType::str() const {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dtypeName(dtype);
}

int64_t TensorType::numElements() const { return Tensor::countElements(shape); }

size_t TensorType::byteSize() const {
  return static_cast<size_t>(numElements()) * dtypeSize(dtype);
}

StatusOr<TensorType> TensorType::parse(const std::string &text) {
  TensorType type;
  size_t start = 0;
  while (true) {
    size_t x = text.find('x', start);
    if (x == std::string::npos)
      break;
    std::string dim = text.substr(start, x - start);
    char *end = nullptr;
    errno = 0;
    long long value = std::strtoll(dim.c_str(), &end, 10);
    if (dim.empty() || *end != '\0' || value < 0 || errno == ERANGE)
      return invalidArgument("bad dimension '" + dim + "' in '" + text + "'");
    type.shape.push_back(value);
    start = x + 1;
  }
  StatusOr<DType> dtype = parseDType(text.substr(start));
  if (!dtype.ok())
    return dtype.status().withContext("'" + text + "'");
  type.dtype = *dtype;
  if (type.numElements() < 0)
    return invalidArgument("bad shape in '" + text + "'");
  return type;
}
