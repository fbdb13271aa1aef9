//===- HostBuiltins.cpp - Runtime functions the object defines itself -----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// On a host CPU without bf16 conversion instructions, LLVM's backend turns
// f32 -> bf16 rounding into a call to `__truncsfbf2`, which older libgcc
// releases (GCC 12, Debian 12's) do not have: loading the kernels would then
// fail. The object defines it itself, with hidden visibility, so that the
// call binds inside the object whatever the host.
//
//===----------------------------------------------------------------------===//

#include "EmulatorABI.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace jeet::emu;

/// bf16 keeps the upper half of an f32's bits.
static constexpr int32_t kHalfBits = 16;
/// Rounding to nearest even adds 0x7fff plus the lowest kept bit.
static constexpr int32_t kRoundingBias = 0x7fff;
/// A NaN stays a NaN: the quiet bit of the bf16 result is set.
static constexpr int32_t kQuietNaNBit = 0x40;

/// Whether any value of `module` has bf16 elements.
static bool usesBFloat16(gpu::GPUModuleOp module) {
  auto isBFloat16 = [](Type type) {
    return getElementTypeOrSelf(type).isBF16();
  };
  WalkResult result = module.walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(), isBFloat16) ||
        llvm::any_of(op->getOperandTypes(), isBFloat16))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Defines `bf16 __truncsfbf2(f32)`: round to nearest even, NaNs quiet.
static void defineTruncSFBF2(OpBuilder &builder, Location loc) {
  MLIRContext *context = builder.getContext();
  Type f32 = Float32Type::get(context), bf16 = BFloat16Type::get(context);
  Type i1 = builder.getI1Type(), i16 = builder.getI16Type(),
       i32 = builder.getI32Type();
  auto function = LLVM::LLVMFuncOp::create(
      builder, loc, "__truncsfbf2", LLVM::LLVMFunctionType::get(bf16, {f32}));
  function.setVisibility_(LLVM::Visibility::Hidden);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(function.addEntryBlock(builder));
  auto constant = [&](int32_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, i32,
                                    builder.getI32IntegerAttr(value));
  };
  Value x = function.getArgument(0);
  Value bits = LLVM::BitcastOp::create(builder, loc, i32, x);
  Value upper = LLVM::LShrOp::create(builder, loc, bits, constant(kHalfBits));
  Value lowestKept = LLVM::AndOp::create(builder, loc, upper, constant(1));
  Value bias =
      LLVM::AddOp::create(builder, loc, lowestKept, constant(kRoundingBias));
  Value rounded = LLVM::LShrOp::create(
      builder, loc, LLVM::AddOp::create(builder, loc, bits, bias),
      constant(kHalfBits));
  Value quietNaN =
      LLVM::OrOp::create(builder, loc, upper, constant(kQuietNaNBit));
  Value isNaN =
      LLVM::FCmpOp::create(builder, loc, i1, LLVM::FCmpPredicate::uno, x, x);
  Value result = LLVM::SelectOp::create(builder, loc, isNaN, quietNaN, rounded);
  Value half = LLVM::TruncOp::create(builder, loc, i16, result);
  LLVM::ReturnOp::create(
      builder, loc,
      LLVM::BitcastOp::create(builder, loc, bf16, half).getResult());
}

void jeet::emu::addHostBuiltins(gpu::GPUModuleOp module) {
  if (!usesBFloat16(module) ||
      SymbolTable::lookupSymbolIn(module, "__truncsfbf2"))
    return;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  defineTruncSFBF2(builder, module.getLoc());
}
