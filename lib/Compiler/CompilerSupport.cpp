//===- CompilerSupport.cpp - Pieces the compiler's entry points share -----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "CompilerSupport.h"

#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/GraphSource.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Pass.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;
using namespace jeet;

Type jeet::detail::graphElementType(MLIRContext *context,
                                    runtime::DType dtype) {
  switch (dtype) {
  case runtime::DType::F32:
    return Float32Type::get(context);
  case runtime::DType::F16:
    return Float16Type::get(context);
  case runtime::DType::BF16:
    return BFloat16Type::get(context);
  case runtime::DType::I32:
    return IntegerType::get(context, 32);
  case runtime::DType::I64:
    return IntegerType::get(context, 64);
  case runtime::DType::I1:
    return IntegerType::get(context, 1);
  }
  return nullptr;
}

std::optional<runtime::DType> jeet::detail::graphDType(Type type) {
  for (runtime::DType dtype : runtime::kDTypes)
    if (Type candidate = graphElementType(type.getContext(), dtype);
        candidate && candidate == type)
      return dtype;
  return std::nullopt;
}

std::optional<std::string> jeet::detail::dtypeName(Type type) {
  if (std::optional<runtime::DType> dtype = graphDType(type))
    return runtime::dtypeName(*dtype);
  return std::nullopt;
}

LogicalResult jeet::detail::readSignature(func::FuncOp func,
                                          std::vector<TensorSpec> &inputs,
                                          std::vector<TensorSpec> &outputs) {
  auto read = [&](Type type, StringRef what, unsigned index,
                  std::vector<TensorSpec> &specs) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<std::string> dtype;
    if (tensor)
      dtype = dtypeName(tensor.getElementType());
    if (!tensor || !tensor.hasStaticShape() || !dtype)
      return func.emitError() << what << " #" << index << " of '"
                              << func.getName() << "' has type " << type
                              << "; Jeet graphs take and return statically "
                                 "shaped tensors of f32, f16, bf16, i32, "
                                 "i64 or i1";
    if (!isWithinSizeLimits(tensor))
      return func.emitError()
             << what << " #" << index << " of '" << func.getName()
             << "' has type " << type
             << ", beyond Jeet's size limits (2^40 elements, rank 64)";
    specs.push_back(TensorSpec{std::vector<int64_t>(tensor.getShape().begin(),
                                                    tensor.getShape().end()),
                               *dtype});
    return success();
  };
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (failed(read(type, "argument", i, inputs)))
      return failure();
  for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
    if (failed(read(type, "result", i, outputs)))
      return failure();
  if (outputs.empty())
    return func.emitError() << "'" << func.getName()
                            << "' returns nothing; a graph returns at least "
                               "one tensor";
  return success();
}

OwningOpRef<ModuleOp>
jeet::detail::parseGraph(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                         llvm::StringRef sourceName, llvm::StringRef entry,
                         std::vector<TensorSpec> &inputs,
                         std::vector<TensorSpec> &outputs, std::string &error) {
  OwningOpRef<ModuleOp> module = parseGraphSource(sourceMgr, context);
  if (!module) {
    error = "failed to parse " + sourceName.str() + " as a Jeet graph";
    return nullptr;
  }
  auto func = module->lookupSymbol<func::FuncOp>(entry);
  if (!func) {
    error = sourceName.str() + ": no function named '" + entry.str() + "'";
    return nullptr;
  }
  if (func.isExternal()) {
    func.emitError() << "'" << entry
                     << "' is declared without a body: a graph's entry "
                        "function computes its results";
    error = "an entry function without a body";
    return nullptr;
  }
  if (failed(readSignature(func, inputs, outputs))) {
    error = "unsupported signature";
    return nullptr;
  }
  return module;
}

void jeet::detail::keepOnlyEntry(ModuleOp module, func::FuncOp entry) {
  bool erased = true;
  while (erased) {
    erased = false;
    for (auto other : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (other != entry &&
          SymbolTable::symbolKnownUseEmpty(other, module.getOperation())) {
        other.erase();
        erased = true;
      }
  }
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
jeet::detail::createHostTargetMachine() {
  static std::once_flag initializeNativeTargetOnce;
  std::call_once(initializeNativeTargetOnce, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return machineBuilder.takeError();
  return machineBuilder->createTargetMachine();
}

/// The longest basic block outside loops that code generation sees
/// (outlineLongBlocks). A graph of 2,000 independent outputs (one block of
/// ~18,000 instructions) took 4.1 s of CPU in code generation unsplit, 3.2 s
/// in blocks of 1,000 instructions and 1.3 to 1.5 s in blocks of 100 to 300.
static constexpr size_t kMaxBlockInstructions = 256;

void jeet::detail::optimizeKernelModule(llvm::Module &module,
                                        llvm::TargetMachine &targetMachine,
                                        bool printPassTimes) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = false;
  llvm::PassInstrumentationCallbacks instrumentation;
  llvm::TimePassesHandler passTimes(printPassTimes);
  passTimes.registerCallbacks(instrumentation);
  // CalledValuePropagation annotates indirect calls with their possible
  // callees, which Jeet's kernels do not make; its lattice over the entry
  // point's values grows with the square of the graph's outputs (86% of the
  // optimisation of a graph of 250 independent outputs).
  instrumentation.registerShouldRunOptionalPassCallback(
      [](llvm::StringRef pass, llvm::Any) {
        return pass != "CalledValuePropagationPass";
      });
  llvm::PassBuilder builder(&targetMachine, tuning, std::nullopt,
                            &instrumentation);
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline;
  pipeline.addPass(
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3));
  pipeline.run(module, modules);
  if (printPassTimes)
    passTimes.print();
  outlineLongBlocks(module, kMaxBlockInstructions);
}

llvm::Expected<llvm::SmallVector<char, 0>>
jeet::detail::emitObjectFile(llvm::Module &module,
                             llvm::TargetMachine &targetMachine,
                             bool printPassTimes) {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  // The legacy pass manager of code generation times its passes when this
  // global is set as it runs (what llc -time-passes does). It is written
  // only when it must change: code generation on several threads reads it
  // (ParallelCodegen.cpp runs them only while it is false).
  bool timedBefore = llvm::TimePassesIsEnabled;
  auto setTiming = [&](bool timed) {
    if (llvm::TimePassesIsEnabled != timed)
      llvm::TimePassesIsEnabled = timed;
  };
  setTiming(printPassTimes);
  llvm::legacy::PassManager codegen;
  if (targetMachine.addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile)) {
    setTiming(timedBefore);
    return llvm::createStringError(
        "the target machine cannot emit object files");
  }
  codegen.run(module);
  setTiming(timedBefore);
  if (printPassTimes)
    llvm::reportAndResetTimings(&llvm::errs());
  return object;
}
