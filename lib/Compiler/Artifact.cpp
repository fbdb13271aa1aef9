//===- Artifact.cpp - Compile graphs ahead of time ------------------------===//
//
// Part of the Jeet project.
//
// graph.mlir -> (jeet pipelines) -> LLVM dialect + artifact ABI ->
// LLVM IR -> O3 with the target machine -> object file in memory ->
// `cc -shared` -> graph.so.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Artifact.h"
#include "jeet/Codegen/CPU/Passes.h"

#include "CompilerSupport.h"

#include "jeet/Codegen/Common/Passes.h"
#include "jeet/InitAllJeet.h"
#include "jeet/Pipelines/CpuPipeline.h"
#include "jeet/Pipelines/GpuPipeline.h"
#include "jeet/Pipelines/PipelineRunner.h"
#include "jeet/Runtime/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>

using namespace mlir;
using namespace jeet;

static constexpr llvm::StringLiteral kRunSymbol = "jeet_artifact_run";
static constexpr llvm::StringLiteral kInitSymbol = "jeet_artifact_init";
static constexpr llvm::StringLiteral kFiniSymbol = "jeet_artifact_fini";
static constexpr llvm::StringLiteral kSignatureSymbol =
    "jeet_artifact_signature";

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

std::string
jeet::formatArtifactSignature(llvm::StringRef entry, llvm::StringRef device,
                              const std::vector<TensorSpec> &inputs,
                              const std::vector<TensorSpec> &outputs,
                              int64_t numKernels, int64_t arenaBytes) {
  auto join = [](const std::vector<TensorSpec> &specs) {
    std::string s;
    for (size_t i = 0; i < specs.size(); ++i)
      s += (i ? "," : "") + specs[i].str();
    return s;
  };
  return llvm::formatv("v{0} entry={1} device={2} inputs={3} outputs={4} "
                       "kernels={5} arena={6}",
                       runtime::kArtifactVersion, entry, device, join(inputs),
                       join(outputs), numKernels, arenaBytes)
      .str();
}

//===----------------------------------------------------------------------===//
// The artifact ABI in the LLVM dialect
//===----------------------------------------------------------------------===//

/// The symbols the artifact ABI adds to the module: a function of the graph
/// by one of these names is reported where the graph defines it, before
/// anything is compiled (addArtifactABI would find it only in the lowered
/// module, with no location).
static LogicalResult checkReservedNames(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    for (llvm::StringRef name : {kRunSymbol.data(), kInitSymbol.data(),
                                 kFiniSymbol.data(), kSignatureSymbol.data()})
      if (func.getName() == name)
        // At its location, without the function's body printed after.
        return emitError(func.getLoc())
               << "a function of the graph is named '" << name
               << "', a name reserved for the artifact ABI (" << kRunSymbol
               << ", " << kInitSymbol << ", " << kFiniSymbol << ", "
               << kSignatureSymbol << "); rename it";
  return success();
}

LogicalResult jeet::addArtifactABI(ModuleOp module, llvm::StringRef entry,
                                   llvm::StringRef signature) {
  MLIRContext *context = module.getContext();
  auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(entry);
  if (!func || func.isExternal())
    return module.emitError()
           << "no lowered function '" << entry << "' to wrap as " << kRunSymbol;
  if (!isa<LLVM::LLVMVoidType>(func.getFunctionType().getReturnType()))
    return func.emitError() << "the lowered entry '" << entry
                            << "' returns a value; outputs must be "
                               "out-parameters";
  for (llvm::StringRef name : {kRunSymbol.data(), kInitSymbol.data(),
                               kFiniSymbol.data(), kSignatureSymbol.data()})
    if (module.lookupSymbol(name))
      return module.emitError() << "the graph defines '" << name
                                << "', a name reserved for the artifact ABI";

  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  Location loc = func.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto voidType = LLVM::LLVMVoidType::get(context);

  // void jeet_artifact_run(void **args): args[i] points to argument i.
  // Neither the list nor what it points to changes during a call (the
  // compiled code writes only into the buffers): the loads are invariant,
  // which lets code generation recompute them where they are used
  // (outlineLongBlocks) instead of keeping thousands of them live.
  auto run = LLVM::LLVMFuncOp::create(
      builder, loc, kRunSymbol, LLVM::LLVMFunctionType::get(voidType, ptrType));
  Block *body = run.addEntryBlock(builder);
  builder.setInsertionPointToStart(body);
  Value args = body->getArgument(0);
  SmallVector<Value> values;
  for (auto [i, type] : llvm::enumerate(func.getFunctionType().getParams())) {
    Value slot =
        LLVM::GEPOp::create(builder, loc, ptrType, ptrType, args,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    Value pointer = LLVM::LoadOp::create(builder, loc, ptrType, slot,
                                         /*alignment=*/0, /*isVolatile=*/false,
                                         /*isNonTemporal=*/false,
                                         /*isInvariant=*/true);
    values.push_back(LLVM::LoadOp::create(
        builder, loc, type, pointer, /*alignment=*/0, /*isVolatile=*/false,
        /*isNonTemporal=*/false, /*isInvariant=*/true));
  }
  LLVM::CallOp::create(builder, loc, func, values);
  LLVM::ReturnOp::create(builder, loc, ValueRange{});
  // As the JIT's packed entry does (addPackedEntry in Compiler.cpp): inlined,
  // the entry's arguments (ten per output of a graph) are loads from the
  // list; left a function, LLVM's inference of its arguments' attributes
  // grew with their square (3.3 s of CPU for a graph of 2,000 outputs).
  func.setAlwaysInline(true);

  // const char jeet_artifact_signature[] = "v1 ...";
  builder.setInsertionPointToEnd(module.getBody());
  std::string text = signature.str();
  text.push_back('\0');
  auto arrayType =
      LLVM::LLVMArrayType::get(IntegerType::get(context, 8), text.size());
  LLVM::GlobalOp::create(builder, loc, arrayType, /*isConstant=*/true,
                         LLVM::Linkage::External, kSignatureSymbol,
                         builder.getStringAttr(text));
  return success();
}

/// On the LLVM IR: moves the global constructors and destructors (GPU module
/// load and unload) into jeet_artifact_init/fini, so that dlopen runs nothing
/// and the runtime loads kernels once it has chosen the device; then makes
/// every definition but the ABI internal.
static void finishArtifactModule(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  auto takeStructors = [&](llvm::StringRef name) {
    std::vector<std::pair<uint64_t, llvm::Function *>> functions;
    llvm::GlobalVariable *list = module.getGlobalVariable(name);
    if (!list)
      return functions;
    if (auto *array =
            dyn_cast_or_null<llvm::ConstantArray>(list->getInitializer())) {
      for (llvm::Value *operand : array->operands()) {
        auto *entry = dyn_cast<llvm::ConstantStruct>(operand);
        if (!entry || entry->getNumOperands() < 2)
          continue;
        auto *priority = dyn_cast<llvm::ConstantInt>(entry->getOperand(0));
        auto *fn =
            dyn_cast<llvm::Function>(entry->getOperand(1)->stripPointerCasts());
        if (priority && fn)
          functions.push_back({priority->getZExtValue(), fn});
      }
    }
    list->eraseFromParent();
    std::stable_sort(
        functions.begin(), functions.end(),
        [](const auto &a, const auto &b) { return a.first < b.first; });
    return functions;
  };
  auto define =
      [&](llvm::StringRef name,
          const std::vector<std::pair<uint64_t, llvm::Function *>> &functions) {
        auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                             /*isVarArg=*/false);
        auto *fn = llvm::Function::Create(
            type, llvm::GlobalValue::ExternalLinkage, name, module);
        llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", fn));
        for (auto &[priority, callee] : functions)
          b.CreateCall(callee->getFunctionType(), callee);
        b.CreateRetVoid();
      };
  define(kInitSymbol, takeStructors("llvm.global_ctors"));
  define(kFiniSymbol, takeStructors("llvm.global_dtors"));

  auto isABI = [](llvm::StringRef name) {
    return name == kRunSymbol || name == kInitSymbol || name == kFiniSymbol ||
           name == kSignatureSymbol;
  };
  for (llvm::Function &fn : module)
    if (!fn.isDeclaration() && !fn.hasLocalLinkage() && !isABI(fn.getName()))
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &global : module.globals())
    if (!global.isDeclaration() && !global.hasLocalLinkage() &&
        !isABI(global.getName()) && !global.getName().starts_with("llvm."))
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

namespace {

/// A temporary file removed on destruction.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

static std::once_flag initializeTargetsOnce;

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef cpu) {
  std::call_once(initializeTargetsOnce, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  if (cpu != "host") {
    // A named CPU: its own features, not this machine's.
    builder->getFeatures() = llvm::SubtargetFeatures();
    builder->setCPU(cpu == "generic" ? "generic" : cpu.str());
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(builder->getTargetTriple(), error);
    if (!target)
      return llvm::createStringError(error);
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        target->createMCSubtargetInfo(builder->getTargetTriple(), cpu, ""));
    if (cpu != "generic" && (!info || !info->isCPUStringValid(cpu)))
      return llvm::createStringError(
          "unknown target CPU '" + cpu.str() + "' for " +
          builder->getTargetTriple().str() +
          " (use host, generic or an LLVM CPU name such as x86-64-v3)");
  }
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeModel(llvm::CodeModel::Small);
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto machine = builder->createTargetMachine();
  if (!machine)
    return machine.takeError();
  return std::move(*machine);
}

/// How long the C compiler may take to link an artifact.
static constexpr unsigned kLinkTimeoutSeconds = 120;

/// Links `objects` into the shared object `output` with the C compiler; with
/// `openmp`, against libomp, whose folder is recorded as the RUNPATH.
static llvm::Error linkSharedObject(llvm::StringRef linker,
                                    llvm::ArrayRef<llvm::StringRef> objects,
                                    llvm::StringRef output, bool openmp) {
  std::string program = linker.str();
  if (program.empty())
    if (const char *cc = std::getenv("JEET_CC"); cc && *cc)
      program = cc;
  if (program.empty())
    program = "cc";
  if (!llvm::sys::path::is_absolute(program)) {
    auto found = llvm::sys::findProgramByName(program);
    if (!found)
      return llvm::createStringError("cannot link " + output.str() +
                                     ": the C compiler '" + program +
                                     "' is not on PATH (set JEET_CC to one)");
    program = *found;
  }

  // Export the ABI alone; the runtime's symbols stay undefined and are
  // resolved from libjeet_runtime when the artifact is loaded.
  TempFile versionScript, log;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "jeet-artifact", "map", fd, versionScript.path))
    return llvm::createStringError(ec, "cannot create a temporary file");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << "{\n  global:\n    " << kRunSymbol << ";\n    " << kInitSymbol
       << ";\n    " << kFiniSymbol << ";\n    " << kSignatureSymbol
       << ";\n  local: *;\n};\n";
  }
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("jeet-artifact", "log", log.path))
    return llvm::createStringError(ec, "cannot create a temporary file");

  std::string scriptFlag =
      "-Wl,--version-script=" + versionScript.path.str().str();
  llvm::SmallVector<llvm::StringRef> args = {program, "-shared", "-o", output};
  args.append(objects.begin(), objects.end());
  args.append({scriptFlag, "-lm", "-Wl,-z,noexecstack", "-Wl,--hash-style=both",
               "-Wl,-O1"});
  std::string runpath;
  if (openmp) {
    runpath =
        "-Wl,-rpath," + llvm::sys::path::parent_path(JEET_OPENMP_LIBRARY).str();
    args.push_back(JEET_OPENMP_LIBRARY);
    args.push_back(runpath);
  }
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(log.path), llvm::StringRef(log.path)};
  std::string error;
  bool executionFailed = false;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects,
                                     kLinkTimeoutSeconds, /*MemoryLimit=*/0,
                                     &error, &executionFailed);
  if (rc != 0 || executionFailed) {
    std::string message =
        "linking " + output.str() + " with '" + program + "' failed";
    if (!error.empty())
      message += ": " + error;
    if (auto text = llvm::MemoryBuffer::getFile(log.path))
      if (!(*text)->getBuffer().trim().empty())
        message += ":\n" + (*text)->getBuffer().trim().str();
    return llvm::createStringError(message);
  }
  return llvm::Error::success();
}

/// The PTX ISA version in a features string ("+ptx80" -> 80), or 0.
static unsigned ptxVersionOf(llvm::StringRef features) {
  size_t at = features.find("+ptx");
  unsigned version = 0;
  if (at == llvm::StringRef::npos ||
      features.drop_front(at + 4).consumeInteger(10, version))
    return 0;
  return version;
}

/// The options of the CPU pipeline that depend on the CPU it compiles for,
/// from `cpu`'s own subtarget features; "host" leaves them to the passes,
/// which read this machine's. The register tile's columns for matmuls
/// (getMatmulRegisterCols): an artifact for another CPU took this machine's
/// tile, and one for x86-64-v3 compiled on an AVX-512 host spilled the 6 x
/// 64 tile's accumulators at every step and ran 2.5x slower than its own 6
/// x 16. How f32 is rounded to bf16 (prefersBFloat16Conversion): a CPU
/// without the conversion instruction would call __truncsfbf2 for each
/// element, and Zen 5's is slower than integer ops on chains of bf16 ops. The
/// bits a vector instruction works on at once (getVectorDatapathBits), for
/// the cost of rows joined across.
static llvm::Error setTargetCpuOptions(llvm::StringRef cpu,
                                       CpuPipelineOptions &options) {
  if (cpu == "host") {
    options.matmulRegisterCols = 0;
    options.vectorDatapathBits = 0;
    options.bf16Conversion = "host";
    options.minmaxByRange = "host";
    return llvm::Error::success();
  }
  auto machine = createTargetMachine(cpu);
  if (!machine)
    return machine.takeError();
  const llvm::MCSubtargetInfo *info = (*machine)->getMCSubtargetInfo();
  auto hasFeature = [&](llvm::StringRef feature) {
    return info->checkFeatures(("+" + feature).str());
  };
  options.matmulRegisterCols = getMatmulRegisterCols(hasFeature);
  options.vectorDatapathBits =
      getVectorDatapathBits((*machine)->getTargetCPU(), hasFeature);
  options.bf16Conversion =
      prefersBFloat16Conversion((*machine)->getTargetCPU(), hasFeature)
          ? "hardware"
          : "integer";
  options.minmaxByRange =
      hasFeature("avx512dq") && hasFeature("avx512vl") ? "avx512" : "none";
  return llvm::Error::success();
}

/// The pipeline of the artifact's device, and for a GPU artifact the
/// signature fields the loader checks against the GPU and its driver
/// (`gpuFields`) and the chip (`info.gpuChip`).
static llvm::Expected<StagedPipeline>
getArtifactPipeline(const ArtifactOptions &options, ArtifactInfo &info,
                    std::string &gpuFields) {
  const CompileOptions &compile = options.compile;
  if (compile.device == "cpu") {
    CpuPipelineOptions cpuOptions;
    if (llvm::Error error = setTargetCpuOptions(
            options.targetCpu.empty() ? "host" : options.targetCpu, cpuOptions))
      return std::move(error);
    cpuOptions.fuse = compile.fuse;
    cpuOptions.maxFusionOps = compile.maxFusionOps;
    cpuOptions.fuseAttention = compile.fuseAttention;
    // Single-threaded unless asked: then libomp is needed where it runs.
    cpuOptions.parallel = options.openmp;
    cpuOptions.mergeParallelRegions = options.mergeParallelRegions;
    // Intermediates come from the runtime's caching allocator.
    cpuOptions.runtimeAllocator = true;
    return getJeetCpuPipeline(cpuOptions);
  }
  GpuPipelineOptions gpuOptions;
  gpuOptions.target = resolveGpuTarget(compile);
  gpuOptions.fuse = compile.fuse;
  gpuOptions.maxFusionOps = compile.maxFusionOps;
  if (!options.gpuChip.empty())
    gpuOptions.chip = options.gpuChip;
  if (!options.gpuFormat.empty())
    gpuOptions.format = options.gpuFormat;
  if (llvm::Error error = verifyGpuPipelineOptions(gpuOptions))
    return std::move(error);
  info.gpuChip = gpuOptions.chip;
  gpuFields = " chip=" + gpuOptions.chip;
  if (unsigned ptxVersion = ptxVersionOf(gpuOptions.features))
    gpuFields += " ptx=" + std::to_string(ptxVersion);
  gpuFields += " format=" + gpuOptions.format;
  if (gpuOptions.target == "emulator") {
    // Kernels for the host, run by the CUDA driver emulator: no chip or PTX
    // version for the loader to check.
    info.gpuChip.clear();
    gpuFields = " format=emulator";
  }
  return getJeetGpuPipeline(gpuOptions);
}

/// Translates `module` (the LLVM dialect with the artifact ABI) to LLVM IR,
/// optimises it for `targetCpu` and emits its object files (one per
/// partition when code generation is split over threads). `info.targetCpu`
/// becomes the CPU's name.
static llvm::Expected<jeet::detail::ObjectFiles>
emitObjects(ModuleOp module, llvm::StringRef sourceName, ArtifactInfo &info,
            jeet::detail::DiagnosticCollector &diagnostics,
            bool printPassTimes) {
  // The threads of code generation make their machines from the CPU asked
  // for ("host": this one's features), not from its resolved name.
  std::string cpu = info.targetCpu;
  auto machine = createTargetMachine(cpu);
  if (!machine)
    return machine.takeError();
  if (info.targetCpu == "host")
    info.targetCpu = llvm::sys::getHostCPUName().str();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, sourceName);
  if (!llvmModule)
    return diagnostics.fail("translation to LLVM IR failed");
  finishArtifactModule(*llvmModule);
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  std::string verifyErrors;
  llvm::raw_string_ostream verifyStream(verifyErrors);
  if (llvm::verifyModule(*llvmModule, &verifyStream))
    return llvm::createStringError("the artifact's LLVM IR does not verify: " +
                                   verifyErrors);

  return jeet::detail::compileObjectFiles(
      *llvmModule, **machine, [cpu] { return createTargetMachine(cpu); },
      jeet::detail::codegenThreads(), printPassTimes, [] {});
}

/// Writes `objects` to temporary files and links them into `outputPath`.
static llvm::Error writeArtifact(llvm::ArrayRef<std::string> objects,
                                 const ArtifactOptions &options,
                                 llvm::StringRef outputPath) {
  std::vector<TempFile> objectFiles(objects.size());
  llvm::SmallVector<llvm::StringRef> objectPaths;
  for (auto [object, file] : llvm::zip_equal(objects, objectFiles)) {
    int fd;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "jeet-artifact", "o", fd, file.path))
      return llvm::createStringError(ec, "cannot create a temporary file");
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
    os.close();
    if (os.has_error()) {
      std::error_code error = os.error();
      os.clear_error();
      return llvm::createStringError(error, "cannot write " + file.path);
    }
    objectPaths.push_back(file.path);
  }

  // Link next to the output, then rename: a failed link never leaves a
  // half-written artifact behind.
  llvm::SmallString<128> partial(outputPath);
  partial += ".partial";
  if (llvm::Error error =
          linkSharedObject(options.linker, objectPaths, partial,
                           options.openmp && options.compile.device == "cpu")) {
    llvm::sys::fs::remove(partial);
    return error;
  }
  if (std::error_code ec = llvm::sys::fs::rename(partial, outputPath)) {
    llvm::sys::fs::remove(partial);
    return llvm::createStringError(ec, "cannot write " + outputPath.str());
  }
  return llvm::Error::success();
}

llvm::Expected<ArtifactInfo>
jeet::compileArtifact(llvm::StringRef source, llvm::StringRef sourceName,
                      const ArtifactOptions &options,
                      llvm::StringRef outputPath) {
  const CompileOptions &compile = options.compile;
  if (compile.device != "cpu" && compile.device != "gpu")
    return llvm::createStringError("unknown device '" + compile.device +
                                   "' (expected cpu or gpu)");

  MLIRContext context(MLIRContext::Threading::DISABLED);
  {
    DialectRegistry registry;
    registerAllJeetDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  jeet::detail::DiagnosticCollector diagnostics(context, source, sourceName);
  auto fail = [&](llvm::StringRef what) { return diagnostics.fail(what); };

  ArtifactInfo info;
  std::string error;
  OwningOpRef<ModuleOp> module =
      jeet::detail::parseGraph(context, diagnostics.getSourceMgr(), sourceName,
                               compile.entry, info.inputs, info.outputs, error);
  if (!module)
    return fail(error);
  jeet::detail::keepOnlyEntry(
      *module, module->lookupSymbol<func::FuncOp>(compile.entry));
  if (failed(checkReservedNames(*module)))
    return fail("a reserved name");

  std::string gpuFields;
  llvm::Expected<StagedPipeline> pipeline =
      getArtifactPipeline(options, info, gpuFields);
  if (!pipeline)
    return pipeline.takeError();
  PipelineRunner runner(*pipeline, compile.entry + "-" + compile.device,
                        /*keepIR=*/false);
  if (failed(runner.run(*module, [&](llvm::StringRef name, ModuleOp lowered) {
        if (name == stage::kFused)
          info.numKernels = listKernels(lowered).size();
        if (name == stage::kBufferized || name == stage::kKernels)
          if (auto entry = lowered.lookupSymbol<func::FuncOp>(compile.entry))
            if (auto plan =
                    entry->getAttrOfType<DictionaryAttr>(kMemoryPlanAttr))
              if (auto bytes = plan.getAs<IntegerAttr>("arena_bytes"))
                info.arenaBytes = bytes.getInt();
      })))
    return fail("the " + runner.failedStage().str() + " stage of " +
                pipeline->description + " failed");

  info.signature =
      formatArtifactSignature(compile.entry, compile.device, info.inputs,
                              info.outputs, info.numKernels, info.arenaBytes) +
      gpuFields;
  if (failed(addArtifactABI(*module, compile.entry, info.signature)))
    return fail("cannot add the artifact ABI");

  // LLVM IR, optimised for the target CPU, and the object file in memory.
  info.targetCpu = options.targetCpu.empty()
                       ? (compile.device == "cpu" ? "host" : "generic")
                       : options.targetCpu;
  StepClock objectClock;
  auto objects = emitObjects(*module, sourceName, info, diagnostics,
                             runner.printPassTimes());
  if (!objects)
    return objects.takeError();
  runner.reportStep("object", objectClock, objects->describe());

  StepClock linkClock;
  if (llvm::Error error = writeArtifact(objects->objects, options, outputPath))
    return std::move(error);
  runner.reportStep("link", linkClock);
  return info;
}
