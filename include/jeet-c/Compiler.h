/*===- jeet-c/Compiler.h - C API of the Jeet compiler -------------*- C -*-===*\
|*                                                                            *|
|* Compile jeet graphs (MLIR text) and run them on runtime tensors, from C or *|
|* any language with a C FFI. Opaque handles with explicit destroy, in the    *|
|* style of MLIR's C API; tensors and devices are the runtime's               *|
|* (jeet-c/Runtime.h).                                                        *|
|*                                                                            *|
|* Errors: every function that can fail returns a jeet_status, NULL on        *|
|* success. A non-NULL status carries a code and a message and is the         *|
|* caller's to destroy with jeet_status_destroy. A NULL or destroyed handle   *|
|* is reported as JEET_STATUS_INVALID_ARGUMENT, never a crash.                *|
|*                                                                            *|
|* Threads: a compiler may be used from several threads at once (compilation *|
|* is serialised inside, as in the C++ API); an executable may run on        *|
|* several threads at once. Destroying a handle while another thread uses it *|
|* is the caller's error.                                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef JEET_C_COMPILER_H
#define JEET_C_COMPILER_H

#include "jeet-c/Runtime.h"
#include "jeet/Version.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*--- Status ---------------------------------------------------------------*/

typedef enum jeet_status_code {
  JEET_STATUS_OK = 0,
  /* A NULL or destroyed handle, a NULL pointer, a count, shape, dtype or
   * device that does not match the executable. */
  JEET_STATUS_INVALID_ARGUMENT = 1,
  /* The graph text does not parse or verify, or a pass failed: the message
   * holds the MLIR diagnostics with `source_name:line:col`. */
  JEET_STATUS_COMPILATION_ERROR = 2,
  /* The compiled graph failed while running (out of memory, driver error). */
  JEET_STATUS_EXECUTION_ERROR = 3
} jeet_status_code;

/* The result of a call that failed; NULL is success. */
typedef struct jeet_status jeet_status;

/* JEET_STATUS_OK for NULL. */
jeet_status_code jeet_status_get_code(const jeet_status *status);
/* "" for NULL; the text stays valid until the status is destroyed. */
const char *jeet_status_get_message(const jeet_status *status);
/* "OK", "INVALID_ARGUMENT", "COMPILATION_ERROR", "EXECUTION_ERROR". */
const char *jeet_status_code_name(jeet_status_code code);
/* Ignores NULL and statuses already destroyed. */
void jeet_status_destroy(jeet_status *status);

/* The version of the library (JEET_VERSION_STRING when it was built); compare
 * with the JEET_VERSION_STRING of the headers compiled against. */
const char *jeet_version(void);

/*--- Compile options ------------------------------------------------------*/

/* How to compile a graph (jeet::CompileOptions). Every option is part of the
 * compiled-graph cache key. */
typedef struct jeet_compile_options jeet_compile_options;

/* Defaults: entry "main", device "cpu", fusion on, the default fusion cap,
 * parallel CPU loops. */
jeet_status *jeet_compile_options_create(jeet_compile_options **out);
jeet_status *jeet_compile_options_destroy(jeet_compile_options *options);
/* The function to compile and run. */
jeet_status *jeet_compile_options_set_entry(jeet_compile_options *options,
                                            const char *entry);
/* "cpu" or "gpu". */
jeet_status *jeet_compile_options_set_device(jeet_compile_options *options,
                                             const char *device);
/* Nonzero: fuse ops into kernels; zero: one kernel per op. */
jeet_status *jeet_compile_options_set_fuse(jeet_compile_options *options,
                                           int fuse);
/* The largest number of ops in one fusion group (at least 1). */
jeet_status *
jeet_compile_options_set_max_fusion_ops(jeet_compile_options *options,
                                        int64_t max_ops);
/* Nonzero: run the outer loops of each CPU kernel on all cores. */
jeet_status *jeet_compile_options_set_parallel(jeet_compile_options *options,
                                               int parallel);

/*--- Compiler -------------------------------------------------------------*/

/* Owns an MLIR context and a cache of compiled graphs. */
typedef struct jeet_compiler jeet_compiler;
/* A compiled graph. It stays valid after its compiler is destroyed. */
typedef struct jeet_executable jeet_executable;

typedef struct jeet_cache_stats {
  int64_t compilations; /* graphs compiled (cache misses and uncached) */
  int64_t cache_hits;   /* jeet_compiler_compile_cached calls served */
  int64_t entries;      /* executables held by the cache */
} jeet_cache_stats;

jeet_status *jeet_compiler_create(jeet_compiler **out);
jeet_status *jeet_compiler_destroy(jeet_compiler *compiler);

/* Compiles `source` (NUL-terminated MLIR text: a module holding the entry
 * function, its body jeet ops). `source_name` names the text in diagnostics
 * (NULL: "<graph>"); `options` NULL: the defaults. */
jeet_status *jeet_compiler_compile(jeet_compiler *compiler, const char *source,
                                   const char *source_name,
                                   const jeet_compile_options *options,
                                   jeet_executable **out);
/* The same through the compiler's cache: equal text and options give the
 * same compiled graph without compiling again. */
jeet_status *jeet_compiler_compile_cached(jeet_compiler *compiler,
                                          const char *source,
                                          const jeet_compile_options *options,
                                          jeet_executable **out);
jeet_status *jeet_compiler_get_cache_stats(const jeet_compiler *compiler,
                                           jeet_cache_stats *out);
jeet_status *jeet_compiler_clear_cache(jeet_compiler *compiler);

/*--- Executables ----------------------------------------------------------*/

/* The static type of a graph argument or result. `shape` points into the
 * executable and stays valid while it lives. */
typedef struct jeet_tensor_spec {
  size_t rank;
  const int64_t *shape;
  jeet_rt_dtype dtype;
} jeet_tensor_spec;

jeet_status *jeet_executable_destroy(jeet_executable *executable);
jeet_status *jeet_executable_get_num_inputs(const jeet_executable *executable,
                                            size_t *out);
jeet_status *jeet_executable_get_num_outputs(const jeet_executable *executable,
                                             size_t *out);
jeet_status *jeet_executable_get_input(const jeet_executable *executable,
                                       size_t index, jeet_tensor_spec *out);
jeet_status *jeet_executable_get_output(const jeet_executable *executable,
                                        size_t index, jeet_tensor_spec *out);
/* "cpu" or "gpu" (static storage). */
jeet_status *jeet_executable_get_device(const jeet_executable *executable,
                                        const char **out);
/* The kernels one run launches (one per fusion group). */
jeet_status *jeet_executable_get_num_kernels(const jeet_executable *executable,
                                             size_t *out);
/* The number of jeet ops kernel `kernel` fuses. */
jeet_status *
jeet_executable_get_kernel_num_ops(const jeet_executable *executable,
                                   size_t kernel, size_t *out);
/* The name of op `op` of kernel `kernel` ("jeet.matmul"); the text stays
 * valid while the executable lives. */
jeet_status *jeet_executable_get_kernel_op(const jeet_executable *executable,
                                           size_t kernel, size_t op,
                                           const char **out);

/* Runs the graph: reads `inputs` and writes `outputs`, tensors the caller
 * created (jeet-c/Runtime.h) with the shapes and dtypes of the executable's
 * inputs and outputs, all on one device: the host for a "cpu" executable, a
 * CUDA device for a "gpu" one. Outputs may not share a buffer with an input.
 * Returns when the outputs are written (a GPU run is synchronised). Output
 * tensors may be reused across runs. */
jeet_status *jeet_executable_run(const jeet_executable *executable,
                                 jeet_rt_tensor *const *inputs,
                                 size_t num_inputs,
                                 jeet_rt_tensor *const *outputs,
                                 size_t num_outputs);

#ifdef __cplusplus
}
#endif

#endif /* JEET_C_COMPILER_H */
