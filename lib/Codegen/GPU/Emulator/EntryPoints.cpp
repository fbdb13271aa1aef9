//===- EntryPoints.cpp - Exported kernel entries and metadata -------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Step 3 of jeet-gpu-lower-to-emulator. cuLaunchKernel hands the emulator an
// array of pointers, one per parameter of the lowered kernel; the entry
// __jeet_emu_kernel_K unpacks it into the kernel's arguments, and the
// metadata symbols tell the emulator how many parameters there are, how many
// bytes each takes (to copy them when a launch is enqueued) and how much
// shared memory the kernel's workgroup attributions take.
//
//===----------------------------------------------------------------------===//

#include "EmulatorABI.h"

#include "jeet/Emulator/KernelABI.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

using namespace mlir;
using namespace jeet::emu;

/// Defines `void __jeet_emu_kernel_K(void **params)` for the kernel `kernel`.
static void addEntry(OpBuilder &builder, LLVM::LLVMFuncOp kernel) {
  MLIRContext *context = builder.getContext();
  Location loc = kernel.getLoc();
  Type ptrType = LLVM::LLVMPointerType::get(context);
  auto entry = LLVM::LLVMFuncOp::create(
      builder, loc, (JEET_EMU_KERNEL_PREFIX + kernel.getName()).str(),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {ptrType}));
  OpBuilder::InsertionGuard guard(builder);
  Block *block = entry.addEntryBlock(builder);
  builder.setInsertionPointToStart(block);
  Value params = block->getArgument(0);
  SmallVector<Value> arguments;
  for (auto [index, type] :
       llvm::enumerate(kernel.getFunctionType().getParams())) {
    Value slot = LLVM::GEPOp::create(
        builder, loc, ptrType, ptrType, params,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
    Value parameter = LLVM::LoadOp::create(builder, loc, ptrType, slot);
    // A launch may copy its parameters packed by size, without padding.
    arguments.push_back(
        LLVM::LoadOp::create(builder, loc, type, parameter, /*alignment=*/1));
  }
  LLVM::CallOp::create(builder, loc, kernel, arguments);
  LLVM::ReturnOp::create(builder, loc, ValueRange());
}

/// Defines an exported constant.
static void addConstant(OpBuilder &builder, Location loc, const Twine &name,
                        Type type, Attribute value) {
  LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                         LLVM::Linkage::External, name.str(), value);
}

/// Defines the number of parameters of `kernel`, their sizes and the bytes
/// of its workgroup attributions.
static void addMetadata(OpBuilder &builder, LLVM::LLVMFuncOp kernel,
                        const KernelInfo &info) {
  Location loc = kernel.getLoc();
  Type i64 = builder.getI64Type();
  DataLayout layout = DataLayout::closest(kernel);
  SmallVector<int64_t> sizes;
  for (Type type : kernel.getFunctionType().getParams())
    sizes.push_back(layout.getTypeSize(type).getFixedValue());
  StringRef name = kernel.getName();
  addConstant(builder, loc, JEET_EMU_NUM_PARAMS_PREFIX + name, i64,
              builder.getI64IntegerAttr(sizes.size()));
  // A C array has at least one element: a kernel without parameters
  // defines one unused size.
  SmallVector<int64_t> stored = sizes.empty() ? SmallVector<int64_t>{0} : sizes;
  auto arrayType = LLVM::LLVMArrayType::get(i64, stored.size());
  auto tensorType =
      RankedTensorType::get({static_cast<int64_t>(stored.size())}, i64);
  addConstant(builder, loc, JEET_EMU_PARAM_SIZES_PREFIX + name, arrayType,
              DenseElementsAttr::get(tensorType, ArrayRef<int64_t>(stored)));
  addConstant(builder, loc, JEET_EMU_STATIC_SHARED_PREFIX + name, i64,
              builder.getI64IntegerAttr(info.staticSharedBytes));
}

LogicalResult jeet::emu::addEntryPoints(gpu::GPUModuleOp module,
                                        ArrayRef<KernelInfo> kernels) {
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  for (const KernelInfo &info : kernels) {
    auto kernel = module.lookupSymbol<LLVM::LLVMFuncOp>(info.name);
    if (!kernel)
      return module.emitError("kernel '")
             << info.name << "' was not lowered to an llvm.func";
    // Launches look the kernel up by name; only its entry is exported.
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    builder.getUnitAttr());
    kernel.setLinkage(LLVM::Linkage::Internal);
    addEntry(builder, kernel);
    addMetadata(builder, kernel, info);
  }
  addConstant(builder, module.getLoc(), JEET_EMU_ABI_VERSION_SYMBOL,
              builder.getI32Type(),
              builder.getI32IntegerAttr(JEET_EMU_ABI_VERSION));
  return success();
}
