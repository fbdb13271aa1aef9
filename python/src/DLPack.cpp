//===- DLPack.cpp - Runtime tensors as DLPack capsules, both ways ---------===//
//
// Part of the Jeet project.
//
// DLPack (https://dmlc.github.io/dlpack, the array API's __dlpack__
// protocol) without copies: a Jeet tensor exports a capsule that shares its
// buffer (the capsule keeps the buffer alive), and a capsule from numpy,
// torch, cupy or jax becomes a Jeet tensor over the producer's memory (the
// tensor keeps the producer's tensor alive through the capsule's deleter).
// CPU tensors are kDLCPU, GPU tensors kDLCUDA with the device ordinal.
//
// For CUDA tensors, DLPack's stream argument orders the work: an export to a
// consumer's stream makes that stream wait (an event, no host wait) for the
// work queued on Jeet's stream; an import passes Jeet's stream to the
// producer, which does the same on its side.
//
// Jeet tensors are C-contiguous and float32, float16, bfloat16, int32,
// int64 or bool: other strides and dtypes are refused with an error that says
// how to convert them (no hidden copy).
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Tensor.h"

#include <Python.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;
using jeet::runtime::DType;

namespace {

//===----------------------------------------------------------------------===//
// The DLPack ABI (dlpack.h, version 1.0)
//===----------------------------------------------------------------------===//

enum DLDeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13,
};

enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *self);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
};

constexpr uint32_t kDLPackMajor = 1;
constexpr uint32_t kDLPackMinor = 0;
constexpr uint64_t kFlagIsCopied = 2;

constexpr const char *kCapsule = "dltensor";
constexpr const char *kUsedCapsule = "used_dltensor";
constexpr const char *kVersionedCapsule = "dltensor_versioned";
constexpr const char *kUsedVersionedCapsule = "used_dltensor_versioned";

/// DLPack's stream values for CUDA (the array API's __dlpack__).
constexpr int64_t kStreamNoSync = -1;
constexpr int64_t kStreamLegacy = 1;

//===----------------------------------------------------------------------===//
// dtypes
//===----------------------------------------------------------------------===//

DLDataType toDLPack(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return {kDLFloat, 32, 1};
  case DType::F16:
    return {kDLFloat, 16, 1};
  case DType::BF16:
    return {kDLBfloat, 16, 1};
  case DType::I32:
    return {kDLInt, 32, 1};
  case DType::I64:
    return {kDLInt, 64, 1};
  case DType::I1:
    return {kDLBool, 8, 1};
  }
  return {kDLUInt, 8, 1};
}

/// numpy-style name of a DLPack dtype: "float64", "uint8", "bool".
std::string dtypeName(DLDataType type) {
  std::string name;
  switch (type.code) {
  case kDLInt:
    name = "int";
    break;
  case kDLUInt:
    name = "uint";
    break;
  case kDLFloat:
    name = "float";
    break;
  case kDLBfloat:
    name = "bfloat";
    break;
  case kDLComplex:
    name = "complex";
    break;
  case kDLBool:
    return "bool";
  default:
    name = "code" + std::to_string(type.code) + "_";
  }
  name += std::to_string(type.bits);
  if (type.lanes != 1)
    name += "x" + std::to_string(type.lanes);
  return name;
}

/// The Jeet dtype of a DLPack dtype, or a JeetError naming it.
DType fromDLPack(DLDataType type) {
  if (type.lanes == 1) {
    if (type.code == kDLFloat && type.bits == 32)
      return DType::F32;
    if (type.code == kDLFloat && type.bits == 16)
      return DType::F16;
    if (type.code == kDLBfloat && type.bits == 16)
      return DType::BF16;
    if (type.code == kDLInt && type.bits == 32)
      return DType::I32;
    if (type.code == kDLInt && type.bits == 64)
      return DType::I64;
    // One byte per element, 0 or 1, as numpy and torch store bool.
    if (type.code == kDLBool && type.bits == 8)
      return DType::I1;
  }
  jeet_python::raise(jeet_python::errors().base,
                     "jeet.from_dlpack: dtype " + dtypeName(type) +
                         " is not supported: Jeet tensors are float32, "
                         "float16, bfloat16, int32, int64 or bool (convert "
                         "it first, e.g. x.astype('float32') or "
                         "x.to(torch.float32))");
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

/// What an exported capsule owns: a reference to the tensor's buffer and
/// the shape and strides the DLTensor points to.
struct ExportContext {
  jeet::runtime::Tensor tensor;
  std::vector<int64_t> shape, strides;
  /// The CUDA stream the consumer uses the memory on (null: none given).
  void *consumerStream = nullptr;
};

/// The consumer is done with an exported GPU tensor once the work it queued
/// on its stream is: Jeet's stream waits for that work (on the device), so
/// the buffer, whenever its last reference goes, returns to Jeet's allocator
/// behind it (the allocator hands memory out again in the order of Jeet's
/// stream). Should the driver refuse, the host waits for the device.
void orderAfterConsumer(const ExportContext &context) {
  const jeet::runtime::Tensor &tensor = context.tensor;
  if (!context.consumerStream || !tensor.buffer()->deviceAlive() ||
      tensor.device()->kind() != jeet::runtime::DeviceKind::Cuda)
    return;
  auto &cuda = static_cast<jeet::runtime::CudaDevice &>(*tensor.device());
  if (!cuda.orderStreams(context.consumerStream, cuda.defaultStream()).ok())
    cuda.synchronize().ignore();
}

template <typename Managed> void deleteExported(Managed *managed) {
  auto *context = static_cast<ExportContext *>(managed->manager_ctx);
  orderAfterConsumer(*context);
  delete context;
  delete managed;
}

/// The capsule's destructor: deletes the tensor unless a consumer took it
/// (and renamed the capsule).
template <typename Managed> void destroyCapsule(PyObject *capsule) {
  const char *name =
      std::is_same_v<Managed, DLManagedTensor> ? kCapsule : kVersionedCapsule;
  if (!PyCapsule_IsValid(capsule, name))
    return;
  auto *managed = static_cast<Managed *>(PyCapsule_GetPointer(capsule, name));
  if (managed && managed->deleter)
    managed->deleter(managed);
}

void fillTensor(DLTensor &dl, ExportContext &context) {
  const jeet::runtime::Tensor &tensor = context.tensor;
  context.shape = tensor.shape();
  context.strides.assign(context.shape.size(), 1);
  for (size_t i = context.shape.size(); i-- > 1;)
    context.strides[i - 1] = context.strides[i] * context.shape[i];
  dl.data = tensor.data();
  jeet::runtime::Device *device = tensor.device();
  dl.device.device_type =
      device->kind() == jeet::runtime::DeviceKind::Cuda ? kDLCUDA : kDLCPU;
  dl.device.device_id =
      device->kind() == jeet::runtime::DeviceKind::Cuda
          ? static_cast<jeet::runtime::CudaDevice *>(device)->ordinal()
          : 0;
  dl.ndim = static_cast<int32_t>(context.shape.size());
  dl.dtype = toDLPack(tensor.dtype());
  dl.shape = context.shape.data();
  dl.strides = context.strides.data();
  dl.byte_offset = 0;
}

/// Makes the consumer's stream (DLPack's value) wait for the work queued on
/// the tensor's device so far; returns that stream (null: no ordering, or
/// Jeet's own stream).
void *orderForConsumer(jeet::runtime::CudaDevice &device,
                       const nb::object &stream) {
  int64_t value = stream.is_none() ? kStreamLegacy : nb::cast<int64_t>(stream);
  if (value == kStreamNoSync)
    return nullptr;
  if (value == 0)
    jeet_python::raise(jeet_python::errors().base,
                       "__dlpack__: stream 0 is ambiguous for CUDA (DLPack "
                       "disallows it); pass 1 for the legacy default stream, "
                       "2 for the per-thread one, or a stream handle");
  if (value < kStreamNoSync)
    jeet_python::raise(jeet_python::errors().base,
                       "__dlpack__: invalid stream " + std::to_string(value));
  void *consumer = reinterpret_cast<void *>(static_cast<intptr_t>(value));
  jeet::runtime::Status status =
      device.orderStreams(device.defaultStream(), consumer);
  if (!status.ok())
    jeet_python::raiseStatus(status);
  return consumer == device.defaultStream() ? nullptr : consumer;
}

/// A DLPack capsule sharing `tensor`'s memory: versioned when the consumer
/// takes DLPack 1.0 or later.
nb::object exportTensor(const jeet::runtime::Tensor &tensor,
                        const nb::object &stream, bool versioned, bool copied) {
  if (!tensor.defined())
    jeet_python::raise(jeet_python::errors().base,
                       "__dlpack__: the tensor holds no data");
  if (jeet::runtime::Status readable = tensor.buffer()->readable();
      !readable.ok())
    jeet_python::raiseStatus(readable);
  jeet::runtime::Device *device = tensor.device();
  void *consumerStream = nullptr;
  if (device->kind() == jeet::runtime::DeviceKind::Cuda)
    consumerStream = orderForConsumer(
        *static_cast<jeet::runtime::CudaDevice *>(device), stream);
  else if (!stream.is_none())
    jeet_python::raise(jeet_python::errors().base,
                       "__dlpack__: a CPU tensor takes no stream (got " +
                           std::string(nb::str(stream).c_str()) + ")");

  auto context = std::make_unique<ExportContext>();
  context->tensor = tensor;
  context->consumerStream = consumerStream;
  PyObject *capsule = nullptr;
  if (versioned) {
    auto *managed = new DLManagedTensorVersioned{};
    managed->version = {kDLPackMajor, kDLPackMinor};
    managed->flags = copied ? kFlagIsCopied : 0;
    fillTensor(managed->dl_tensor, *context);
    managed->manager_ctx = context.release();
    managed->deleter = deleteExported<DLManagedTensorVersioned>;
    capsule = PyCapsule_New(managed, kVersionedCapsule,
                            destroyCapsule<DLManagedTensorVersioned>);
    if (!capsule)
      deleteExported(managed);
  } else {
    auto *managed = new DLManagedTensor{};
    fillTensor(managed->dl_tensor, *context);
    managed->manager_ctx = context.release();
    managed->deleter = deleteExported<DLManagedTensor>;
    capsule = PyCapsule_New(managed, kCapsule, destroyCapsule<DLManagedTensor>);
    if (!capsule)
      deleteExported(managed);
  }
  if (!capsule)
    throw nb::python_error();
  return nb::steal(capsule);
}

//===----------------------------------------------------------------------===//
// Import
//===----------------------------------------------------------------------===//

/// The device of a DLPack tensor, or an error naming what it is.
jeet::runtime::Device &importDevice(const DLDevice &device) {
  switch (device.device_type) {
  case kDLCPU:
  case kDLCUDAHost: // page-locked host memory is host memory
    return jeet::runtime::getHostDevice();
  case kDLCUDA:
    return jeet_python::lookupDevice("cuda:" +
                                     std::to_string(device.device_id));
  case kDLCUDAManaged:
    jeet_python::raise(jeet_python::errors().base,
                       "jeet.from_dlpack: CUDA managed (unified) memory is "
                       "not supported; copy it to the device or the host "
                       "first");
  default:
    jeet_python::raise(jeet_python::errors().base,
                       "jeet.from_dlpack: tensors on DLPack device type " +
                           std::to_string(device.device_type) +
                           " are not supported (Jeet takes CPU and CUDA "
                           "tensors)");
  }
}

std::string formatInts(const int64_t *values, int32_t count) {
  std::string text = "(";
  for (int32_t i = 0; i < count; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + (count == 1 ? ",)" : ")");
}

/// Errors unless the tensor is C-contiguous (dimensions of one element may
/// have any stride; a tensor of no element is always fine).
void checkContiguous(const DLTensor &dl) {
  if (!dl.strides)
    return;
  int64_t expected = 1;
  bool empty = false;
  for (int32_t i = 0; i < dl.ndim; ++i)
    empty |= dl.shape[i] == 0;
  if (empty)
    return;
  for (int32_t i = dl.ndim; i-- > 0;) {
    if (dl.shape[i] != 1 && dl.strides[i] != expected)
      jeet_python::raise(
          jeet_python::errors().base,
          "jeet.from_dlpack: the tensor of shape " +
              formatInts(dl.shape, dl.ndim) + " has strides " +
              formatInts(dl.strides, dl.ndim) +
              " (in elements), not C-contiguous: Jeet tensors are "
              "row-major and dense (make a contiguous copy first, e.g. "
              "numpy.ascontiguousarray(x) or x.contiguous())");
    expected *= dl.shape[i];
  }
}

/// `release` once the work Jeet queued on the device so far is done. A
/// producer may reuse its memory as soon as its deleter runs (the caching
/// allocators of PyTorch and CuPy do, on their own streams), so the host
/// waits for Jeet's stream first.
std::function<void()> afterQueuedWork(jeet::runtime::Device &device,
                                      std::function<void()> release) {
  auto *cuda = static_cast<jeet::runtime::CudaDevice *>(&device);
  std::weak_ptr<const char> alive = device.lifetime();
  return [cuda, alive, release = std::move(release)] {
    // A closed device runs nothing any more.
    if (!alive.expired())
      cuda->synchronizeStream(cuda->defaultStream()).ignore();
    release();
  };
}

/// Wraps the memory of a DLPack tensor; `release` runs the producer's
/// deleter once the Jeet tensor is gone (after Jeet's work on the memory
/// when it is GPU memory of another library: `jeetsOwn` is false).
jeet::runtime::Tensor wrapTensor(const DLTensor &dl,
                                 std::function<void()> release, bool jeetsOwn) {
  if (dl.ndim < 0 || (dl.ndim > 0 && !dl.shape))
    jeet_python::raise(jeet_python::errors().base,
                       "jeet.from_dlpack: malformed DLPack tensor (rank " +
                           std::to_string(dl.ndim) + ")");
  DType dtype = fromDLPack(dl.dtype);
  checkContiguous(dl);
  jeet::runtime::Device &device = importDevice(dl.device);
  std::vector<int64_t> shape(dl.shape, dl.shape + dl.ndim);
  int64_t count = jeet::runtime::Tensor::countElements(shape);
  if (count < 0)
    jeet_python::raise(jeet_python::errors().base,
                       "jeet.from_dlpack: invalid shape " +
                           formatInts(dl.shape, dl.ndim));
  size_t bytes = static_cast<size_t>(count) * jeet::runtime::dtypeSize(dtype);
  // Jeet's own buffers go back to its allocator, ordered on its stream.
  if (device.kind() == jeet::runtime::DeviceKind::Cuda && !jeetsOwn)
    release = afterQueuedWork(device, std::move(release));
  void *data =
      dl.data ? static_cast<char *>(dl.data) + dl.byte_offset : nullptr;
  return jeet::runtime::Tensor(
      std::move(shape), dtype,
      jeet::runtime::Buffer::wrap(device, data, bytes, std::move(release)));
}

/// Runs a producer's deleter from whatever thread drops the last reference:
/// with the GIL, which Python producers (numpy) need.
template <typename Managed> std::function<void()> producerDeleter(Managed *m) {
  return [m] {
    if (!m->deleter || !Py_IsInitialized())
      return;
    PyGILState_STATE state = PyGILState_Ensure();
    m->deleter(m);
    PyGILState_Release(state);
  };
}

/// A Jeet tensor over the memory of a DLPack capsule, which it consumes.
jeet::runtime::Tensor importCapsule(nb::handle capsule) {
  PyObject *object = capsule.ptr();
  if (!PyCapsule_CheckExact(object))
    jeet_python::raise(jeet_python::errors().base,
                       "jeet.from_dlpack: expected an object with __dlpack__ "
                       "or a DLPack capsule, got " +
                           std::string(Py_TYPE(object)->tp_name));
  const char *name = PyCapsule_GetName(object);
  std::string kind = name ? name : "";
  if (kind == kUsedCapsule || kind == kUsedVersionedCapsule)
    jeet_python::raise(jeet_python::errors().base,
                       "jeet.from_dlpack: this DLPack capsule was already "
                       "consumed (a capsule is imported once; ask the "
                       "producer's __dlpack__() for a new one)");
  if (kind == kVersionedCapsule) {
    auto *managed = static_cast<DLManagedTensorVersioned *>(
        PyCapsule_GetPointer(object, kVersionedCapsule));
    if (!managed)
      throw nb::python_error();
    if (managed->version.major != kDLPackMajor)
      jeet_python::raise(jeet_python::errors().base,
                         "jeet.from_dlpack: DLPack version " +
                             std::to_string(managed->version.major) + "." +
                             std::to_string(managed->version.minor) +
                             " is not supported (Jeet reads 1.x)");
    // Jeet never writes a tensor in place: read-only memory is fine.
    jeet::runtime::Tensor tensor = wrapTensor(
        managed->dl_tensor, producerDeleter(managed),
        managed->deleter == deleteExported<DLManagedTensorVersioned>);
    PyCapsule_SetName(object, kUsedVersionedCapsule);
    return tensor;
  }
  if (kind == kCapsule) {
    auto *managed =
        static_cast<DLManagedTensor *>(PyCapsule_GetPointer(object, kCapsule));
    if (!managed)
      throw nb::python_error();
    jeet::runtime::Tensor tensor =
        wrapTensor(managed->dl_tensor, producerDeleter(managed),
                   managed->deleter == deleteExported<DLManagedTensor>);
    PyCapsule_SetName(object, kUsedCapsule);
    return tensor;
  }
  jeet_python::raise(jeet_python::errors().base,
                     "jeet.from_dlpack: a capsule named '" + kind +
                         "' is not a DLPack tensor");
}

/// (device type, device id) as __dlpack_device__ returns them.
nb::tuple dlpackDevice(const jeet::runtime::Tensor &tensor) {
  jeet::runtime::Device *device = tensor.device();
  if (device && device->kind() == jeet::runtime::DeviceKind::Cuda)
    return nb::make_tuple(
        static_cast<int>(kDLCUDA),
        static_cast<jeet::runtime::CudaDevice *>(device)->ordinal());
  return nb::make_tuple(static_cast<int>(kDLCPU), 0);
}

} // namespace

void jeet_python::bindDLPack(nb::module_ &m,
                             nb::class_<jeet::runtime::Tensor> &tensor) {
  tensor
      .def(
          "dlpack",
          [](const jeet::runtime::Tensor &t, nb::object stream, bool versioned,
             bool copied) {
            return exportTensor(t, stream, versioned, copied);
          },
          "stream"_a = nb::none(), "versioned"_a = false, "copied"_a = false,
          "A DLPack capsule sharing the tensor's memory (the capsule keeps "
          "it alive). CUDA tensors: `stream` (DLPack's value: None or 1 the "
          "legacy default stream, 2 the per-thread one, -1 no ordering, or a "
          "handle) waits for Jeet's queued work without blocking the host.")
      .def("dlpack_device", &dlpackDevice,
           "(kDLCPU=1, 0) or (kDLCUDA=2, ordinal).");
  m.def("from_dlpack_capsule", &importCapsule, "capsule"_a,
        "A runtime tensor over a DLPack capsule's memory (no copy); the "
        "capsule is consumed.");
  m.def(
      "cuda_stream",
      [](int ordinal) {
        auto device = jeet::runtime::getCudaDevice(ordinal);
        if (!device.ok())
          raiseStatus(device.status());
        return reinterpret_cast<intptr_t>((*device)->defaultStream());
      },
      "ordinal"_a = 0,
      "The handle of the stream Jeet queues work on for CUDA device "
      "`ordinal`, as DLPack's stream argument takes it.");
}
