//===- CAPI.cpp - The C API over the runtime ------------------------------===//

#include "jeet-c/Runtime.h"

#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/HostABI.h"
#include "jeet/Runtime/Npy.h"
#include "jeet/Runtime/Tensor.h"

#include <cstring>
#include <mutex>

using namespace jeet::runtime;

struct jeet_rt_tensor {
  Tensor tensor;
};

static Device *unwrap(jeet_rt_device *device) {
  return reinterpret_cast<Device *>(device);
}
static const Device *unwrap(const jeet_rt_device *device) {
  return reinterpret_cast<const Device *>(device);
}
static jeet_rt_device *wrap(Device *device) {
  return reinterpret_cast<jeet_rt_device *>(device);
}

static jeet_rt_status fail(const Status &status) {
  recordLastError(status);
  return static_cast<jeet_rt_status>(status.code());
}

static jeet_rt_status nullArgument(const char *function) {
  return fail(invalidArgument(std::string(function) + ": null argument"));
}

static jeet_rt_status wrapTensor(StatusOr<Tensor> tensor,
                                 jeet_rt_tensor **out) {
  if (!tensor.ok())
    return fail(tensor.status());
  *out = new jeet_rt_tensor{std::move(*tensor)};
  return JEET_RT_OK;
}

static std::vector<int64_t> toShape(const int64_t *shape, size_t rank) {
  return std::vector<int64_t>(shape, shape + rank);
}

extern "C" {

jeet_rt_status jeet_rt_take_last_error(char *message, size_t capacity) {
  Status status = takeLastError();
  if (message && capacity) {
    std::strncpy(message, status.message().c_str(), capacity - 1);
    message[capacity - 1] = '\0';
  }
  return static_cast<jeet_rt_status>(status.code());
}

const char *jeet_rt_status_name(jeet_rt_status status) {
  return statusCodeName(static_cast<StatusCode>(status));
}

size_t jeet_rt_devices(jeet_rt_device_info *out, size_t capacity) {
  static std::mutex mutex;
  static std::vector<DeviceInfo> *infos = new std::vector<DeviceInfo>();
  std::lock_guard<std::mutex> lock(mutex);
  *infos = listDevices();
  for (size_t i = 0; out && i < infos->size() && i < capacity; ++i) {
    const DeviceInfo &info = (*infos)[i];
    out[i].name = info.name.c_str();
    out[i].kind = info.kind == DeviceKind::Host ? JEET_RT_DEVICE_HOST
                                                : JEET_RT_DEVICE_CUDA;
    out[i].available = info.available;
    out[i].reason = info.reason.c_str();
    out[i].description = info.description.c_str();
  }
  return infos->size();
}

jeet_rt_device *jeet_rt_host_device(void) { return wrap(&getHostDevice()); }

jeet_rt_device *jeet_rt_cuda_device(int ordinal) {
  StatusOr<CudaDevice *> device = getCudaDevice(ordinal);
  if (!device.ok()) {
    fail(device.status());
    return nullptr;
  }
  return wrap(*device);
}

void jeet_rt_set_cuda_driver_path(const char *path) {
  CudaOptions options;
  if (path && *path)
    options.driverPath = path;
  setCudaOptions(options);
}

const char *jeet_rt_device_name(const jeet_rt_device *device) {
  return device ? unwrap(device)->name().c_str() : "";
}

jeet_rt_device_kind jeet_rt_device_kind_of(const jeet_rt_device *device) {
  return device && unwrap(device)->kind() == DeviceKind::Cuda
             ? JEET_RT_DEVICE_CUDA
             : JEET_RT_DEVICE_HOST;
}

jeet_rt_status jeet_rt_device_synchronize(jeet_rt_device *device) {
  if (!device)
    return nullArgument("jeet_rt_device_synchronize");
  Status status = unwrap(device)->synchronize();
  return status.ok() ? JEET_RT_OK : fail(status);
}

jeet_rt_device *jeet_rt_current_device(void) { return wrap(&currentDevice()); }

void jeet_rt_set_current_device(jeet_rt_device *device) {
  setCurrentDevice(unwrap(device));
}

jeet_rt_status jeet_rt_memory_stats_get(jeet_rt_device *device,
                                        jeet_rt_memory_stats *out) {
  if (!device || !out)
    return nullArgument("jeet_rt_memory_stats_get");
  AllocatorStats stats = unwrap(device)->allocator().stats();
  out->allocated_bytes = stats.allocated_bytes;
  out->reserved_bytes = stats.reserved_bytes;
  out->peak_allocated_bytes = stats.peak_allocated_bytes;
  out->num_allocs = stats.num_allocs;
  out->num_frees = stats.num_frees;
  out->cache_hits = stats.cache_hits;
  out->device_mallocs = stats.device_mallocs;
  out->device_frees = stats.device_frees;
  return JEET_RT_OK;
}

void jeet_rt_memory_reset_peak(jeet_rt_device *device) {
  if (device)
    unwrap(device)->allocator().resetPeak();
}

void jeet_rt_empty_cache(jeet_rt_device *device) {
  if (device)
    unwrap(device)->allocator().emptyCache();
}

void jeet_rt_set_memory_limit(jeet_rt_device *device, uint64_t bytes) {
  if (device)
    unwrap(device)->allocator().setMemoryLimit(bytes);
}

uint64_t jeet_rt_kernels_launched(jeet_rt_device *device) {
  return device ? unwrap(device)->executionStats().kernels_launched : 0;
}

void jeet_rt_reset_kernels_launched(jeet_rt_device *device) {
  if (device)
    unwrap(device)->resetExecutionStats();
}

jeet_rt_status jeet_rt_execution_stats_get(jeet_rt_device *device,
                                           jeet_rt_execution_stats *out) {
  if (!device || !out)
    return nullArgument("jeet_rt_execution_stats_get");
  ExecutionStats stats = unwrap(device)->executionStats();
  out->kernels_launched = stats.kernels_launched;
  out->graph_launches = stats.graph_launches;
  out->h2d_bytes = stats.h2d_bytes;
  out->d2h_bytes = stats.d2h_bytes;
  out->synchronizations = stats.synchronizations;
  return JEET_RT_OK;
}

jeet_rt_status jeet_rt_tensor_create(jeet_rt_device *device,
                                     const int64_t *shape, size_t rank,
                                     jeet_rt_dtype dtype,
                                     jeet_rt_tensor **out) {
  if (!device || (rank && !shape) || !out)
    return nullArgument("jeet_rt_tensor_create");
  return wrapTensor(Tensor::zeros(*unwrap(device), toShape(shape, rank),
                                  static_cast<DType>(dtype)),
                    out);
}

jeet_rt_status jeet_rt_tensor_from_host(jeet_rt_device *device,
                                        const int64_t *shape, size_t rank,
                                        jeet_rt_dtype dtype, const void *data,
                                        size_t bytes, jeet_rt_tensor **out) {
  if (!device || (rank && !shape) || (bytes && !data) || !out)
    return nullArgument("jeet_rt_tensor_from_host");
  return wrapTensor(Tensor::fromHost(*unwrap(device), toShape(shape, rank),
                                     static_cast<DType>(dtype), data, bytes),
                    out);
}

jeet_rt_status jeet_rt_tensor_to_host(const jeet_rt_tensor *tensor, void *dst,
                                      size_t bytes) {
  if (!tensor || (bytes && !dst))
    return nullArgument("jeet_rt_tensor_to_host");
  Status status = tensor->tensor.toHost(dst, bytes);
  return status.ok() ? JEET_RT_OK : fail(status);
}

jeet_rt_status jeet_rt_tensor_to_device(const jeet_rt_tensor *tensor,
                                        jeet_rt_device *device,
                                        jeet_rt_tensor **out) {
  if (!tensor || !device || !out)
    return nullArgument("jeet_rt_tensor_to_device");
  return wrapTensor(tensor->tensor.to(*unwrap(device)), out);
}

jeet_rt_tensor *jeet_rt_tensor_retain(const jeet_rt_tensor *tensor) {
  return tensor ? new jeet_rt_tensor{tensor->tensor} : nullptr;
}

void jeet_rt_tensor_release(jeet_rt_tensor *tensor) { delete tensor; }

size_t jeet_rt_tensor_rank(const jeet_rt_tensor *tensor) {
  return tensor ? tensor->tensor.shape().size() : 0;
}

const int64_t *jeet_rt_tensor_shape(const jeet_rt_tensor *tensor) {
  return tensor ? tensor->tensor.shape().data() : nullptr;
}

jeet_rt_dtype jeet_rt_tensor_dtype(const jeet_rt_tensor *tensor) {
  return static_cast<jeet_rt_dtype>(tensor ? tensor->tensor.dtype()
                                           : DType::F32);
}

size_t jeet_rt_tensor_byte_size(const jeet_rt_tensor *tensor) {
  return tensor ? tensor->tensor.byteSize() : 0;
}

void *jeet_rt_tensor_data(const jeet_rt_tensor *tensor) {
  return tensor ? tensor->tensor.data() : nullptr;
}

jeet_rt_device *jeet_rt_tensor_device(const jeet_rt_tensor *tensor) {
  return tensor ? wrap(tensor->tensor.device()) : nullptr;
}

jeet_rt_status jeet_rt_tensor_load_npy(const char *path, jeet_rt_tensor **out) {
  if (!path || !out)
    return nullArgument("jeet_rt_tensor_load_npy");
  return wrapTensor(loadNpy(path), out);
}

jeet_rt_status jeet_rt_tensor_save_npy(const jeet_rt_tensor *tensor,
                                       const char *path) {
  if (!tensor || !path)
    return nullArgument("jeet_rt_tensor_save_npy");
  Status status = saveNpy(path, tensor->tensor);
  return status.ok() ? JEET_RT_OK : fail(status);
}

jeet_rt_status jeet_rt_tensor_parse(const char *text, jeet_rt_tensor **out) {
  if (!text || !out)
    return nullArgument("jeet_rt_tensor_parse");
  return wrapTensor(parseTensorLiteral(text), out);
}

size_t jeet_rt_tensor_format(const jeet_rt_tensor *tensor, char *buffer,
                             size_t capacity) {
  std::string text = tensor ? formatTensor(tensor->tensor) : "";
  if (buffer && capacity) {
    size_t n = std::min(capacity - 1, text.size());
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return text.size();
}

const jeet_rt_host_symbol *jeet_rt_host_abi_symbols(size_t *count) {
  static_assert(sizeof(jeet_rt_host_symbol) == sizeof(HostSymbol),
                "jeet_rt_host_symbol and HostSymbol differ");
  return reinterpret_cast<const jeet_rt_host_symbol *>(
      getHostABISymbols(count));
}

} // extern "C"
