//===- LowerToEmulator.cpp - jeet-gpu-lower-to-emulator -------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Kernels for the host, in three steps (EmulatorABI.h): gpu ops to calls
// into the emulator and gpu.func to func.func (KernelsToFunctions.cpp);
// everything to the LLVM dialect, with checked loads and stores
// (AccessChecks.cpp); the exported entries and metadata (EntryPoints.cpp)
// and the compiler runtime functions the object defines (HostBuiltins.cpp).
//
//===----------------------------------------------------------------------===//

#include "EmulatorABI.h"

#include "jeet/Codegen/GPU/Emulator/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace jeet {
#define GEN_PASS_DEF_JEETGPULOWERTOEMULATORPASS
#include "jeet/Codegen/GPU/Emulator/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet::emu;

/// Math ops become LLVM intrinsics where LLVM has them, libm calls
/// otherwise (as on the CPU path); either way the object calls libm, whose
/// symbols resolve when the emulator loads it.
static LogicalResult lowerMath(gpu::GPUModuleOp module,
                               const LLVMTypeConverter &converter) {
  MLIRContext *context = module.getContext();
  RewritePatternSet intrinsics(context);
  populateMathToLLVMConversionPatterns(converter, intrinsics);
  LLVMConversionTarget target(*context);
  if (failed(applyPartialConversion(module, target, std::move(intrinsics))))
    return failure();
  // Only the math ops left: the rest of the module stays as it is.
  SmallVector<Operation *> remaining;
  module.walk([&](Operation *op) {
    if (isa<math::MathDialect>(op->getDialect()))
      remaining.push_back(op);
  });
  if (remaining.empty())
    return success();
  RewritePatternSet libm(context);
  populateMathToLibmConversionPatterns(libm);
  GreedyRewriteConfig config;
  config.enableFolding(false).enableConstantCSE(false).setStrictness(
      GreedyRewriteStrictness::ExistingAndNewOps);
  return applyOpPatternsGreedily(remaining, std::move(libm), config);
}

/// Lowers everything in `module` to the LLVM dialect, checking `accesses`.
static LogicalResult convertToLLVM(gpu::GPUModuleOp module,
                                   const LLVMTypeConverter &converter,
                                   const CheckedAccesses &accesses) {
  MLIRContext *context = module.getContext();
  RewritePatternSet patterns(context);
  populateCheckedAccessPatterns(converter, accesses, patterns);
  populateFuncToLLVMConversionPatterns(converter, patterns);
  populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  // As convert-gpu-to-nvvm does: the index divisions of the kernels'
  // mapping (floordivsi, ceildivsi) as the arith ops they expand to.
  arith::populateCeilFloorDivExpandOpsPatterns(patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  index::populateIndexToLLVMConversionPatterns(converter, patterns);
  populateVectorToLLVMConversionPatterns(converter, patterns);
  ub::populateUBToLLVMConversionPatterns(converter, patterns);
  LLVMConversionTarget target(*context);
  target.addIllegalDialect<
      arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
      gpu::GPUDialect, index::IndexDialect, math::MathDialect,
      memref::MemRefDialect, ub::UBDialect, vector::VectorDialect>();
  target.addLegalOp<gpu::GPUModuleOp>();
  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return failure();

  SmallVector<UnrealizedConversionCastOp> casts, remaining;
  module.walk([&](UnrealizedConversionCastOp cast) { casts.push_back(cast); });
  reconcileUnrealizedCasts(casts, &remaining);
  if (!remaining.empty())
    return remaining.front().emitError(
        "cannot lower this value to LLVM for the emulation target");
  return success();
}

namespace {
struct LowerToEmulatorPass
    : public jeet::impl::JeetGpuLowerToEmulatorPassBase<LowerToEmulatorPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    LowerToLLVMOptions options(context, DataLayout(module));
    LLVMTypeConverter converter(context, options);
    // The host has one address space: global, workgroup and private memory
    // are all ordinary pointers.
    populateGpuMemorySpaceAttributeConversions(
        converter, [](gpu::AddressSpace) { return 0u; });

    SiteStrings sites(module);
    SmallVector<KernelInfo> kernels;
    if (failed(lowerKernelsToFunctions(module, converter, sites, kernels)) ||
        failed(lowerMath(module, converter)))
      return signalPassFailure();
    CheckedAccesses accesses;
    if (checks)
      accesses = collectCheckedAccesses(module, sites);
    if (failed(convertToLLVM(module, converter, accesses)) ||
        failed(addEntryPoints(module, kernels)))
      return signalPassFailure();
    addHostBuiltins(module);
  }
};
} // namespace
