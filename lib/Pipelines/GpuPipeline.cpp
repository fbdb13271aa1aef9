//===- GpuPipeline.cpp - The jeet-gpu-pipeline ----------------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// graph (decompose, fuse) -> jeet-gpu-form-kernels (one forall per group)
// -> bufferize (frees after last use) -> jeet-gpu-map-kernels (one gpu.launch
// per forall, gpu.alloc/gpu.dealloc on the host) -> outlining -> async
// region (one stream, no host sync between kernels) -> NVVM -> PTX
// (gpu-module-to-binary) -> host code to LLVM (gpu-to-llvm: mgpu* calls).
//
//===----------------------------------------------------------------------===//

#include "jeet/Pipelines/GpuPipeline.h"

#include "jeet/Codegen/CPU/Passes.h"
#include "jeet/Codegen/Common/Passes.h"
#include "jeet/Codegen/GPU/Emulator/Passes.h"
#include "jeet/Codegen/GPU/Passes.h"
#include "jeet/Pipelines/PipelineRunner.h"
#include "jeet/Target/Emulator/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <memory>

using namespace mlir;

/// Threads of a warp, and the most threads a block may have, on every chip
/// the pipeline supports: a block is whole warps.
static constexpr int64_t kWarpSize = 32;
static constexpr int64_t kMaxThreadsPerBlock = 1024;

llvm::ArrayRef<llvm::StringRef> jeet::getSupportedGpuChips() {
  static const llvm::StringRef chips[] = {"sm_80", "sm_86", "sm_89", "sm_90"};
  return chips;
}

llvm::ArrayRef<llvm::StringRef> jeet::getSupportedGpuTargets() {
  static const llvm::StringRef targets[] = {"ptx", "emulator"};
  return targets;
}

/// Whether the kernels are compiled for the CUDA driver emulator.
static bool isEmulatorTarget(const jeet::GpuPipelineOptions &options) {
  return options.target == "emulator";
}

llvm::Error jeet::verifyGpuPipelineOptions(const GpuPipelineOptions &options) {
  if (!llvm::is_contained(getSupportedGpuTargets(), options.target))
    return llvm::createStringError(
        "unknown GPU target '" + options.target +
        "'; supported targets: " + llvm::join(getSupportedGpuTargets(), ", "));
  if (!isEmulatorTarget(options) &&
      !llvm::is_contained(getSupportedGpuChips(), options.chip))
    return llvm::createStringError(
        "unsupported GPU chip '" + options.chip +
        "'; supported chips: " + llvm::join(getSupportedGpuChips(), ", "));
  static const llvm::StringRef formats[] = {"isa", "bin", "fatbin"};
  if (!isEmulatorTarget(options) &&
      !llvm::is_contained(formats, options.format))
    return llvm::createStringError("unsupported GPU binary format '" +
                                   options.format +
                                   "'; supported formats: isa, bin, fatbin");
  if (options.blockSize < kWarpSize ||
      options.blockSize > kMaxThreadsPerBlock ||
      options.blockSize % kWarpSize != 0)
    return llvm::createStringError(
        llvm::formatv(
            "block-size must be a multiple of {0} between {0} and {1}, got {2}",
            kWarpSize, kMaxThreadsPerBlock, options.blockSize)
            .str());
  return llvm::Error::success();
}

void jeet::buildJeetGpuKernelPipeline(OpPassManager &pm,
                                      const GpuPipelineOptions &options) {
  pm.addPass(createJeetGpuFormKernelsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  buildJeetBufferizePipeline(pm);
  JeetGpuMapKernelsPassOptions mapOptions;
  mapOptions.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createJeetGpuMapKernelsPass(mapOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addNestedPass<func::FuncOp>(createJeetGpuSinkGlobalsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createJeetGpuMergeModulesPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createJeetGpuAlignWorkgroupMemoryPass());
  // Intermediates in one arena the caller supplies: the host code allocates
  // nothing.
  pm.addPass(createJeetPlanMemoryPass());
  // Every gpu op of the host function joins one chain of async tokens,
  // ordered on one stream: the caller's, and the caller decides when to
  // wait.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addNestedPass<func::FuncOp>(createJeetGpuCallerStreamPass());
}

void jeet::buildJeetGpuCodegenPipeline(OpPassManager &pm,
                                       const GpuPipelineOptions &options) {
  // Common to kernels and host.
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  if (isEmulatorTarget(options)) {
    JeetEmulatorAttachTargetPassOptions target;
    target.optLevel = options.optLevel;
    pm.addPass(createJeetEmulatorAttachTargetPass(target));
  } else {
    GpuNVVMAttachTargetOptions target;
    target.chip = options.chip;
    target.features = options.features;
    target.optLevel = options.optLevel;
    pm.addPass(createGpuNVVMAttachTarget(target));
  }
  pm.addPass(createLowerAffinePass());
  // The host's arith ops; each kernel lowering converts its kernels' own
  // (the NVVM one arith.remf to libdevice's fmodf: LLVM's frem, which a
  // conversion here would leave, has no PTX instruction).
  pm.addNestedPass<func::FuncOp>(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Kernels: for the GPU, or for the host with the emulator's kernel ABI
  // (whose f32 to bf16 rounding keeps subnormals, as cvt.rn.bf16.f32 does:
  // see jeet-expand-bf16).
  if (isEmulatorTarget(options)) {
    pm.addNestedPass<gpu::GPUModuleOp>(createJeetExpandBFloat16Pass());
    pm.addNestedPass<gpu::GPUModuleOp>(createJeetGpuLowerToEmulatorPass());
  } else {
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  }
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  // Host.
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  // The emulator's object is a shared object whatever `format` says.
  binary.compilationTarget = isEmulatorTarget(options)
                                 ? std::string("bin")
                                 : options.format.getValue();
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // A device allocation that fails (mgpuMemAlloc returns null) stops the
  // host function after freeing what it holds and releasing its stream.
  pm.addPass(createJeetCpuCheckAllocationsPass());
}

jeet::StagedPipeline
jeet::getJeetGpuPipeline(const GpuPipelineOptions &options) {
  // The stages' builders outlive `options`: they hold a copy.
  auto copy = std::make_shared<GpuPipelineOptions>();
  copy->copyOptionValuesFrom(options);
  StagedPipeline pipeline;
  pipeline.description = describePipeline("jeet-gpu-pipeline", options);
  pipeline.stages = {
      {stage::kFused.str(),
       [copy](OpPassManager &pm) {
         // Multi-reduction groups over trailing axes, rows of any length:
         // jeet-gpu-form-kernels makes each one kernel.
         buildJeetGraphPipeline(pm, copy->fuse, copy->maxFusionOps,
                                /*multiReduction=*/true,
                                getGpuMaxRowGroupBytes());
       }},
      {stage::kKernels.str(),
       [copy](OpPassManager &pm) { buildJeetGpuKernelPipeline(pm, *copy); }},
      {stage::kLLVM.str(),
       [copy](OpPassManager &pm) { buildJeetGpuCodegenPipeline(pm, *copy); }},
  };
  // Emulator objects are host machine code: there is no text to show.
  if (!isEmulatorTarget(options))
    pipeline.products = {{stage::kPTX.str(), "ptx", getGpuBinariesPTX}};
  return pipeline;
}

void jeet::buildJeetGpuPipeline(OpPassManager &pm,
                                const GpuPipelineOptions &options) {
  getJeetGpuPipeline(options).build(pm);
}

/// Registers a pipeline built from checked GpuPipelineOptions.
static void registerGpuPipeline(
    StringRef name, StringRef description,
    void (*build)(OpPassManager &, const jeet::GpuPipelineOptions &)) {
  registerPassPipeline(
      name, description,
      [build](OpPassManager &pm, StringRef text,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        jeet::GpuPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (llvm::Error error = jeet::verifyGpuPipelineOptions(options))
          return errorHandler(llvm::toString(std::move(error)));
        build(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionsHandler) {
        optionsHandler(jeet::GpuPipelineOptions());
      });
}

static void buildGraphAndKernels(OpPassManager &pm,
                                 const jeet::GpuPipelineOptions &options) {
  jeet::getJeetGpuPipeline(options).build(pm, jeet::stage::kKernels);
}

void jeet::registerJeetGpuPipelines() {
  registerJeetGpuPasses();
  registerGpuPipeline(
      "jeet-gpu-pipeline",
      "Compiles a jeet graph for NVIDIA GPUs: decompose, fuse, one kernel "
      "per fusion group, bufferize with frees after last use, NVVM and PTX, "
      "host code calling the mgpu* runtime ABI on one stream",
      buildJeetGpuPipeline);
  registerGpuPipeline(
      "jeet-gpu-kernel-pipeline",
      "The stages of jeet-gpu-pipeline up to outlined kernels (gpu.module, "
      "gpu.launch_func and gpu.alloc/gpu.dealloc on one async chain), "
      "before NVVM",
      buildGraphAndKernels);
}

/// Appends the PTX of every kernel held by the gpu.binary ops of `module` to
/// `os`; the first binary that holds no PTX text stops the walk.
static WalkResult
walkGpuBinariesPTX(ModuleOp module, raw_ostream &os,
                   function_ref<void(gpu::BinaryOp)> notText) {
  bool found = false;
  WalkResult result = module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      if (object.getFormat() != gpu::CompilationTarget::Assembly) {
        notText(binary);
        return WalkResult::interrupt();
      }
      os << "// kernels of gpu.module @" << binary.getName() << " for "
         << object.getTarget() << "\n"
         << object.getObject().getValue() << "\n";
      found = true;
    }
    return WalkResult::advance();
  });
  if (!result.wasInterrupted() && !found)
    os << "// no kernels\n";
  return result;
}

LogicalResult jeet::printGpuBinariesAsPTX(ModuleOp module, raw_ostream &os) {
  WalkResult result = walkGpuBinariesPTX(module, os, [](gpu::BinaryOp binary) {
    binary.emitError("holds a binary object, not PTX text (compile with "
                     "format=isa)");
  });
  return failure(result.wasInterrupted());
}

std::optional<std::string> jeet::getGpuBinariesPTX(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (walkGpuBinariesPTX(module, os, [](gpu::BinaryOp) {}).wasInterrupted())
    return std::nullopt;
  return text;
}

LogicalResult
jeet::translateJeetToEmulatorObject(ModuleOp module, raw_ostream &os,
                                    const GpuPipelineOptions &options) {
  GpuPipelineOptions emulatorOptions;
  emulatorOptions.copyOptionValuesFrom(options);
  emulatorOptions.target = "emulator";
  if (llvm::Error error = verifyGpuPipelineOptions(emulatorOptions))
    return mlir::emitError(module.getLoc(), llvm::toString(std::move(error)));
  StagedPipeline pipeline = getJeetGpuPipeline(emulatorOptions);
  PipelineRunner runner(pipeline, "jeet-to-emulator-object", /*keepIR=*/false);
  if (failed(runner.run(module)))
    return failure();
  auto binaries = llvm::to_vector(module.getOps<gpu::BinaryOp>());
  if (binaries.empty())
    return mlir::emitError(module.getLoc(), "the graph has no GPU kernels");
  for (Attribute attr : binaries.front().getObjects())
    os << cast<gpu::ObjectAttr>(attr).getObject().getValue();
  return success();
}

LogicalResult jeet::translateJeetToPTX(ModuleOp module, raw_ostream &os,
                                       const GpuPipelineOptions &options) {
  GpuPipelineOptions ptxOptions;
  ptxOptions.copyOptionValuesFrom(options);
  ptxOptions.format = "isa";
  if (llvm::Error error = verifyGpuPipelineOptions(ptxOptions))
    return mlir::emitError(module.getLoc(), llvm::toString(std::move(error)));
  StagedPipeline pipeline = getJeetGpuPipeline(ptxOptions);
  PipelineRunner runner(pipeline, "jeet-to-ptx", /*keepIR=*/false);
  if (failed(runner.run(module)))
    return failure();
  return printGpuBinariesAsPTX(module, os);
}
