//===- JeetModule.cpp - The _jeet Python extension ------------------------===//
//
// Part of the Jeet project.
//
// nanobind bindings over the C++ API that every frontend embeds: Graph (build
// a graph op by op), Compiler/Executable (compile through the cache, run),
// and the runtime (host tensors, devices, allocator statistics). The
// user-facing API is the pure-Python package around it (python/jeet/).
//
// Errors are raised as the exception classes of jeet.errors (imported when
// the module loads), so that the Python layer and the bindings agree.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Compiler.h"
#include "jeet/Compiler/Graph.h"
#include "jeet/Dialect/Jeet/IR/ConvolutionForms.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/DType.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Status.h"
#include "jeet/Runtime/Tensor.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "Bindings.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace nb = nanobind;
using namespace nb::literals;
using jeet::runtime::DType;

namespace jeet_python {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

ErrorClasses &errors() {
  static ErrorClasses *classes = nullptr;
  if (!classes) {
    nb::module_ module = nb::module_::import_("jeet.errors");
    classes = new ErrorClasses{
        module.attr("JeetError"), module.attr("ShapeError"),
        module.attr("DeviceUnavailableError"), module.attr("OutOfMemoryError"),
        module.attr("CompilationError")};
  }
  return *classes;
}

[[noreturn]] void raise(const nb::object &cls, const std::string &message) {
  PyErr_SetString(cls.ptr(), message.c_str());
  throw nb::python_error();
}

[[noreturn]] void raiseStatus(const jeet::runtime::Status &status) {
  using jeet::runtime::StatusCode;
  switch (status.code()) {
  case StatusCode::DeviceUnavailable:
    raise(errors().device, status.message());
  case StatusCode::OutOfMemory:
    raise(errors().oom, status.message());
  default:
    raise(errors().base, status.toString());
  }
}

std::string takeMessage(llvm::Error error) {
  return llvm::toString(std::move(error));
}

[[noreturn]] void raiseRunError(const std::string &message) {
  if (llvm::StringRef(message).starts_with("OutOfMemory"))
    raise(errors().oom, message);
  if (llvm::StringRef(message).starts_with("DeviceUnavailable"))
    raise(errors().device, message);
  raise(errors().base, message);
}

//===----------------------------------------------------------------------===//
// Runtime tensors and devices
//===----------------------------------------------------------------------===//

DType parseDType(const std::string &name) {
  auto dtype = jeet::runtime::parseDType(name);
  if (!dtype.ok())
    raise(errors().base, "unknown dtype '" + name +
                             "' (expected float32/f32, float16/f16, "
                             "bfloat16/bf16, int32/i32, int64/i64 or "
                             "bool/i1)");
  return *dtype;
}

jeet::runtime::Device &lookupDevice(const std::string &name) {
  if (name == "cpu" || name == "host")
    return jeet::runtime::getHostDevice();
  int ordinal = 0;
  llvm::StringRef rest = name;
  if (rest.consume_front("cuda:"))
    ordinal = std::atoi(rest.str().c_str());
  else if (name != "gpu" && name != "cuda")
    raise(errors().base, "unknown device '" + name +
                             "' (expected 'cpu', 'gpu', 'cuda:N' or 'auto')");
  jeet::runtime::CudaDevice *device =
      check(jeet::runtime::getCudaDevice(ordinal));
  return *device;
}

nb::tuple shapeTuple(const std::vector<int64_t> &shape) {
  nb::list list;
  for (int64_t d : shape)
    list.append(d);
  return nb::tuple(list);
}

} // namespace jeet_python

using namespace jeet_python;

namespace {

nb::dlpack::dtype dlpackDType(DType dtype) {
  using Code = nb::dlpack::dtype_code;
  switch (dtype) {
  case DType::F32:
    return {static_cast<uint8_t>(Code::Float), 32, 1};
  case DType::F16:
    return {static_cast<uint8_t>(Code::Float), 16, 1};
  case DType::BF16: // No NumPy dtype: the raw bits.
    return {static_cast<uint8_t>(Code::UInt), 16, 1};
  case DType::I32:
    return {static_cast<uint8_t>(Code::Int), 32, 1};
  case DType::I64:
    return {static_cast<uint8_t>(Code::Int), 64, 1};
  case DType::I1:
    return {static_cast<uint8_t>(Code::Bool), 8, 1};
  }
  return {static_cast<uint8_t>(Code::UInt), 8, 1};
}

using HostArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

/// A host tensor from C-contiguous array data (already of the right element
/// size; bf16 is passed as its uint16 bits).
jeet::runtime::Tensor tensorFromArray(HostArray array, const std::string &dtype,
                                      const std::string &device) {
  DType type = parseDType(dtype);
  std::vector<int64_t> shape;
  for (size_t i = 0; i < array.ndim(); ++i)
    shape.push_back(static_cast<int64_t>(array.shape(i)));
  size_t bytes = array.nbytes();
  size_t expected = jeet::runtime::dtypeSize(type) *
                    jeet::runtime::Tensor::countElements(shape);
  if (bytes != expected)
    raise(errors().base, "array of " + std::to_string(bytes) +
                             " bytes does not hold a " + dtype + " tensor of " +
                             std::to_string(expected) + " bytes");
  jeet::runtime::Device &dev = lookupDevice(device);
  return check(
      jeet::runtime::Tensor::fromHost(dev, shape, type, array.data(), bytes));
}

/// Copies at least this large go to memory advised as huge pages.
constexpr size_t kHugePageCopyBytes = size_t(4) << 20;
/// The huge pages' size (x86-64 and AArch64 with 4 KiB base pages).
constexpr size_t kHugePageBytes = size_t(2) << 20;

/// Memory for a host copy of `bytes` bytes, not initialised (the copy
/// writes every byte), freed with std::free. A large one is aligned to and
/// advised as huge pages, as NumPy does for its own arrays: in 4 KiB pages
/// the kernel zeroes each page at its first write, one fault at a time (a
/// 64 MiB tensor's numpy() took 41 ms, against 6.7 ms for NumPy's own copy
/// of it, on the 2-core Zen 4 host).
void *allocateHostCopy(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= kHugePageCopyBytes) {
    size_t rounded =
        (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    if (void *memory = std::aligned_alloc(kHugePageBytes, rounded)) {
      // Only advice: without huge pages the copy is slower, not wrong.
      (void)madvise(memory, rounded, MADV_HUGEPAGE);
      return memory;
    }
  }
#endif
  return std::malloc(std::max<size_t>(bytes, 1));
}

/// The tensor's contents as a new NumPy array (a copy; bf16 as uint16 bits).
nb::ndarray<nb::numpy> tensorToNumpy(const jeet::runtime::Tensor &tensor) {
  if (!tensor.defined())
    raise(errors().base, "the tensor holds no data");
  size_t size = tensor.byteSize();
  void *bytes = allocateHostCopy(size);
  if (!bytes)
    raise(errors().base, "out of host memory for a copy of " +
                             std::to_string(size) + " bytes");
  jeet::runtime::Status status = [&] {
    // A GPU tensor waits for the work that computes it.
    nb::gil_scoped_release release;
    return tensor.toHost(bytes, size);
  }();
  if (!status.ok()) {
    std::free(bytes);
    raiseStatus(status);
  }
  nb::capsule owner(bytes, [](void *p) noexcept { std::free(p); });
  std::vector<size_t> shape(tensor.shape().begin(), tensor.shape().end());
  return nb::ndarray<nb::numpy>(bytes, shape.size(), shape.data(), owner,
                                nullptr, dlpackDType(tensor.dtype()));
}

nb::dict statsDict(jeet::runtime::Device &device) {
  nb::dict dict;
  for (auto [name, value] : device.allocator().stats().items())
    dict[name] = value;
  for (auto [name, value] : device.executionStats().items())
    dict[name] = value;
  dict["memory_limit"] = device.allocator().memoryLimit();
  dict["device"] = device.name();
  return dict;
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

/// Attributes from a dict: a list/tuple of ints is an i64 array, a bool a
/// bool, an int an i64, a str a string.
std::vector<jeet::GraphAttr> parseAttrs(const nb::dict &attrs) {
  std::vector<jeet::GraphAttr> result;
  for (auto [key, value] : attrs) {
    std::string name = nb::cast<std::string>(key);
    if (nb::isinstance<nb::bool_>(value)) {
      result.push_back(jeet::GraphAttr::boolean(name, nb::cast<bool>(value)));
    } else if (nb::isinstance<nb::int_>(value)) {
      result.push_back(jeet::GraphAttr::i64(name, nb::cast<int64_t>(value)));
    } else if (nb::isinstance<nb::list>(value) ||
               nb::isinstance<nb::tuple>(value)) {
      std::vector<int64_t> ints;
      for (nb::handle item : value)
        ints.push_back(nb::cast<int64_t>(item));
      result.push_back(jeet::GraphAttr::i64Array(name, std::move(ints)));
    } else if (nb::isinstance<nb::str>(value)) {
      result.push_back(
          jeet::GraphAttr::string(name, nb::cast<std::string>(value)));
    } else {
      raise(errors().base,
            "attribute '" + name +
                "' must be a bool, an int, a list of ints or a string");
    }
  }
  return result;
}

std::optional<jeet::TensorSpec>
resultSpec(const std::optional<std::vector<int64_t>> &shape,
           const std::optional<std::string> &dtype) {
  if (!shape && !dtype)
    return std::nullopt;
  if (!shape || !dtype)
    raise(errors().base, "give both result_shape and result_dtype, or neither");
  auto name = jeet::canonicalDType(*dtype);
  if (!name)
    raise(errors().base, takeMessage(name.takeError()));
  return jeet::TensorSpec{*shape, *name};
}

nb::tuple specTuple(const jeet::TensorSpec &spec) {
  return nb::make_tuple(shapeTuple(spec.shape), spec.dtype);
}

/// Builds a one-op graph on inputs of the given types and returns the result
/// type, or raises ShapeError with the verifier's diagnostic.
nb::tuple inferType(
    const std::string &op,
    const std::vector<std::pair<std::vector<int64_t>, std::string>> &operands,
    const nb::dict &attrs,
    const std::optional<std::vector<int64_t>> &resultShape,
    const std::optional<std::string> &resultDType) {
  jeet::Graph graph;
  std::vector<jeet::Graph::ValueId> ids;
  for (const auto &[shape, dtype] : operands) {
    auto id = graph.addInput(shape, dtype);
    if (!id)
      raise(errors().base, takeMessage(id.takeError()));
    ids.push_back(*id);
  }
  auto id = graph.addOp(op, ids, parseAttrs(attrs),
                        resultSpec(resultShape, resultDType));
  if (!id)
    raise(errors().shape, takeMessage(id.takeError()));
  auto spec = graph.type(*id);
  if (!spec)
    raise(errors().base, takeMessage(spec.takeError()));
  return specTuple(*spec);
}

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

std::shared_ptr<jeet::Executable>
compile(const std::string &text, const std::string &device, bool fuse,
        int64_t maxFusionOps, bool parallel, bool keepIR, bool cached,
        const std::string &gpuTarget, bool cudaGraphs, bool vectorize) {
  jeet::CompileOptions options;
  options.vectorize = vectorize;
  options.device = device;
  options.gpuTarget = gpuTarget;
  options.cudaGraphs = cudaGraphs;
  options.fuse = fuse;
  options.maxFusionOps = maxFusionOps;
  options.parallel = parallel;
  options.keepIR = keepIR;
  llvm::Expected<std::shared_ptr<jeet::Executable>> executable =
      [&]() -> llvm::Expected<std::shared_ptr<jeet::Executable>> {
    nb::gil_scoped_release release;
    jeet::Compiler &compiler = jeet::Compiler::global();
    if (cached)
      return compiler.compileCached(text, options);
    return compiler.compile(text, "<graph>", options);
  }();
  if (!executable)
    raise(errors().compilation, takeMessage(executable.takeError()));
  return *executable;
}

/// Runs on runtime tensors that live on the executable's device; returns
/// new output tensors on it. On a GPU the work is queued on the device's
/// stream and the call returns without waiting. The tensors are used where
/// they are (no copies of them): this is the path of every execution.
std::vector<jeet::runtime::Tensor>
runExecutable(const jeet::Executable &executable, nb::sequence inputs) {
  const auto &specs = executable.inputs();
  size_t count = nb::len(inputs);
  if (count != specs.size())
    raise(errors().base, "the graph takes " + std::to_string(specs.size()) +
                             " inputs, given " + std::to_string(count));
  std::vector<const jeet::runtime::Tensor *> tensors;
  // The Python objects that hold the tensors stay referenced while the GIL
  // is released.
  std::vector<nb::object> holders;
  tensors.reserve(count);
  holders.reserve(count);
  for (nb::handle item : inputs) {
    const auto &tensor = nb::cast<const jeet::runtime::Tensor &>(item);
    size_t i = tensors.size();
    if (!tensor.defined())
      raise(errors().base, "input #" + std::to_string(i) + " holds no data");
    if (tensor.shape() != specs[i].shape ||
        jeet::runtime::dtypeName(tensor.dtype()) != specs[i].dtype)
      raise(errors().shape, "input #" + std::to_string(i) + " is " +
                                tensor.typeString() + " but the graph takes " +
                                specs[i].str());
    tensors.push_back(&tensor);
    holders.push_back(nb::borrow(item));
  }
  if (executable.options().device == "gpu") {
    jeet::runtime::CudaDevice *device =
        check<jeet::runtime::CudaDevice *>(jeet::runtime::getCudaDevice());
    jeet::runtime::setCurrentDevice(device);
  }
  llvm::Expected<std::vector<jeet::runtime::Tensor>> outputs = [&] {
    nb::gil_scoped_release release;
    return executable.run(
        llvm::ArrayRef<const jeet::runtime::Tensor *>(tensors));
  }();
  if (!outputs)
    raiseRunError(takeMessage(outputs.takeError()));
  return std::move(*outputs);
}

nb::dict memoryPlanDict(const jeet::MemoryPlan &plan) {
  nb::dict dict;
  dict["arena_bytes"] = plan.arenaBytes;
  dict["intermediate_bytes"] = plan.intermediateBytes;
  dict["live_bytes_bound"] = plan.liveBytesBound;
  dict["buffers"] = plan.buffers;
  return dict;
}

//===----------------------------------------------------------------------===//
// Bindings, one function per area
//===----------------------------------------------------------------------===//

void bindRuntimeTensor(nb::module_ &m) {
  nb::class_<jeet::runtime::Tensor> tensor(m, "RuntimeTensor");
  tensor
      .def_static("from_array", &tensorFromArray, "array"_a, "dtype"_a,
                  "device"_a = "cpu",
                  "Copies C-contiguous array data into a new tensor.")
      .def_static(
          "zeros",
          [](std::vector<int64_t> shape, const std::string &dtype,
             const std::string &device) {
            return check(jeet::runtime::Tensor::zeros(
                lookupDevice(device), shape, parseDType(dtype)));
          },
          "shape"_a, "dtype"_a, "device"_a = "cpu")
      .def_prop_ro(
          "shape",
          [](const jeet::runtime::Tensor &t) { return shapeTuple(t.shape()); })
      .def_prop_ro("dtype",
                   [](const jeet::runtime::Tensor &t) {
                     return std::string(jeet::runtime::dtypeName(t.dtype()));
                   })
      .def_prop_ro("nbytes", &jeet::runtime::Tensor::byteSize)
      .def_prop_ro("device",
                   [](const jeet::runtime::Tensor &t) {
                     if (!t.defined())
                       return std::string();
                     return t.buffer()->deviceName() +
                            (t.buffer()->deviceAlive() ? "" : " (closed)");
                   })
      .def(
          "to",
          [](const jeet::runtime::Tensor &t, const std::string &device) {
            jeet::runtime::Device &target = lookupDevice(device);
            nb::gil_scoped_release release;
            return check(t.to(target));
          },
          "device"_a,
          "A copy on `device` ('cpu', 'cuda:0'); from a GPU it waits for "
          "the work that computes the tensor.")
      .def_prop_ro("data_ptr",
                   [](const jeet::runtime::Tensor &t) {
                     return reinterpret_cast<uintptr_t>(t.data());
                   })
      .def("numpy", &tensorToNumpy,
           "A copy of the contents as a NumPy array (bf16: uint16 bits).")
      .def("__repr__", [](const jeet::runtime::Tensor &t) {
        return "<RuntimeTensor " + t.typeString() + " on " +
               (t.defined() ? t.buffer()->deviceName() : std::string("?")) +
               ">";
      });
  bindDLPack(m, tensor);
}

/// Graph.add_op: raises ShapeError with the verifier's diagnostic.
int64_t addOp(jeet::Graph &g, const std::string &op,
              std::vector<int64_t> operands, const nb::dict &attrs,
              std::optional<std::vector<int64_t>> resultShape,
              std::optional<std::string> resultDType) {
  auto id = g.addOp(op, operands, parseAttrs(attrs),
                    resultSpec(resultShape, resultDType));
  if (!id)
    raise(errors().shape, takeMessage(id.takeError()));
  return *id;
}

void bindGraph(nb::module_ &m) {
  nb::class_<jeet::Graph>(m, "Graph")
      .def(nb::init<>())
      .def(
          "add_input",
          [](jeet::Graph &g, std::vector<int64_t> shape,
             const std::string &dtype) {
            auto id = g.addInput(shape, dtype);
            if (!id)
              raise(errors().base, takeMessage(id.takeError()));
            return *id;
          },
          "shape"_a, "dtype"_a)
      .def(
          "add_constant",
          [](jeet::Graph &g, HostArray array, const std::string &dtype) {
            std::vector<int64_t> shape;
            for (size_t i = 0; i < array.ndim(); ++i)
              shape.push_back(static_cast<int64_t>(array.shape(i)));
            auto id = g.addConstant(shape, dtype, array.data(), array.nbytes());
            if (!id)
              raise(errors().base, takeMessage(id.takeError()));
            return *id;
          },
          "array"_a, "dtype"_a,
          "Adds a jeet.constant from C-contiguous array data (bf16 as uint16 "
          "bits).")
      .def("add_op", &addOp, "op"_a, "operands"_a, "attrs"_a = nb::dict(),
           "result_shape"_a = nb::none(), "result_dtype"_a = nb::none())
      .def(
          "mark_output",
          [](jeet::Graph &g, int64_t id) {
            if (llvm::Error error = g.markOutput(id))
              raise(errors().base, takeMessage(std::move(error)));
          },
          "value"_a)
      .def(
          "type",
          [](const jeet::Graph &g, int64_t id) {
            auto spec = g.type(id);
            if (!spec)
              raise(errors().base, takeMessage(spec.takeError()));
            return specTuple(*spec);
          },
          "value"_a)
      .def_prop_ro("num_values", &jeet::Graph::numValues)
      .def_prop_ro("num_inputs", &jeet::Graph::numInputs)
      .def_prop_ro("num_outputs", &jeet::Graph::numOutputs)
      .def("print", [](const jeet::Graph &g) {
        auto text = g.print();
        if (!text)
          raise(errors().compilation, takeMessage(text.takeError()));
        return *text;
      });

  m.def("conv_computed_transposed", &jeet::isComputedTransposed, "positions"_a,
        "out_channels"_a,
        "Whether jeet.conv2d's decomposition computes a convolution without "
        "groups, its filter a constant, transposed: (N, positions, "
        "C * KH * KW) x filter^T.");

  m.def("infer_type", &inferType, "op"_a, "operands"_a, "attrs"_a = nb::dict(),
        "result_shape"_a = nb::none(), "result_dtype"_a = nb::none(),
        "The (shape, dtype) of the op applied to operands of these types; "
        "raises ShapeError with the verifier's diagnostic.");
}

nb::list specList(const std::vector<jeet::TensorSpec> &specs) {
  nb::list list;
  for (const auto &spec : specs)
    list.append(specTuple(spec));
  return list;
}

void bindCompiler(nb::module_ &m) {
  nb::class_<jeet::Executable>(m, "Executable")
      .def_prop_ro(
          "inputs",
          [](const jeet::Executable &e) { return specList(e.inputs()); })
      .def_prop_ro(
          "outputs",
          [](const jeet::Executable &e) { return specList(e.outputs()); })
      .def_prop_ro("device",
                   [](const jeet::Executable &e) { return e.options().device; })
      .def_prop_ro(
          "gpu_target",
          [](const jeet::Executable &e) { return e.options().gpuTarget; })
      .def_prop_ro("options",
                   [](const jeet::Executable &e) { return e.options().str(); })
      .def_prop_ro("num_kernels", &jeet::Executable::numKernels)
      .def_prop_ro("kernel_ops", &jeet::Executable::kernelOps)
      .def_prop_ro("peak_intermediate_bytes",
                   &jeet::Executable::peakIntermediateBytes)
      .def_prop_ro(
          "memory_plan",
          [](const jeet::Executable &e) {
            return memoryPlanDict(e.memoryPlan());
          },
          "The arena of intermediates: arena_bytes, intermediate_bytes, "
          "live_bytes_bound, buffers.")
      .def_prop_ro("cuda_graphs", &jeet::Executable::cudaGraphStatus,
                   "'on', 'off: <why>' or 'not run yet'.")
      .def_prop_ro("stages", &jeet::Executable::stageNames,
                   "The stages of the pipeline that compiled it, in order.")
      .def(
          "ir",
          [](const jeet::Executable &e, const std::string &stage) {
            return e.ir(stage);
          },
          "stage"_a)
      .def("run", &runExecutable, "inputs"_a,
           "Runs on tensors of the executable's device; returns new output "
           "tensors there (on a GPU without waiting for them).");

  m.def("compile", &compile, "text"_a, "device"_a = "cpu", "fuse"_a = true,
        "max_fusion_ops"_a = jeet::kDefaultMaxFusionOps, "parallel"_a = true,
        "keep_ir"_a = false, "cached"_a = true, "gpu_target"_a = "auto",
        "cuda_graphs"_a = true, "vectorize"_a = true,
        "Compiles MLIR text (through the process-wide cache by default); "
        "raises CompilationError with the MLIR diagnostics. gpu_target: "
        "'ptx', 'emulator' or 'auto' (the emulator when the CUDA device is "
        "the driver emulator). cuda_graphs: replay GPU executions as a CUDA "
        "graph from the second one on. vectorize: false compiles a CPU "
        "graph that runs once to less code, faster.");
  m.def("cache_stats", [] {
    jeet::Compiler::CacheStats stats = jeet::Compiler::global().cacheStats();
    nb::dict dict;
    dict["compilations"] = stats.compilations;
    dict["cache_hits"] = stats.cacheHits;
    dict["disk_hits"] = stats.diskHits;
    dict["entries"] = stats.entries;
    return dict;
  });
  m.def("clear_cache", [] { jeet::Compiler::global().clearCache(); });
}

nb::list listDevices() {
  nb::list list;
  for (const jeet::runtime::DeviceInfo &info : jeet::runtime::listDevices()) {
    nb::dict dict;
    dict["name"] = info.name;
    dict["kind"] = std::string(jeet::runtime::deviceKindName(info.kind));
    dict["available"] = info.available;
    dict["reason"] = info.reason;
    dict["description"] = info.description;
    dict["emulated"] = info.emulated;
    list.append(dict);
  }
  return list;
}

void bindDevices(nb::module_ &m) {
  m.def("devices", &listDevices);
  m.def(
      "cuda_status",
      [](int ordinal) {
        auto device = jeet::runtime::getCudaDevice(ordinal);
        if (device.ok())
          return std::make_pair(true, std::string());
        return std::make_pair(false, device.status().message());
      },
      "ordinal"_a = 0,
      "(True, '') when CUDA device `ordinal` is usable, else (False, the "
      "reason).");
  m.def(
      "synchronize",
      [](const std::string &device) {
        jeet::runtime::Device &dev = lookupDevice(device);
        jeet::runtime::Status status = [&] {
          nb::gil_scoped_release release;
          return dev.synchronize();
        }();
        if (!status.ok())
          raiseStatus(status);
      },
      "device"_a = "cuda:0",
      "Waits for the work queued on the device; raises the error of queued "
      "work that failed, naming its graph.");
  m.def(
      "memory_stats",
      [](const std::string &device) { return statsDict(lookupDevice(device)); },
      "device"_a = "cpu");
  m.def(
      "empty_cache",
      [](const std::string &device) {
        lookupDevice(device).allocator().emptyCache();
      },
      "device"_a = "cpu");
  m.def(
      "reset_peak",
      [](const std::string &device) {
        lookupDevice(device).allocator().resetPeak();
      },
      "device"_a = "cpu");
  m.def(
      "set_memory_limit",
      [](size_t bytes, const std::string &device) {
        lookupDevice(device).allocator().setMemoryLimit(bytes);
      },
      "bytes"_a, "device"_a = "cpu",
      "Caps the device's reserved memory (0: no cap).");
  m.def(
      "inject_allocation_failures",
      [](uint64_t successes, uint64_t failures, const std::string &device) {
        lookupDevice(device).allocator().injectFailures(successes, failures);
      },
      "successes"_a, "failures"_a, "device"_a = "cpu",
      "For tests: after `successes` more successful allocations on the "
      "device, the next `failures` fail with OutOfMemory.");
}

} // namespace

NB_MODULE(_jeet, m) {
  m.doc() = "Jeet's C++ API (Graph, Compiler, runtime); use the `jeet` "
            "package instead";
  bindRuntimeTensor(m);
  bindGraph(m);
  bindCompiler(m);
  bindDevices(m);
  jeet_python::bindGraphKey(m);
  jeet_python::bindRecording(m);
  // Fail at import, not at the first error, if jeet.errors is missing.
  errors();
}
