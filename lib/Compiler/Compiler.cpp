//===- Compiler.cpp - Compile and run jeet graphs -------------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Compiler.h"

#include "CompilerSupport.h"

#include "jeet/Codegen/Common/Passes.h"
#include "jeet/InitAllJeet.h"
#include "jeet/Pipelines/CpuPipeline.h"
#include "jeet/Pipelines/GpuPipeline.h"
#include "jeet/Pipelines/PipelineRunner.h"
#include "jeet/Runtime/Cache.h"
#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/Execution.h"
#include "jeet/Runtime/HostABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <functional>
#include <mutex>

using namespace mlir;
using namespace jeet;

//===----------------------------------------------------------------------===//
// CompileOptions and TensorSpec
//===----------------------------------------------------------------------===//

std::string CompileOptions::str() const {
  return llvm::formatv("entry={0} device={1} gpu-target={2} fuse={3} "
                       "max-fusion-ops={4} parallel={5} keep-ir={6} "
                       "cuda-graphs={7}",
                       entry, device, gpuTarget, fuse, maxFusionOps, parallel,
                       keepIR, cudaGraphs)
      .str();
}

/// Whether the CUDA device that executions use is the driver emulator
/// (JEET_CUDA_DRIVER or CudaOptions::driverPath naming
/// libjeet_cuda_emulator). A device that cannot be opened is none: GPU graphs
/// then compile to PTX, and executing them reports why the GPU is missing.
static bool cudaDeviceIsEmulator() {
  runtime::StatusOr<runtime::CudaDevice *> device = runtime::getCudaDevice();
  return device.ok() && (*device)->isEmulated();
}

std::string jeet::resolveGpuTarget(const CompileOptions &options) {
  if (options.gpuTarget != "auto")
    return options.gpuTarget;
  return cudaDeviceIsEmulator() ? "emulator" : "ptx";
}

/// `options` with its GPU target resolved (GPU compilations only).
static CompileOptions withResolvedGpuTarget(const CompileOptions &options) {
  CompileOptions resolved = options;
  if (options.device == "gpu")
    resolved.gpuTarget = resolveGpuTarget(options);
  return resolved;
}

int64_t TensorSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t TensorSpec::elementBytes() const {
  if (dtype == "f16" || dtype == "bf16")
    return 2;
  return 4;
}

std::string TensorSpec::str() const {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dtype;
}

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

struct Executable::Impl {
  CompileOptions options;
  std::vector<TensorSpec> inputs, outputs;
  /// For each kernel (fusion group), the names of the jeet ops it fuses.
  std::vector<std::vector<std::string>> kernelOps;
  MemoryPlan memoryPlan;
  /// The stages of the pipeline that compiled it; the IR of each, with
  /// CompileOptions::keepIR.
  std::vector<std::string> stageNames;
  llvm::StringMap<std::string> stageIR;
  std::unique_ptr<ExecutionEngine> engine;
  /// The packed entry point: `void(void **args)`.
  void (*packed)(void **) = nullptr;
  /// Binds the packed entry to its device on the first execution: a GPU
  /// graph's module constructors load its kernels through the runtime then
  /// (they need a device, which compilation does not).
  std::function<llvm::Error()> lazyInit;
  std::once_flag lazyInitOnce;
  std::string lazyInitError;
  std::unique_ptr<runtime::CompiledEntry> entry;

  /// The bound entry, initialised on first use.
  llvm::Expected<const runtime::CompiledEntry *> bind() {
    std::call_once(lazyInitOnce, [&] {
      if (llvm::Error error = lazyInit())
        lazyInitError = llvm::toString(std::move(error));
    });
    if (!entry)
      return llvm::createStringError(lazyInitError);
    return entry.get();
  }
};

Executable::Executable(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Executable::~Executable() = default;

const std::vector<TensorSpec> &Executable::inputs() const {
  return impl->inputs;
}
const std::vector<TensorSpec> &Executable::outputs() const {
  return impl->outputs;
}
const CompileOptions &Executable::options() const { return impl->options; }
int64_t Executable::numKernels() const {
  return static_cast<int64_t>(impl->kernelOps.size());
}
const std::vector<std::vector<std::string>> &Executable::kernelOps() const {
  return impl->kernelOps;
}
int64_t Executable::peakIntermediateBytes() const {
  return impl->memoryPlan.liveBytesBound;
}

const MemoryPlan &Executable::memoryPlan() const { return impl->memoryPlan; }

std::string Executable::cudaGraphStatus() const {
  if (impl->options.device != "gpu")
    return "off: CUDA graphs are for GPU executions";
  if (!impl->entry)
    return "not run yet";
  if (impl->entry->replaying())
    return "on";
  return "off: " + impl->entry->replayOffReason();
}

const std::vector<std::string> &Executable::stageNames() const {
  return impl->stageNames;
}

std::string Executable::ir(llvm::StringRef stage) const {
  auto it = impl->stageIR.find(stage);
  return it == impl->stageIR.end() ? std::string() : it->second;
}

static llvm::Error toError(const runtime::Status &status) {
  if (status.ok())
    return llvm::Error::success();
  return llvm::createStringError(status.toString());
}

llvm::Error Executable::run(llvm::ArrayRef<const void *> inputs,
                            llvm::ArrayRef<void *> outputs) const {
  llvm::Expected<const runtime::CompiledEntry *> entry = impl->bind();
  if (!entry)
    return entry.takeError();
  runtime::ExecutionOptions options;
  options.wait = true;
  return toError((*entry)->runPointers(
      std::vector<const void *>(inputs.begin(), inputs.end()),
      std::vector<void *>(outputs.begin(), outputs.end()), options));
}

llvm::Error Executable::run(llvm::ArrayRef<runtime::Tensor> inputs,
                            llvm::ArrayRef<runtime::Tensor> outputs,
                            void *stream) const {
  llvm::Expected<const runtime::CompiledEntry *> entry = impl->bind();
  if (!entry)
    return entry.takeError();
  runtime::ExecutionOptions options;
  options.stream = stream;
  std::vector<const runtime::Tensor *> in, out;
  in.reserve(inputs.size());
  out.reserve(outputs.size());
  for (const runtime::Tensor &t : inputs)
    in.push_back(&t);
  for (const runtime::Tensor &t : outputs)
    out.push_back(&t);
  return toError(
      (*entry)->run(in.data(), in.size(), out.data(), out.size(), options));
}

llvm::Expected<std::vector<runtime::Tensor>>
Executable::run(llvm::ArrayRef<runtime::Tensor> inputs, void *stream) const {
  std::vector<const runtime::Tensor *> in;
  in.reserve(inputs.size());
  for (const runtime::Tensor &t : inputs)
    in.push_back(&t);
  return run(llvm::ArrayRef<const runtime::Tensor *>(in), stream);
}

llvm::Expected<std::vector<runtime::Tensor>>
Executable::run(llvm::ArrayRef<const runtime::Tensor *> inputs,
                void *stream) const {
  llvm::Expected<const runtime::CompiledEntry *> entry = impl->bind();
  if (!entry)
    return entry.takeError();
  const runtime::CompiledEntry &bound = **entry;
  if (llvm::Error error = toError(bound.deviceOpen()))
    return std::move(error);
  std::vector<runtime::Tensor> outputs;
  std::vector<const runtime::Tensor *> out;
  outputs.reserve(bound.info().outputs.size());
  for (const runtime::TensorType &type : bound.info().outputs) {
    runtime::StatusOr<runtime::Tensor> output =
        runtime::Tensor::empty(bound.device(), type.shape, type.dtype, stream);
    if (!output.ok())
      return toError(
          output.status().withContext("output of " + bound.info().label));
    outputs.push_back(std::move(*output));
  }
  for (const runtime::Tensor &t : outputs)
    out.push_back(&t);
  runtime::ExecutionOptions options;
  options.stream = stream;
  if (llvm::Error error = toError(bound.run(inputs.data(), inputs.size(),
                                            out.data(), out.size(), options)))
    return std::move(error);
  return outputs;
}

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

/// The most compiled graphs the cache keeps (least recently used go first).
static constexpr size_t kCacheCapacity = 256;

struct Compiler::Impl {
  Impl() : cache(kCacheCapacity) {
    DialectRegistry registry;
    registerAllJeetDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    // Compilation holds the lock, so the context itself need not be
    // thread-safe.
    context.disableMultithreading();
  }

  llvm::Expected<std::shared_ptr<Executable>>
  compile(llvm::StringRef source, llvm::StringRef sourceName,
          const CompileOptions &options);

  std::mutex mutex;
  MLIRContext context;
  runtime::LRUCache<Executable> cache;
  int64_t compilations = 0;
  int64_t cacheHits = 0;
};

Compiler::Compiler() : impl(std::make_unique<Impl>()) {}
Compiler::~Compiler() = default;

Compiler &Compiler::global() {
  static Compiler *compiler = new Compiler();
  return *compiler;
}

/// The static memory plan jeet-plan-memory recorded on the entry.
static MemoryPlan readMemoryPlan(func::FuncOp func) {
  MemoryPlan plan;
  auto attr = func->getAttrOfType<DictionaryAttr>(kMemoryPlanAttr);
  if (!attr)
    return plan;
  auto get = [&](llvm::StringRef name) -> int64_t {
    auto value = attr.getAs<IntegerAttr>(name);
    return value ? value.getInt() : 0;
  };
  plan.arenaBytes = get("arena_bytes");
  plan.intermediateBytes = get("intermediate_bytes");
  plan.liveBytesBound = get("live_bytes_bound");
  plan.buffers = get("buffers");
  return plan;
}

/// The calling convention of the compiled entry, for the runtime.
static runtime::EntryInfo entryInfo(const Executable::Impl &impl) {
  runtime::EntryInfo info;
  auto types = [](const std::vector<TensorSpec> &specs) {
    std::vector<runtime::TensorType> result;
    for (const TensorSpec &spec : specs) {
      runtime::TensorType type;
      type.shape = spec.shape;
      type.dtype = *runtime::parseDType(spec.dtype);
      result.push_back(type);
    }
    return result;
  };
  info.inputs = types(impl.inputs);
  info.outputs = types(impl.outputs);
  info.label = runtime::EntryInfo::makeLabel(impl.options.entry, info.inputs,
                                             info.outputs);
  info.arenaBytes = static_cast<uint64_t>(impl.memoryPlan.arenaBytes);
  info.takesStream = impl.options.device == "gpu";
  info.cudaGraphs = impl.options.cudaGraphs;
  return info;
}

/// Registers the runtime's host ABI (mgpu*) with the JIT.
static void registerHostSymbols(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    size_t count = 0;
    const runtime::HostSymbol *table = runtime::getHostABISymbols(&count);
    for (size_t i = 0; i < count; ++i)
      symbols[interner(table[i].name)] = {
          llvm::orc::ExecutorAddr::fromPtr(table[i].address),
          llvm::JITSymbolFlags::Exported};
    return symbols;
  });
}

/// JIT-compiles `module`, lowered by jeet-gpu-pipeline, for this CPU: the
/// host code that launches the kernels (PTX or emulator objects, loaded by
/// the runtime's driver on the first execution). The executable's inputs and
/// outputs are device buffers.
static llvm::Error jitForGpu(ModuleOp module, Executable::Impl &impl) {
  auto targetMachine = jeet::detail::createHostTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  ExecutionEngineOptions engineOptions;
  // The host code only sequences launches: compile it fast.
  engineOptions.transformer = makeOptimizingTransformer(
      /*optLevel=*/2, /*sizeLevel=*/0, targetMachine->get());
  auto engine =
      ExecutionEngine::create(module, engineOptions, std::move(*targetMachine));
  if (!engine)
    return engine.takeError();
  registerHostSymbols(**engine);
  impl.engine = std::move(*engine);
  Executable::Impl *state = &impl;
  std::string entryName = impl.options.entry;
  impl.lazyInit = [state, entryName]() -> llvm::Error {
    // The kernels load on the calling thread's CUDA device, or device 0.
    runtime::Device *device = &runtime::currentDevice();
    if (device->kind() != runtime::DeviceKind::Cuda) {
      runtime::StatusOr<runtime::CudaDevice *> cuda = runtime::getCudaDevice();
      if (!cuda.ok())
        return llvm::createStringError(cuda.status().toString());
      device = *cuda;
    }
    runtime::Device *previous = &runtime::currentDevice();
    runtime::setCurrentDevice(device);
    runtime::takeLastError().ignore();
    state->engine->initialize();
    runtime::Status status = runtime::takeLastError();
    runtime::setCurrentDevice(previous == &runtime::getHostDevice() ? nullptr
                                                                    : previous);
    if (!status.ok())
      return llvm::createStringError("loading the GPU kernels failed: " +
                                     status.toString());
    auto packed = state->engine->lookupPacked(entryName);
    if (!packed)
      return packed.takeError();
    state->packed = *packed;
    state->entry = std::make_unique<runtime::CompiledEntry>(
        entryInfo(*state), state->packed, *device);
    return llvm::Error::success();
  };
  return llvm::Error::success();
}

/// JIT-compiles `module`, lowered by jeet-cpu-pipeline, for this CPU.
static llvm::Error jitForCpu(ModuleOp module, Executable::Impl &impl) {
  auto targetMachine = jeet::detail::createHostTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  auto transformer = makeOptimizingTransformer(
      /*optLevel=*/3, /*sizeLevel=*/0, targetMachine->get());

  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  llvm::SmallVector<llvm::StringRef, 1> libraries;
  if (impl.options.parallel)
    libraries.push_back(JEET_OPENMP_LIBRARY);
  engineOptions.sharedLibPaths = libraries;
  auto engine =
      ExecutionEngine::create(module, engineOptions, std::move(*targetMachine));
  if (!engine)
    return engine.takeError();
  registerHostSymbols(**engine);
  (*engine)->initialize();
  auto packed = (*engine)->lookupPacked(impl.options.entry);
  if (!packed)
    return packed.takeError();
  impl.packed = *packed;
  impl.engine = std::move(*engine);
  Executable::Impl *state = &impl;
  impl.lazyInit = [state]() -> llvm::Error {
    state->entry = std::make_unique<runtime::CompiledEntry>(
        entryInfo(*state), state->packed, runtime::getHostDevice());
    return llvm::Error::success();
  };
  return llvm::Error::success();
}

/// The pipeline that compiles for `options.device`.
static llvm::Expected<StagedPipeline>
getPipeline(const CompileOptions &options) {
  if (options.device == "gpu") {
    GpuPipelineOptions gpuOptions;
    gpuOptions.target = options.gpuTarget;
    gpuOptions.fuse = options.fuse;
    gpuOptions.maxFusionOps = options.maxFusionOps;
    if (llvm::Error error = verifyGpuPipelineOptions(gpuOptions))
      return std::move(error);
    return getJeetGpuPipeline(gpuOptions);
  }
  CpuPipelineOptions cpuOptions;
  cpuOptions.fuse = options.fuse;
  cpuOptions.maxFusionOps = options.maxFusionOps;
  cpuOptions.parallel = options.parallel;
  // Intermediates come from the runtime's caching allocator, which counts
  // them and recycles their memory across executions.
  cpuOptions.runtimeAllocator = true;
  return getJeetCpuPipeline(cpuOptions);
}

/// Reads what the executable reports from the IR after `stage`: the ops of
/// each kernel once fused, and the buffer plan once buffers are placed.
static void inspectStage(llvm::StringRef name, ModuleOp module,
                         Executable::Impl &impl) {
  if (name == stage::kFused)
    impl.kernelOps = listFusionGroups(module);
  auto host = module.lookupSymbol<func::FuncOp>(impl.options.entry);
  if (!host)
    return;
  if (name == stage::kBufferized || name == stage::kKernels)
    impl.memoryPlan = readMemoryPlan(host);
}

llvm::Expected<std::shared_ptr<Executable>>
Compiler::Impl::compile(llvm::StringRef source, llvm::StringRef sourceName,
                        const CompileOptions &options) {
  jeet::detail::DiagnosticCollector diagnostics(context, source, sourceName);
  auto fail = [&](llvm::StringRef what) { return diagnostics.fail(what); };

  if (options.device != "cpu" && options.device != "gpu")
    return llvm::createStringError("unknown device '" + options.device +
                                   "' (expected cpu or gpu)");
  if (options.gpuTarget != "auto" && options.gpuTarget != "ptx" &&
      options.gpuTarget != "emulator")
    return llvm::createStringError("unknown GPU target '" + options.gpuTarget +
                                   "' (expected auto, ptx or emulator)");

  auto impl = std::make_unique<Executable::Impl>();
  impl->options = options;
  std::string error;
  OwningOpRef<ModuleOp> module = jeet::detail::parseGraph(
      context, diagnostics.getSourceMgr(), sourceName, options.entry,
      impl->inputs, impl->outputs, error);
  if (!module)
    return fail(error);
  jeet::detail::keepOnlyEntry(
      *module, module->lookupSymbol<func::FuncOp>(options.entry));

  llvm::Expected<StagedPipeline> pipeline = getPipeline(options);
  if (!pipeline)
    return pipeline.takeError();
  impl->stageNames = pipeline->stageNames();
  PipelineRunner runner(*pipeline, options.entry + "-" + options.device,
                        options.keepIR);
  if (failed(runner.run(*module, [&](llvm::StringRef name, ModuleOp lowered) {
        inspectStage(name, lowered, *impl);
      })))
    return fail("the " + runner.failedStage().str() + " stage of " +
                pipeline->description + " failed");
  impl->stageIR = runner.takeStageIR();

  auto start = std::chrono::steady_clock::now();
  if (llvm::Error error = options.device == "gpu" ? jitForGpu(*module, *impl)
                                                  : jitForCpu(*module, *impl))
    return std::move(error);
  runner.reportStep("jit", std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start)
                               .count());
  return std::make_shared<Executable>(std::move(impl));
}

llvm::Expected<std::shared_ptr<Executable>>
Compiler::compile(llvm::StringRef source, llvm::StringRef sourceName,
                  const CompileOptions &options) {
  CompileOptions resolved = withResolvedGpuTarget(options);
  std::lock_guard<std::mutex> lock(impl->mutex);
  ++impl->compilations;
  return impl->compile(source, sourceName, resolved);
}

llvm::Expected<std::shared_ptr<Executable>>
Compiler::compileCached(llvm::StringRef source, const CompileOptions &options) {
  // The graph text is printed with canonical value names and no locations,
  // so equal structure, shapes and dtypes give equal text: the text itself is
  // the structural key (hashed by the cache's map).
  // Keyed by the resolved GPU target: "auto" compiles for what the device is.
  CompileOptions resolved = withResolvedGpuTarget(options);
  std::string key = resolved.str() + "\n" + source.str();
  if (std::shared_ptr<Executable> hit = impl->cache.lookup(key)) {
    std::lock_guard<std::mutex> lock(impl->mutex);
    ++impl->cacheHits;
    return hit;
  }
  auto compiled = compile(source, "<graph>", resolved);
  if (!compiled)
    return compiled.takeError();
  impl->cache.insert(key, *compiled);
  return compiled;
}

Compiler::CacheStats Compiler::cacheStats() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  CacheStats stats;
  stats.compilations = impl->compilations;
  stats.cacheHits = impl->cacheHits;
  stats.entries = impl->cache.stats().size;
  return stats;
}

void Compiler::clearCache() { impl->cache.clear(); }
