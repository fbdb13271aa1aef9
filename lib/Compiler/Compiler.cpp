//===- Compiler.cpp - Compile and run jeet graphs -------------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Compiler.h"

#include "CompilerSupport.h"
#include "DiskCache.h"

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
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>
#include <cstring>
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
                       "cuda-graphs={7} fuse-attention={8} vectorize={9}",
                       entry, device, gpuTarget, fuse, maxFusionOps, parallel,
                       keepIR, cudaGraphs, fuseAttention, vectorize)
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
  /// A graph loaded from the disk cache: its object, linked (instead of
  /// `engine`).
  std::unique_ptr<llvm::orc::LLJIT> linked;
  /// The object code of the JIT'ed module (one object per partition of
  /// code generation), kept for the disk cache when it is on.
  std::vector<std::string> objects;
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
  Impl() : cache(kCacheCapacity) {}

  /// The context of every compilation, made on the first one, which a
  /// process that only finds its graphs in the caches never needs. Its
  /// dialects are registered, not loaded: the parser and each pass (through
  /// its dependent dialects) load the ones a graph needs, so a CPU graph
  /// never pays for loading the GPU dialects (loading all of them took
  /// ~10 ms of CPU, a quarter of a small graph's compile). Compilation holds
  /// the lock.
  MLIRContext &getContext() {
    if (!context) {
      DialectRegistry registry;
      registerAllJeetDialects(registry);
      context = std::make_unique<MLIRContext>(registry);
      // Compilation holds the lock, so the context itself need not be
      // thread-safe.
      context->disableMultithreading();
    }
    return *context;
  }

  llvm::Expected<std::shared_ptr<Executable>>
  compile(llvm::StringRef source, llvm::StringRef sourceName,
          const CompileOptions &options);

  std::mutex mutex;
  std::unique_ptr<MLIRContext> context;
  runtime::LRUCache<Executable> cache;
  int64_t compilations = 0;
  int64_t cacheHits = 0;
  int64_t diskHits = 0;
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

/// The runtime's host ABI (mgpu*) as (name, address) pairs.
/// `bf16 __truncsfbf2(f32)`: LLVM's code generation calls it to round an
/// f32 to bf16 on a CPU without bf16 conversion instructions, and older
/// libgcc releases (GCC 12's, Debian 12's) do not have it. jeet-expand-bf16
/// leaves no such rounding in Jeet's pipelines; this stays for any that
/// LLVM makes itself. Round to nearest even, NaNs stay NaNs (quiet). A bf16
/// travels in an SSE register, as a _Float16 does.
static _Float16 truncFloatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t rounded;
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    rounded = uint16_t((bits >> 16) | 0x40u);
  else
    rounded = uint16_t((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  _Float16 result;
  std::memcpy(&result, &rounded, sizeof(result));
  return result;
}

static std::vector<std::pair<std::string, void *>> hostSymbolList() {
  std::vector<std::pair<std::string, void *>> symbols;
  symbols.push_back(
      {"__truncsfbf2", reinterpret_cast<void *>(&truncFloatToBFloat16)});
  size_t count = 0;
  const runtime::HostSymbol *table = runtime::getHostABISymbols(&count);
  for (size_t i = 0; i < count; ++i)
    symbols.push_back({table[i].name, const_cast<void *>(table[i].address)});
  return symbols;
}

/// JIT-compiles `module`, lowered by jeet-gpu-pipeline, for this CPU: the
/// host code that launches the kernels (PTX or emulator objects, loaded by
/// the runtime's driver on the first execution). The executable's inputs and
/// outputs are device buffers.
static llvm::Error jitForGpu(ModuleOp module, Executable::Impl &impl) {
  auto targetMachine = jeet::detail::createHostTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  // The host code only sequences launches: compile it fast. The options
  // hold a function_ref: the transformer must outlive create().
  auto transformer = makeOptimizingTransformer(
      /*optLevel=*/2, /*sizeLevel=*/0, targetMachine->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
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

/// Adds `void _mlir_<entry>(void **args)` to `module`, the packed form of
/// the entry function (as MLIR's ExecutionEngine makes it): it loads each
/// argument through the pointer args[i] points to and calls the entry, whose
/// results are out-parameters.
static llvm::Error addPackedEntry(llvm::Module &module, llvm::StringRef entry) {
  llvm::Function *function = module.getFunction(entry);
  if (!function || function->isDeclaration())
    return llvm::createStringError("the graph has no function '" + entry.str() +
                                   "' to run");
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *type = llvm::FunctionType::get(builder.getVoidTy(), builder.getPtrTy(),
                                       /*isVarArg=*/false);
  auto *packed = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                        "_mlir_" + entry, module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", packed));
  llvm::Value *argList = packed->getArg(0);
  // Neither the list nor what it points to changes during a call (the
  // compiled code writes only into the buffers): the loads are invariant,
  // which lets code generation recompute them where they are used
  // (outlineLongBlocks) instead of keeping thousands of them live.
  llvm::MDNode *invariant = llvm::MDNode::get(context, {});
  auto invariantLoad = [&](llvm::Type *type, llvm::Value *address) {
    llvm::LoadInst *load = builder.CreateLoad(type, address);
    load->setMetadata(llvm::LLVMContext::MD_invariant_load, invariant);
    return load;
  };
  llvm::SmallVector<llvm::Value *> args;
  for (auto [index, arg] : llvm::enumerate(function->args())) {
    llvm::Value *slot =
        builder.CreateGEP(builder.getPtrTy(), argList, builder.getInt64(index));
    llvm::Value *pointer = invariantLoad(builder.getPtrTy(), slot);
    args.push_back(invariantLoad(arg.getType(), pointer));
  }
  llvm::Value *result = builder.CreateCall(function, args);
  if (!result->getType()->isVoidTy()) {
    llvm::Value *slot = builder.CreateGEP(builder.getPtrTy(), argList,
                                          builder.getInt64(args.size()));
    builder.CreateStore(result, builder.CreateLoad(builder.getPtrTy(), slot));
  }
  builder.CreateRetVoid();
  // The entry is only called through its packed form: inlined there, its
  // arguments (five per memref descriptor, ten per output of a graph) become
  // loads from the packed list instead of a call passing thousands of
  // values, most on the stack, whose code generation grows with the square
  // of the graph's outputs.
  function->setLinkage(llvm::GlobalValue::InternalLinkage);
  function->addFnAttr(llvm::Attribute::AlwaysInline);
  return llvm::Error::success();
}

/// A host target machine for the CPU's kernels.
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createKernelTargetMachine() {
  auto targetMachine = jeet::detail::createHostTargetMachine();
  if (targetMachine)
    (*targetMachine)->setOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return targetMachine;
}

/// Compiles `module`, lowered by jeet-cpu-pipeline, to object files for
/// this CPU, in memory (several when code generation is split over
/// threads); reports its steps to `runner`.
static llvm::Expected<std::vector<std::string>>
compileToObjects(ModuleOp module, llvm::StringRef entry,
                 PipelineRunner &runner) {
  StepClock translateClock;
  auto targetMachine = createKernelTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "jeet-graph");
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                  targetMachine->get());
  if (llvm::Error error = addPackedEntry(*llvmModule, entry))
    return std::move(error);
  runner.reportStep("translate", translateClock);

  // Optimisation ends, on this thread, where `optimized` is called: for a
  // module cut before it, this thread's partition is optimised; the other
  // threads' time is in the codegen step's note.
  StepClock optimizeClock, codegenClock;
  auto objects = jeet::detail::compileObjectFiles(
      *llvmModule, **targetMachine, createKernelTargetMachine,
      jeet::detail::codegenThreads(), runner.printPassTimes(), [&] {
        runner.reportStep("optimize", optimizeClock);
        codegenClock = StepClock();
      });
  if (!objects)
    return objects.takeError();
  runner.reportStep("codegen", codegenClock, objects->describe());
  return std::move(objects->objects);
}

/// Links the object of a graph compiled for the CPU into a JIT of its own,
/// with the runtime's host ABI and (for parallel code) libomp, and finds its
/// entry point. Compilation and the disk cache both come here.
static llvm::Error linkObjects(llvm::ArrayRef<std::string> objects,
                               Executable::Impl &impl) {
  llvm::SmallVector<llvm::StringRef, 1> libraries;
  std::string openmp;
  if (impl.options.parallel) {
    openmp = JEET_OPENMP_LIBRARY;
    libraries.push_back(openmp);
  }
  auto jit =
      jeet::detail::linkCachedObjects(objects, libraries, hostSymbolList());
  if (!jit)
    return jit.takeError();
  auto entryPoint = (*jit)->lookup("_mlir_" + impl.options.entry);
  if (!entryPoint)
    return entryPoint.takeError();
  impl.packed = entryPoint->toPtr<void (*)(void **)>();
  impl.linked = std::move(*jit);
  Executable::Impl *state = &impl;
  impl.lazyInit = [state]() -> llvm::Error {
    state->entry = std::make_unique<runtime::CompiledEntry>(
        entryInfo(*state), state->packed, runtime::getHostDevice());
    return llvm::Error::success();
  };
  return llvm::Error::success();
}

/// JIT-compiles `module`, lowered by jeet-cpu-pipeline, for this CPU; keeps
/// the object for the disk cache when `keepObject`.
static llvm::Error jitForCpu(ModuleOp module, Executable::Impl &impl,
                             bool keepObject, PipelineRunner &runner) {
  llvm::Expected<std::vector<std::string>> objects =
      compileToObjects(module, impl.options.entry, runner);
  if (!objects)
    return objects.takeError();
  StepClock linkClock;
  if (llvm::Error error = linkObjects(*objects, impl))
    return error;
  runner.reportStep("link", linkClock);
  if (keepObject)
    impl.objects = std::move(*objects);
  return llvm::Error::success();
}

/// An executable from a disk cache entry: the object linked, nothing
/// compiled.
static llvm::Expected<std::unique_ptr<Executable::Impl>>
linkCached(jeet::detail::CachedExecutable entry,
           const CompileOptions &options) {
  auto impl = std::make_unique<Executable::Impl>();
  impl->options = options;
  impl->inputs = std::move(entry.inputs);
  impl->outputs = std::move(entry.outputs);
  impl->kernelOps = std::move(entry.kernelOps);
  impl->memoryPlan = entry.memoryPlan;
  impl->stageNames = std::move(entry.stageNames);
  if (llvm::Error error = linkObjects(entry.objects, *impl))
    return std::move(error);
  return impl;
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
  cpuOptions.fuseAttention = options.fuseAttention;
  cpuOptions.parallel = options.parallel;
  cpuOptions.vectorize = options.vectorize;
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
    impl.kernelOps = listKernels(module);
  auto host = module.lookupSymbol<func::FuncOp>(impl.options.entry);
  if (!host)
    return;
  if (name == stage::kBufferized || name == stage::kKernels)
    impl.memoryPlan = readMemoryPlan(host);
}

llvm::Expected<std::shared_ptr<Executable>>
Compiler::Impl::compile(llvm::StringRef source, llvm::StringRef sourceName,
                        const CompileOptions &options) {
  MLIRContext &context = getContext();
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

  bool keepObject = options.device == "cpu" && !options.keepIR &&
                    jeet::detail::DiskCache::global().enabled();
  if (options.device == "gpu") {
    StepClock jitClock;
    if (llvm::Error error = jitForGpu(*module, *impl))
      return std::move(error);
    runner.reportStep("jit", jitClock);
  } else if (llvm::Error error =
                 jitForCpu(*module, *impl, keepObject, runner)) {
    return std::move(error);
  }
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
  // CPU graphs persist on disk (their IR, kept with keepIR, does not).
  jeet::detail::DiskCache &disk = jeet::detail::DiskCache::global();
  bool onDisk = resolved.device == "cpu" && !resolved.keepIR && disk.enabled();
  std::optional<jeet::detail::CacheKey> diskKey;
  if (onDisk) {
    auto start = std::chrono::steady_clock::now();
    diskKey = jeet::detail::CacheKey::of(key);
    auto msSince = [](std::chrono::steady_clock::time_point from) {
      return std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - from)
          .count();
    };
    if (std::optional<jeet::detail::CachedExecutable> entry =
            disk.load(*diskKey)) {
      double readMs = msSince(start);
      auto linkStart = std::chrono::steady_clock::now();
      auto linked = linkCached(std::move(*entry), resolved);
      if (linked) {
        jeet::detail::reportCacheEvent(
            llvm::formatv("loaded {0} (read and checked in {1:f2} ms, linked "
                          "in {2:f2} ms)",
                          disk.pathFor(*diskKey), readMs, msSince(linkStart)));
        auto executable = std::make_shared<Executable>(std::move(*linked));
        impl->cache.insert(key, executable);
        std::lock_guard<std::mutex> lock(impl->mutex);
        ++impl->diskHits;
        return executable;
      }
      jeet::detail::reportCacheEvent(
          "cannot link the cached object of " + disk.pathFor(*diskKey) + ": " +
          llvm::toString(linked.takeError()) + "; compiling again");
    }
  }
  auto compiled = compile(source, "<graph>", resolved);
  if (!compiled)
    return compiled.takeError();
  impl->cache.insert(key, *compiled);
  if (onDisk && !(*compiled)->impl->objects.empty()) {
    const Executable::Impl &state = *(*compiled)->impl;
    jeet::detail::CachedExecutable entry{state.inputs,     state.outputs,
                                         state.kernelOps,  state.memoryPlan,
                                         state.stageNames, state.objects};
    disk.store(*diskKey, entry);
    // The object is on disk; the executable does not need its copy.
    (*compiled)->impl->objects.clear();
  }
  return compiled;
}

Compiler::CacheStats Compiler::cacheStats() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  CacheStats stats;
  stats.compilations = impl->compilations;
  stats.cacheHits = impl->cacheHits;
  stats.diskHits = impl->diskHits;
  stats.entries = impl->cache.stats().size;
  return stats;
}

void Compiler::clearCache() { impl->cache.clear(); }
