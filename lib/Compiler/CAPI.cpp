//===- CAPI.cpp - The C API over the compiler -----------------------------===//
//
// Part of the Jeet project.
//
// jeet-c/Compiler.h over jeet::Compiler and jeet::Executable. Tensors and
// devices are reached through the runtime's C API only. Every handle this
// file hands out is recorded while it lives, so a NULL or destroyed handle
// is answered with an error status instead of a crash (a destroyed handle is
// recognised unless its memory was reused by a new handle of the same kind).
//
//===----------------------------------------------------------------------===//

#include "jeet-c/Compiler.h"

#include "jeet/Compiler/Compiler.h"
#include "jeet/Runtime/DType.h"
#include "jeet/Version.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct jeet_status {
  jeet_status_code code;
  std::string message;
};

struct jeet_compile_options {
  jeet::CompileOptions options;
};

struct jeet_compiler {
  jeet::Compiler compiler;
};

struct jeet_executable {
  std::shared_ptr<jeet::Executable> executable;
  std::vector<jeet_rt_dtype> inputDTypes, outputDTypes;
};

namespace {

/// Room for a driver error's message (they name the call and the error).
constexpr size_t kMaxDriverMessage = 4096;

enum class HandleKind { Status, Options, Compiler, Executable };

const char *handleTypeName(HandleKind kind) {
  switch (kind) {
  case HandleKind::Status:
    return "jeet_status";
  case HandleKind::Options:
    return "jeet_compile_options";
  case HandleKind::Compiler:
    return "jeet_compiler";
  case HandleKind::Executable:
    return "jeet_executable";
  }
  return "handle";
}

/// The handles alive, with their kind. Thread-safe; never destroyed, so that
/// handles released during static destruction still find it.
class LiveHandles {
public:
  static LiveHandles &get() {
    static LiveHandles *handles = new LiveHandles();
    return *handles;
  }
  void add(const void *handle, HandleKind kind) {
    std::lock_guard<std::mutex> lock(mutex);
    live[handle] = kind;
  }
  bool contains(const void *handle, HandleKind kind) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = live.find(handle);
    return it != live.end() && it->second == kind;
  }
  /// Forgets `handle`; false when it was not a live handle of `kind`.
  bool remove(const void *handle, HandleKind kind) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = live.find(handle);
    if (it == live.end() || it->second != kind)
      return false;
    live.erase(it);
    return true;
  }

private:
  std::mutex mutex;
  llvm::DenseMap<const void *, HandleKind> live;
};

template <typename T> T *track(T *handle, HandleKind kind) {
  LiveHandles::get().add(handle, kind);
  return handle;
}

jeet_status *makeStatus(jeet_status_code code, std::string message) {
  return track(new jeet_status{code, std::move(message)}, HandleKind::Status);
}

jeet_status *invalidArgument(const char *function, const std::string &what) {
  return makeStatus(JEET_STATUS_INVALID_ARGUMENT,
                    std::string(function) + ": " + what);
}

/// An error status when `handle` is NULL or not a live handle of `kind`.
jeet_status *checkHandle(const char *function, const void *handle,
                         HandleKind kind, const char *argument) {
  if (!handle)
    return invalidArgument(function, std::string(argument) + " is NULL");
  if (!LiveHandles::get().contains(handle, kind))
    return invalidArgument(function, std::string(argument) + " is not a live " +
                                         handleTypeName(kind) +
                                         " (destroyed, or never created)");
  return nullptr;
}

jeet_status *nullOutput(const char *function) {
  return invalidArgument(function, "the output pointer is NULL");
}

/// Destroys a handle of `kind`: an error for NULL or a dead handle.
template <typename T>
jeet_status *destroy(const char *function, T *handle, HandleKind kind,
                     const char *argument) {
  if (jeet_status *status = checkHandle(function, handle, kind, argument))
    return status;
  if (!LiveHandles::get().remove(handle, kind))
    return invalidArgument(function, std::string(argument) +
                                         " was destroyed by another thread");
  delete handle;
  return nullptr;
}

/// The runtime's dtype for a TensorSpec's spelling ("f32", ...).
jeet_rt_dtype toRuntimeDType(const std::string &name) {
  jeet::runtime::StatusOr<jeet::runtime::DType> dtype =
      jeet::runtime::parseDType(name);
  return static_cast<jeet_rt_dtype>(dtype.ok() ? *dtype
                                               : jeet::runtime::DType::F32);
}

/// "2x3xf32" for a runtime tensor, as TensorSpec::str() spells specs.
std::string typeText(const jeet_rt_tensor *tensor) {
  jeet::TensorSpec spec;
  const int64_t *shape = jeet_rt_tensor_shape(tensor);
  spec.shape.assign(shape, shape + jeet_rt_tensor_rank(tensor));
  spec.dtype = jeet::runtime::dtypeName(
      static_cast<jeet::runtime::DType>(jeet_rt_tensor_dtype(tensor)));
  return spec.str();
}

jeet_status *compileWith(const char *function, jeet_compiler *compiler,
                         const char *source, const char *sourceName,
                         const jeet_compile_options *options, bool cached,
                         jeet_executable **out) {
  if (jeet_status *status =
          checkHandle(function, compiler, HandleKind::Compiler, "compiler"))
    return status;
  if (!source)
    return invalidArgument(function, "source is NULL");
  if (options) {
    if (jeet_status *status =
            checkHandle(function, options, HandleKind::Options, "options"))
      return status;
  }
  if (!out)
    return nullOutput(function);
  jeet::CompileOptions compileOptions =
      options ? options->options : jeet::CompileOptions();
  llvm::Expected<std::shared_ptr<jeet::Executable>> compiled =
      cached ? compiler->compiler.compileCached(source, compileOptions)
             : compiler->compiler.compile(
                   source, sourceName ? sourceName : "<graph>", compileOptions);
  if (!compiled)
    return makeStatus(JEET_STATUS_COMPILATION_ERROR,
                      llvm::toString(compiled.takeError()));
  auto *executable = new jeet_executable{std::move(*compiled), {}, {}};
  for (const jeet::TensorSpec &spec : executable->executable->inputs())
    executable->inputDTypes.push_back(toRuntimeDType(spec.dtype));
  for (const jeet::TensorSpec &spec : executable->executable->outputs())
    executable->outputDTypes.push_back(toRuntimeDType(spec.dtype));
  *out = track(executable, HandleKind::Executable);
  return nullptr;
}

jeet_status *getSpec(const char *function, const jeet_executable *executable,
                     size_t index, bool input, jeet_tensor_spec *out) {
  if (jeet_status *status = checkHandle(function, executable,
                                        HandleKind::Executable, "executable"))
    return status;
  if (!out)
    return nullOutput(function);
  const std::vector<jeet::TensorSpec> &specs =
      input ? executable->executable->inputs()
            : executable->executable->outputs();
  if (index >= specs.size())
    return invalidArgument(function, (input ? "input #" : "output #") +
                                         std::to_string(index) +
                                         " does not exist (the graph has " +
                                         std::to_string(specs.size()) + ")");
  out->rank = specs[index].shape.size();
  out->shape = specs[index].shape.data();
  out->dtype =
      input ? executable->inputDTypes[index] : executable->outputDTypes[index];
  return nullptr;
}

/// Writes `get(executable)` to `*out` after checking the handle and `out`:
/// the executable's scalar properties all read this way.
template <typename T, typename Getter>
jeet_status *getProperty(const char *function,
                         const jeet_executable *executable, T *out,
                         Getter get) {
  if (jeet_status *status = checkHandle(function, executable,
                                        HandleKind::Executable, "executable"))
    return status;
  if (!out)
    return nullOutput(function);
  *out = get(*executable->executable);
  return nullptr;
}

/// The op names of kernel `kernel`, or an error status.
jeet_status *getKernel(const char *function, const jeet_executable *executable,
                       size_t kernel, const std::vector<std::string> *&ops) {
  if (jeet_status *status = checkHandle(function, executable,
                                        HandleKind::Executable, "executable"))
    return status;
  const auto &kernels = executable->executable->kernelOps();
  if (kernel >= kernels.size())
    return invalidArgument(function, "kernel #" + std::to_string(kernel) +
                                         " does not exist (the graph has " +
                                         std::to_string(kernels.size()) + ")");
  ops = &kernels[kernel];
  return nullptr;
}

/// Checks the tensors of one run against the executable's signature and
/// returns the device they all live on, or an error status.
class RunArguments {
public:
  explicit RunArguments(const jeet_executable &executable)
      : executable(executable) {}

  jeet_status *check(jeet_rt_tensor *const *tensors, size_t count, bool inputs);
  jeet_status *checkAliasing();
  jeet_rt_device *getDevice() const { return device; }
  std::vector<const void *> inputData;
  std::vector<void *> outputData;

private:
  jeet_status *fail(const std::string &what) {
    return invalidArgument("jeet_executable_run", what);
  }

  const jeet_executable &executable;
  jeet_rt_device *device = nullptr;
};

jeet_status *RunArguments::check(jeet_rt_tensor *const *tensors, size_t count,
                                 bool inputs) {
  const jeet::Executable &exe = *executable.executable;
  const std::vector<jeet::TensorSpec> &specs =
      inputs ? exe.inputs() : exe.outputs();
  const char *what = inputs ? "input" : "output";
  if (count != specs.size())
    return fail("the graph takes " + std::to_string(specs.size()) + " " + what +
                "s, given " + std::to_string(count));
  if (count && !tensors)
    return fail(std::string("the ") + what + " array is NULL");
  bool gpu = exe.options().device == "gpu";
  for (size_t i = 0; i < count; ++i) {
    const jeet_rt_tensor *tensor = tensors[i];
    std::string name = std::string(what) + " #" + std::to_string(i);
    if (!tensor)
      return fail(name + " is NULL");
    std::string type = typeText(tensor);
    if (type != specs[i].str())
      return fail(name + " is " + type + " but the graph takes " +
                  specs[i].str());
    jeet_rt_device *on = jeet_rt_tensor_device(tensor);
    bool onCuda = jeet_rt_device_kind_of(on) == JEET_RT_DEVICE_CUDA;
    if (onCuda != gpu)
      return fail(name + " is on " + jeet_rt_device_name(on) +
                  " but the graph was compiled for the " +
                  exe.options().device);
    if (device && on != device)
      return fail(name + " is on " + jeet_rt_device_name(on) +
                  " but the other tensors are on " +
                  jeet_rt_device_name(device));
    device = on;
    if (inputs)
      inputData.push_back(jeet_rt_tensor_data(tensor));
    else
      outputData.push_back(jeet_rt_tensor_data(tensor));
  }
  return nullptr;
}

jeet_status *RunArguments::checkAliasing() {
  for (size_t i = 0; i < outputData.size(); ++i) {
    for (size_t j = 0; j < inputData.size(); ++j)
      if (outputData[i] == inputData[j])
        return fail("output #" + std::to_string(i) +
                    " shares its buffer with input #" + std::to_string(j));
    for (size_t j = 0; j < i; ++j)
      if (outputData[i] == outputData[j])
        return fail("output #" + std::to_string(i) +
                    " shares its buffer with output #" + std::to_string(j));
  }
  return nullptr;
}

/// Makes `device` the calling thread's current device (the compiled code
/// allocates and launches there) until the scope ends.
class CurrentDeviceScope {
public:
  explicit CurrentDeviceScope(jeet_rt_device *device)
      : previous(jeet_rt_current_device()) {
    if (device)
      jeet_rt_set_current_device(device);
  }
  ~CurrentDeviceScope() { jeet_rt_set_current_device(previous); }

private:
  jeet_rt_device *previous;
};

} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// Status
//===----------------------------------------------------------------------===//

jeet_status_code jeet_status_get_code(const jeet_status *status) {
  if (!status)
    return JEET_STATUS_OK;
  if (!LiveHandles::get().contains(status, HandleKind::Status))
    return JEET_STATUS_INVALID_ARGUMENT;
  return status->code;
}

const char *jeet_status_get_message(const jeet_status *status) {
  if (!status)
    return "";
  if (!LiveHandles::get().contains(status, HandleKind::Status))
    return "jeet_status_get_message: status is not a live jeet_status "
           "(destroyed, or never created)";
  return status->message.c_str();
}

const char *jeet_status_code_name(jeet_status_code code) {
  switch (code) {
  case JEET_STATUS_OK:
    return "OK";
  case JEET_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case JEET_STATUS_COMPILATION_ERROR:
    return "COMPILATION_ERROR";
  case JEET_STATUS_EXECUTION_ERROR:
    return "EXECUTION_ERROR";
  }
  return "UNKNOWN";
}

void jeet_status_destroy(jeet_status *status) {
  if (status && LiveHandles::get().remove(status, HandleKind::Status))
    delete status;
}

const char *jeet_version(void) { return JEET_VERSION_STRING; }

//===----------------------------------------------------------------------===//
// Compile options
//===----------------------------------------------------------------------===//

jeet_status *jeet_compile_options_create(jeet_compile_options **out) {
  if (!out)
    return nullOutput("jeet_compile_options_create");
  *out = track(new jeet_compile_options(), HandleKind::Options);
  return nullptr;
}

jeet_status *jeet_compile_options_destroy(jeet_compile_options *options) {
  return destroy("jeet_compile_options_destroy", options, HandleKind::Options,
                 "options");
}

jeet_status *jeet_compile_options_set_entry(jeet_compile_options *options,
                                            const char *entry) {
  const char *function = "jeet_compile_options_set_entry";
  if (jeet_status *status =
          checkHandle(function, options, HandleKind::Options, "options"))
    return status;
  if (!entry || !*entry)
    return invalidArgument(function, "entry is NULL or empty");
  options->options.entry = entry;
  return nullptr;
}

jeet_status *jeet_compile_options_set_device(jeet_compile_options *options,
                                             const char *device) {
  const char *function = "jeet_compile_options_set_device";
  if (jeet_status *status =
          checkHandle(function, options, HandleKind::Options, "options"))
    return status;
  if (!device)
    return invalidArgument(function, "device is NULL");
  std::string name = device;
  if (name != "cpu" && name != "gpu")
    return invalidArgument(function, "unknown device '" + name +
                                         "' (expected cpu or gpu)");
  options->options.device = name;
  return nullptr;
}

jeet_status *jeet_compile_options_set_fuse(jeet_compile_options *options,
                                           int fuse) {
  if (jeet_status *status =
          checkHandle("jeet_compile_options_set_fuse", options,
                      HandleKind::Options, "options"))
    return status;
  options->options.fuse = fuse != 0;
  return nullptr;
}

jeet_status *
jeet_compile_options_set_max_fusion_ops(jeet_compile_options *options,
                                        int64_t max_ops) {
  const char *function = "jeet_compile_options_set_max_fusion_ops";
  if (jeet_status *status =
          checkHandle(function, options, HandleKind::Options, "options"))
    return status;
  if (max_ops < 1)
    return invalidArgument(function, "the fusion cap must be at least 1, got " +
                                         std::to_string(max_ops));
  options->options.maxFusionOps = max_ops;
  return nullptr;
}

jeet_status *jeet_compile_options_set_parallel(jeet_compile_options *options,
                                               int parallel) {
  if (jeet_status *status =
          checkHandle("jeet_compile_options_set_parallel", options,
                      HandleKind::Options, "options"))
    return status;
  options->options.parallel = parallel != 0;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

jeet_status *jeet_compiler_create(jeet_compiler **out) {
  if (!out)
    return nullOutput("jeet_compiler_create");
  *out = track(new jeet_compiler(), HandleKind::Compiler);
  return nullptr;
}

jeet_status *jeet_compiler_destroy(jeet_compiler *compiler) {
  return destroy("jeet_compiler_destroy", compiler, HandleKind::Compiler,
                 "compiler");
}

jeet_status *jeet_compiler_compile(jeet_compiler *compiler, const char *source,
                                   const char *source_name,
                                   const jeet_compile_options *options,
                                   jeet_executable **out) {
  return compileWith("jeet_compiler_compile", compiler, source, source_name,
                     options, /*cached=*/false, out);
}

jeet_status *jeet_compiler_compile_cached(jeet_compiler *compiler,
                                          const char *source,
                                          const jeet_compile_options *options,
                                          jeet_executable **out) {
  return compileWith("jeet_compiler_compile_cached", compiler, source,
                     /*sourceName=*/nullptr, options, /*cached=*/true, out);
}

jeet_status *jeet_compiler_get_cache_stats(const jeet_compiler *compiler,
                                           jeet_cache_stats *out) {
  const char *function = "jeet_compiler_get_cache_stats";
  if (jeet_status *status =
          checkHandle(function, compiler, HandleKind::Compiler, "compiler"))
    return status;
  if (!out)
    return nullOutput(function);
  jeet::Compiler::CacheStats stats = compiler->compiler.cacheStats();
  out->compilations = stats.compilations;
  out->cache_hits = stats.cacheHits;
  out->entries = stats.entries;
  return nullptr;
}

jeet_status *jeet_compiler_clear_cache(jeet_compiler *compiler) {
  if (jeet_status *status = checkHandle("jeet_compiler_clear_cache", compiler,
                                        HandleKind::Compiler, "compiler"))
    return status;
  compiler->compiler.clearCache();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Executables
//===----------------------------------------------------------------------===//

jeet_status *jeet_executable_destroy(jeet_executable *executable) {
  return destroy("jeet_executable_destroy", executable, HandleKind::Executable,
                 "executable");
}

jeet_status *jeet_executable_get_num_inputs(const jeet_executable *executable,
                                            size_t *out) {
  return getProperty(
      "jeet_executable_get_num_inputs", executable, out,
      [](const jeet::Executable &e) { return e.inputs().size(); });
}

jeet_status *jeet_executable_get_num_outputs(const jeet_executable *executable,
                                             size_t *out) {
  return getProperty(
      "jeet_executable_get_num_outputs", executable, out,
      [](const jeet::Executable &e) { return e.outputs().size(); });
}

jeet_status *jeet_executable_get_input(const jeet_executable *executable,
                                       size_t index, jeet_tensor_spec *out) {
  return getSpec("jeet_executable_get_input", executable, index,
                 /*input=*/true, out);
}

jeet_status *jeet_executable_get_output(const jeet_executable *executable,
                                        size_t index, jeet_tensor_spec *out) {
  return getSpec("jeet_executable_get_output", executable, index,
                 /*input=*/false, out);
}

jeet_status *jeet_executable_get_device(const jeet_executable *executable,
                                        const char **out) {
  return getProperty("jeet_executable_get_device", executable, out,
                     [](const jeet::Executable &e) {
                       return e.options().device == "gpu" ? "gpu" : "cpu";
                     });
}

jeet_status *jeet_executable_get_num_kernels(const jeet_executable *executable,
                                             size_t *out) {
  return getProperty(
      "jeet_executable_get_num_kernels", executable, out,
      [](const jeet::Executable &e) { return e.kernelOps().size(); });
}

jeet_status *
jeet_executable_get_kernel_num_ops(const jeet_executable *executable,
                                   size_t kernel, size_t *out) {
  const char *function = "jeet_executable_get_kernel_num_ops";
  const std::vector<std::string> *ops = nullptr;
  if (jeet_status *status = getKernel(function, executable, kernel, ops))
    return status;
  if (!out)
    return nullOutput(function);
  *out = ops->size();
  return nullptr;
}

jeet_status *jeet_executable_get_kernel_op(const jeet_executable *executable,
                                           size_t kernel, size_t op,
                                           const char **out) {
  const char *function = "jeet_executable_get_kernel_op";
  const std::vector<std::string> *ops = nullptr;
  if (jeet_status *status = getKernel(function, executable, kernel, ops))
    return status;
  if (!out)
    return nullOutput(function);
  if (op >= ops->size())
    return invalidArgument(
        function, "op #" + std::to_string(op) + " of kernel #" +
                      std::to_string(kernel) + " does not exist (it fuses " +
                      std::to_string(ops->size()) + ")");
  *out = (*ops)[op].c_str();
  return nullptr;
}

jeet_status *jeet_executable_run(const jeet_executable *executable,
                                 jeet_rt_tensor *const *inputs,
                                 size_t num_inputs,
                                 jeet_rt_tensor *const *outputs,
                                 size_t num_outputs) {
  if (jeet_status *status = checkHandle("jeet_executable_run", executable,
                                        HandleKind::Executable, "executable"))
    return status;
  RunArguments arguments(*executable);
  if (jeet_status *status = arguments.check(inputs, num_inputs, true))
    return status;
  if (jeet_status *status = arguments.check(outputs, num_outputs, false))
    return status;
  if (jeet_status *status = arguments.checkAliasing())
    return status;

  CurrentDeviceScope scope(arguments.getDevice());
  if (llvm::Error error = executable->executable->run(arguments.inputData,
                                                      arguments.outputData))
    return makeStatus(JEET_STATUS_EXECUTION_ERROR,
                      llvm::toString(std::move(error)));
  jeet_rt_device *device = arguments.getDevice();
  if (device && jeet_rt_device_kind_of(device) == JEET_RT_DEVICE_CUDA &&
      jeet_rt_device_synchronize(device) != JEET_RT_OK) {
    char message[kMaxDriverMessage];
    jeet_rt_take_last_error(message, sizeof(message));
    return makeStatus(JEET_STATUS_EXECUTION_ERROR, message);
  }
  return nullptr;
}

} // extern "C"
