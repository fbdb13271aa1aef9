//===- KernelsToFunctions.cpp - gpu ops to emulator calls -----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Step 1 of jeet-gpu-lower-to-emulator. On the host a kernel is an ordinary
// function that the emulator calls once per thread: what the GPU gives a
// thread in registers (ids, dimensions, its block's shared memory) it reads
// from the thread state the emulator hands out, and what needs the other
// threads (barriers, shuffles) is a call into the emulator, which switches
// to them.
//
//===----------------------------------------------------------------------===//

#include "EmulatorABI.h"

#include "jeet/Emulator/KernelABI.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace jeet::emu;

/// Threads per warp: the emulator's lanes and gpu.subgroup_size.
static constexpr int64_t kWarpSize = 32;
/// Each workgroup attribution starts at a multiple of this many bytes of the
/// block's shared memory (itself 16-byte aligned), so that vector accesses
/// of up to 16 bytes that are aligned within the attribution stay aligned.
static constexpr int64_t kSharedAlignment = 16;

namespace {
/// Lowers the gpu ops of one gpu.func and turns it into a func.func.
class KernelLowering {
public:
  KernelLowering(gpu::GPUFuncOp func, const LLVMTypeConverter &converter,
                 SiteStrings &sites)
      : func(func), module(func->getParentOp()), converter(converter),
        sites(sites), context(func.getContext()),
        prologue(&func.front(), func.front().begin()),
        ptrType(LLVM::LLVMPointerType::get(context)),
        i8(IntegerType::get(context, 8)), i32(IntegerType::get(context, 32)),
        i64(IntegerType::get(context, 64)) {}

  /// Lowers the function; `info` receives its static shared memory size.
  LogicalResult run(KernelInfo &info);

private:
  /// At the start of the entry block, before anything else is rewritten:
  /// reads the running thread's JeetEmuThreadState and, where needed, its
  /// block's shared memory, and allocates the byte a gpu.shuffle's `valid`
  /// comes back in.
  void createPrologue();
  /// Loads a field of the thread state (element `dim` of the id and
  /// dimension arrays).
  Value readField(OpBuilder &builder, Location loc, ThreadStateField field,
                  std::optional<unsigned> dim);

  LogicalResult lowerAttributions(int64_t &staticSharedBytes);
  LogicalResult lowerOp(Operation *op, int64_t staticSharedBytes);
  LogicalResult lowerShuffle(gpu::ShuffleOp op);
  /// A view of `bytesOffset` bytes into the block's shared memory with the
  /// type `type` (static shapes; identity or empty layout).
  Value sharedView(OpBuilder &builder, Location loc, MemRefType type,
                   int64_t bytesOffset);
  void replaceWithFunction();

  gpu::GPUFuncOp func;
  Operation *module;
  const LLVMTypeConverter &converter;
  SiteStrings &sites;
  MLIRContext *context;
  /// Inserts at the start of the entry block, in creation order; used before
  /// any op is erased.
  OpBuilder prologue;
  Type ptrType, i8, i32, i64;
  /// The thread state, the block's shared memory and the shuffles' slot.
  Value state, shared, valid;
};
} // namespace

void KernelLowering::createPrologue() {
  Location loc = func.getLoc();
  LLVM::LLVMFuncOp getState =
      declareFunction(prologue, module, "__jeet_emu_thread_state", ptrType, {});
  state =
      LLVM::CallOp::create(prologue, loc, getState, ValueRange()).getResult();
  bool usesShared = !func.getWorkgroupAttributions().empty();
  bool shuffles = false;
  func.walk([&](Operation *op) {
    usesShared |= isa<gpu::DynamicSharedMemoryOp>(op);
    shuffles |= isa<gpu::ShuffleOp>(op);
  });
  if (usesShared)
    shared = readField(prologue, loc, ThreadStateField::Shared, std::nullopt);
  if (shuffles) {
    Value one = LLVM::ConstantOp::create(prologue, loc, i64,
                                         prologue.getI64IntegerAttr(1));
    valid = LLVM::AllocaOp::create(prologue, loc, ptrType, i8, one);
  }
}

Value KernelLowering::readField(OpBuilder &builder, Location loc,
                                ThreadStateField field,
                                std::optional<unsigned> dim) {
  SmallVector<LLVM::GEPArg> indices = {0, static_cast<int32_t>(field)};
  if (dim)
    indices.push_back(static_cast<int32_t>(*dim));
  Value address =
      LLVM::GEPOp::create(builder, loc, ptrType, getThreadStateType(context),
                          state, indices, LLVM::GEPNoWrapFlags::inbounds);
  Type type = field == ThreadStateField::Shared ? ptrType : i64;
  return LLVM::LoadOp::create(builder, loc, type, address);
}

Value KernelLowering::sharedView(OpBuilder &builder, Location loc,
                                 MemRefType type, int64_t bytesOffset) {
  Value address = LLVM::GEPOp::create(
      builder, loc, ptrType, i8, shared,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(bytesOffset)},
      LLVM::GEPNoWrapFlags::inbounds);
  Value descriptor =
      MemRefDescriptor::fromStaticShape(builder, loc, converter, type, address);
  // The conversion to LLVM turns the memref back into this descriptor.
  return UnrealizedConversionCastOp::create(builder, loc, type, descriptor)
      .getResult(0);
}

LogicalResult KernelLowering::lowerAttributions(int64_t &staticSharedBytes) {
  DataLayout layout = DataLayout::closest(func);
  staticSharedBytes = 0;
  for (BlockArgument attribution : func.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(attribution.getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return func.emitError("workgroup attribution #")
             << attribution.getArgNumber() - func.getNumArguments() << " ("
             << type
             << ") needs a static shape and an identity layout on the "
                "emulation target";
    int64_t offset = llvm::alignTo(staticSharedBytes, kSharedAlignment);
    int64_t bytes = type.getNumElements() *
                    layout.getTypeSize(type.getElementType()).getFixedValue();
    attribution.replaceAllUsesWith(
        sharedView(prologue, func.getLoc(), type, offset));
    staticSharedBytes = offset + bytes;
  }
  for (BlockArgument attribution : func.getPrivateAttributions()) {
    auto type = cast<MemRefType>(attribution.getType());
    attribution.replaceAllUsesWith(
        memref::AllocaOp::create(prologue, func.getLoc(), type));
  }
  return success();
}

LogicalResult KernelLowering::lowerShuffle(gpu::ShuffleOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  Value value = op.getValue();
  Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits != 32 && bits != 64)
    return op.emitOpError("of ")
           << type << " values is not supported by the emulation target";
  int32_t mode = JEET_EMU_SHUFFLE_XOR;
  switch (op.getMode()) {
  case gpu::ShuffleMode::XOR:
    mode = JEET_EMU_SHUFFLE_XOR;
    break;
  case gpu::ShuffleMode::DOWN:
    mode = JEET_EMU_SHUFFLE_DOWN;
    break;
  case gpu::ShuffleMode::UP:
    mode = JEET_EMU_SHUFFLE_UP;
    break;
  case gpu::ShuffleMode::IDX:
    mode = JEET_EMU_SHUFFLE_IDX;
    break;
  }
  LLVM::LLVMFuncOp shuffle =
      declareFunction(builder, module, "__jeet_emu_shuffle32", i32,
                      {i32, i32, i32, i32, ptrType});
  Value modeValue = LLVM::ConstantOp::create(builder, loc, i32,
                                             builder.getI32IntegerAttr(mode));
  Value slot = valid;
  auto exchange = [&](Value word) -> Value {
    return LLVM::CallOp::create(
               builder, loc, shuffle,
               ValueRange{word, op.getOffset(), op.getWidth(), modeValue, slot})
        .getResult();
  };

  Type wordType = IntegerType::get(context, bits);
  Value word = type.isInteger()
                   ? value
                   : LLVM::BitcastOp::create(builder, loc, wordType, value);
  Value exchanged;
  if (bits == 32) {
    exchanged = exchange(word);
  } else {
    // Two 32-bit exchanges with the same partner: low half, then high half.
    Value shift = LLVM::ConstantOp::create(builder, loc, i64,
                                           builder.getI64IntegerAttr(32));
    Value low = LLVM::TruncOp::create(builder, loc, i32, word);
    Value high = LLVM::TruncOp::create(
        builder, loc, i32, LLVM::LShrOp::create(builder, loc, word, shift));
    Value newLow = LLVM::ZExtOp::create(builder, loc, i64, exchange(low));
    Value newHigh = LLVM::ZExtOp::create(builder, loc, i64, exchange(high));
    exchanged =
        LLVM::OrOp::create(builder, loc, newLow,
                           LLVM::ShlOp::create(builder, loc, newHigh, shift));
  }
  Value result = type.isInteger()
                     ? exchanged
                     : LLVM::BitcastOp::create(builder, loc, type, exchanged);
  Value flag = LLVM::LoadOp::create(builder, loc, i8, slot);
  Value zero =
      LLVM::ConstantOp::create(builder, loc, i8, builder.getI8IntegerAttr(0));
  Value isValid =
      LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne, flag, zero);
  op.replaceAllUsesWith(ValueRange{result, isValid});
  op.erase();
  return success();
}

LogicalResult KernelLowering::lowerOp(Operation *op,
                                      int64_t staticSharedBytes) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto replaceWithField = [&](ThreadStateField field,
                              std::optional<gpu::Dimension> dim) {
    std::optional<unsigned> index;
    if (dim)
      index = static_cast<unsigned>(*dim);
    Value value = readField(builder, loc, field, index);
    op->replaceAllUsesWith(
        arith::IndexCastOp::create(builder, loc, builder.getIndexType(), value)
            ->getResults());
    op->erase();
    return success();
  };

  if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
    return replaceWithField(ThreadStateField::ThreadId, id.getDimension());
  if (auto id = dyn_cast<gpu::BlockIdOp>(op))
    return replaceWithField(ThreadStateField::BlockId, id.getDimension());
  if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
    return replaceWithField(ThreadStateField::BlockDim, dim.getDimension());
  if (auto dim = dyn_cast<gpu::GridDimOp>(op))
    return replaceWithField(ThreadStateField::GridDim, dim.getDimension());
  if (isa<gpu::LaneIdOp>(op))
    return replaceWithField(ThreadStateField::LaneId, std::nullopt);
  if (isa<gpu::SubgroupSizeOp>(op)) {
    op->replaceAllUsesWith(
        arith::ConstantIndexOp::create(builder, loc, kWarpSize)->getResults());
    op->erase();
    return success();
  }
  if (isa<gpu::BarrierOp>(op)) {
    LLVM::LLVMFuncOp barrier =
        declareFunction(builder, module, "__jeet_emu_barrier",
                        LLVM::LLVMVoidType::get(context), {ptrType});
    LLVM::CallOp::create(builder, loc, barrier,
                         ValueRange{sites.address(builder, loc, op)});
    op->erase();
    return success();
  }
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op))
    return lowerShuffle(shuffle);
  if (auto dynamic = dyn_cast<gpu::DynamicSharedMemoryOp>(op)) {
    // The launch's dynamic shared memory follows the attributions. Its size
    // is only known at launch: the descriptor says 0 bytes, as upstream's
    // lowering does, and memref.view gives it shapes.
    auto type = MemRefType::get({0}, IntegerType::get(context, 8),
                                MemRefLayoutAttrInterface(),
                                dynamic.getType().getMemorySpace());
    Value view = sharedView(builder, loc, type,
                            llvm::alignTo(staticSharedBytes, kSharedAlignment));
    op->replaceAllUsesWith(
        memref::CastOp::create(builder, loc, dynamic.getType(), view)
            ->getResults());
    op->erase();
    return success();
  }
  if (isa<gpu::ReturnOp>(op))
    return success(); // Becomes func.return with the function.
  return op->emitOpError("is not supported by the emulation target");
}

void KernelLowering::replaceWithFunction() {
  unsigned numArguments = func.getNumArguments();
  OpBuilder builder(func);
  auto function = func::FuncOp::create(builder, func.getLoc(), func.getName(),
                                       func.getFunctionType());
  if (ArrayAttr argAttrs = func.getAllArgAttrs())
    function.setAllArgAttrs(argAttrs);
  if (func.isKernel())
    function->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                      builder.getUnitAttr());
  function.getBody().takeBody(func.getBody());
  Block &entry = function.front();
  // The attributions have no uses left.
  entry.eraseArguments(numArguments, entry.getNumArguments() - numArguments);
  function.walk([&](gpu::ReturnOp ret) {
    OpBuilder returnBuilder(ret);
    func::ReturnOp::create(returnBuilder, ret.getLoc(), ret.getOperands());
    ret.erase();
  });
  func.erase();
}

LogicalResult KernelLowering::run(KernelInfo &info) {
  info.name = func.getName().str();
  createPrologue();
  if (failed(lowerAttributions(info.staticSharedBytes)))
    return failure();
  SmallVector<Operation *> gpuOps;
  func.walk([&](Operation *op) {
    if (op != func && isa<gpu::GPUDialect>(op->getDialect()))
      gpuOps.push_back(op);
  });
  for (Operation *op : gpuOps)
    if (failed(lowerOp(op, info.staticSharedBytes)))
      return failure();
  replaceWithFunction();
  return success();
}

LogicalResult jeet::emu::lowerKernelsToFunctions(
    gpu::GPUModuleOp module, const LLVMTypeConverter &converter,
    SiteStrings &sites, SmallVectorImpl<KernelInfo> &kernels) {
  SmallVector<gpu::GPUFuncOp> functions(module.getOps<gpu::GPUFuncOp>());
  for (gpu::GPUFuncOp func : functions) {
    KernelInfo info;
    bool isKernel = func.isKernel();
    if (failed(KernelLowering(func, converter, sites).run(info)))
      return failure();
    if (isKernel)
      kernels.push_back(std::move(info));
  }
  return success();
}
