/*===- jeet-c/Runtime.h - C API of the Jeet runtime ---------------*- C -*-===*\
|*                                                                            *|
|* Opaque handles over the C++ runtime, for embedding in other frontends.     *|
|* Functions that can fail return a jeet_rt_status; the message of the last   *|
|* failure on the calling thread is read with jeet_rt_take_last_error().      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef JEET_C_RUNTIME_H
#define JEET_C_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jeet_rt_status {
  JEET_RT_OK = 0,
  JEET_RT_INVALID_ARGUMENT = 1,
  JEET_RT_DEVICE_UNAVAILABLE = 2,
  JEET_RT_OUT_OF_MEMORY = 3,
  JEET_RT_DRIVER_ERROR = 4,
  JEET_RT_IO_ERROR = 5,
  JEET_RT_INTERNAL = 6
} jeet_rt_status;

typedef enum jeet_rt_dtype {
  JEET_RT_F32 = 0,
  JEET_RT_F16 = 1,
  JEET_RT_BF16 = 2,
  JEET_RT_I32 = 3,
  JEET_RT_I64 = 4,
  JEET_RT_I1 = 5
} jeet_rt_dtype;

typedef enum jeet_rt_device_kind {
  JEET_RT_DEVICE_HOST = 0,
  JEET_RT_DEVICE_CUDA = 1
} jeet_rt_device_kind;

/* A device (owned by the runtime; never freed by the caller). */
typedef struct jeet_rt_device jeet_rt_device;
/* A reference to a tensor; release every handle with jeet_rt_tensor_release.
 */
typedef struct jeet_rt_tensor jeet_rt_tensor;

typedef struct jeet_rt_device_info {
  const char *name; /* "host", "cuda:0" */
  jeet_rt_device_kind kind;
  int available;
  const char *reason;      /* why unavailable; "" when available */
  const char *description; /* GPU name, compute capability, driver */
} jeet_rt_device_info;

typedef struct jeet_rt_memory_stats {
  uint64_t allocated_bytes;
  uint64_t reserved_bytes;
  uint64_t peak_allocated_bytes;
  uint64_t num_allocs;
  uint64_t num_frees;
  uint64_t cache_hits;
  uint64_t device_mallocs;
  uint64_t device_frees;
} jeet_rt_memory_stats;

/* What the host asked of a device (Device::executionStats): kernels
 * launched one by one, CUDA graphs launched (each a replayed execution),
 * bytes copied host to device and back, and the times the host waited. */
typedef struct jeet_rt_execution_stats {
  uint64_t kernels_launched;
  uint64_t graph_launches;
  uint64_t h2d_bytes;
  uint64_t d2h_bytes;
  uint64_t synchronizations;
} jeet_rt_execution_stats;

typedef struct jeet_rt_host_symbol {
  const char *name;
  void *address;
} jeet_rt_host_symbol;

/*--- Errors ---------------------------------------------------------------*/

/* Returns the code of the first error recorded on this thread (JEET_RT_OK if
 * none), copies its message (NUL-terminated, truncated to `capacity`) into
 * `message` when non-null, and clears it. */
jeet_rt_status jeet_rt_take_last_error(char *message, size_t capacity);
const char *jeet_rt_status_name(jeet_rt_status status);

/*--- Devices --------------------------------------------------------------*/

/* Lists the devices: writes up to `capacity` entries into `out` (may be null)
 * and returns how many there are. The strings stay valid until the next call
 * on any thread. */
size_t jeet_rt_devices(jeet_rt_device_info *out, size_t capacity);
jeet_rt_device *jeet_rt_host_device(void);
/* Null (and a recorded error naming the reason) when unavailable. */
jeet_rt_device *jeet_rt_cuda_device(int ordinal);
/* Directs CUDA devices opened from now on to another driver library (e.g. the
 * test double libjeet_fake_cuda.so); closes those opened before. */
void jeet_rt_set_cuda_driver_path(const char *path);
const char *jeet_rt_device_name(const jeet_rt_device *device);
jeet_rt_device_kind jeet_rt_device_kind_of(const jeet_rt_device *device);
jeet_rt_status jeet_rt_device_synchronize(jeet_rt_device *device);
/* The calling thread's current device (the host device by default). */
jeet_rt_device *jeet_rt_current_device(void);
void jeet_rt_set_current_device(jeet_rt_device *device);

/*--- Memory ---------------------------------------------------------------*/

jeet_rt_status jeet_rt_memory_stats_get(jeet_rt_device *device,
                                        jeet_rt_memory_stats *out);
void jeet_rt_memory_reset_peak(jeet_rt_device *device);
void jeet_rt_empty_cache(jeet_rt_device *device);
/* 0: no limit. */
void jeet_rt_set_memory_limit(jeet_rt_device *device, uint64_t bytes);
uint64_t jeet_rt_kernels_launched(jeet_rt_device *device);
/* Resets every execution statistic, kernels_launched included. */
void jeet_rt_reset_kernels_launched(jeet_rt_device *device);
jeet_rt_status jeet_rt_execution_stats_get(jeet_rt_device *device,
                                           jeet_rt_execution_stats *out);

/*--- Tensors --------------------------------------------------------------*/

/* A zero-filled tensor. */
jeet_rt_status jeet_rt_tensor_create(jeet_rt_device *device,
                                     const int64_t *shape, size_t rank,
                                     jeet_rt_dtype dtype, jeet_rt_tensor **out);
/* Copies `bytes` bytes of C-contiguous host data (must match the shape). */
jeet_rt_status jeet_rt_tensor_from_host(jeet_rt_device *device,
                                        const int64_t *shape, size_t rank,
                                        jeet_rt_dtype dtype, const void *data,
                                        size_t bytes, jeet_rt_tensor **out);
jeet_rt_status jeet_rt_tensor_to_host(const jeet_rt_tensor *tensor, void *dst,
                                      size_t bytes);
/* A copy of the tensor on another device. */
jeet_rt_status jeet_rt_tensor_to_device(const jeet_rt_tensor *tensor,
                                        jeet_rt_device *device,
                                        jeet_rt_tensor **out);
/* A new handle to the same tensor (shares the buffer). */
jeet_rt_tensor *jeet_rt_tensor_retain(const jeet_rt_tensor *tensor);
void jeet_rt_tensor_release(jeet_rt_tensor *tensor);
size_t jeet_rt_tensor_rank(const jeet_rt_tensor *tensor);
const int64_t *jeet_rt_tensor_shape(const jeet_rt_tensor *tensor);
jeet_rt_dtype jeet_rt_tensor_dtype(const jeet_rt_tensor *tensor);
size_t jeet_rt_tensor_byte_size(const jeet_rt_tensor *tensor);
/* The device address of the data (host address for host tensors). */
void *jeet_rt_tensor_data(const jeet_rt_tensor *tensor);
jeet_rt_device *jeet_rt_tensor_device(const jeet_rt_tensor *tensor);

jeet_rt_status jeet_rt_tensor_load_npy(const char *path, jeet_rt_tensor **out);
jeet_rt_status jeet_rt_tensor_save_npy(const jeet_rt_tensor *tensor,
                                       const char *path);
/* Parses "2x3xf32=1,2,3,4,5,6" into a host tensor. */
jeet_rt_status jeet_rt_tensor_parse(const char *text, jeet_rt_tensor **out);
/* Prints "2x3xf32=[[1 2 3][4 5 6]]" into `buffer` (truncated, NUL-terminated)
 * and returns the full length. */
size_t jeet_rt_tensor_format(const jeet_rt_tensor *tensor, char *buffer,
                             size_t capacity);

/*--- Host ABI -------------------------------------------------------------*/

/* The mgpu* and _mlir_memref_to_llvm_* functions, for JIT registration. */
const jeet_rt_host_symbol *jeet_rt_host_abi_symbols(size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* JEET_C_RUNTIME_H */
