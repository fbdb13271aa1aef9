//===- AccessChecks.cpp - Loads and stores checked by the emulator --------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Step 2 of jeet-gpu-lower-to-emulator. The checks take the address the
// access itself uses: the patterns below lower memref.load/store and
// vector.load/store exactly as MemRefToLLVM and VectorToLLVM do (the same
// strided element pointer, alignment and nontemporal flag), with a call to
// __jeet_emu_check_global or __jeet_emu_check_shared between the address
// and the access.
//
//===----------------------------------------------------------------------===//

#include "EmulatorABI.h"

#include "jeet/Emulator/KernelABI.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace jeet::emu;

static constexpr uint64_t kBitsPerByte = 8;

/// What memory `memref` is in: its GPU address space if it has one, else
/// where it comes from through views (a kernel argument is device memory).
static MemoryKind classifyMemory(Value memref) {
  while (true) {
    auto type = cast<BaseMemRefType>(memref.getType());
    if (auto space =
            dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace())) {
      switch (space.getValue()) {
      case gpu::AddressSpace::Workgroup:
        return MemoryKind::Shared;
      case gpu::AddressSpace::Private:
        return MemoryKind::Unchecked;
      case gpu::AddressSpace::Global:
        return MemoryKind::Global;
      }
    }
    Operation *def = memref.getDefiningOp();
    if (!def)
      return MemoryKind::Global;
    if (isa<memref::GetGlobalOp, memref::AllocaOp>(def))
      return MemoryKind::Unchecked;
    if (auto cast = dyn_cast<memref::MemorySpaceCastOp>(def)) {
      memref = cast.getSource();
      continue;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      memref = view.getViewSource();
      continue;
    }
    return MemoryKind::Global;
  }
}

CheckedAccesses jeet::emu::collectCheckedAccesses(gpu::GPUModuleOp module,
                                                  SiteStrings &sites) {
  CheckedAccesses accesses;
  module.walk([&](Operation *op) {
    Value memref = llvm::TypeSwitch<Operation *, Value>(op)
                       .Case<memref::LoadOp, memref::StoreOp>(
                           [](auto access) { return access.getMemref(); })
                       .Case<vector::LoadOp, vector::StoreOp>(
                           [](auto access) { return access.getBase(); })
                       .Default([](Operation *) { return Value(); });
    if (!memref)
      return;
    MemoryKind kind = classifyMemory(memref);
    if (kind != MemoryKind::Unchecked)
      accesses[op] = {kind, sites.getOrCreate(op)};
  });
  return accesses;
}

namespace {
/// Lowers one kind of load or store with its check.
template <typename AccessOp>
class CheckedAccessLowering : public ConvertOpToLLVMPattern<AccessOp> {
public:
  /// Above the upstream patterns (benefit 1) for the accesses to check.
  static constexpr unsigned kBenefit = 2;

  CheckedAccessLowering(const LLVMTypeConverter &converter,
                        const CheckedAccesses &accesses)
      : ConvertOpToLLVMPattern<AccessOp>(converter, kBenefit),
        accesses(accesses) {}

  LogicalResult
  matchAndRewrite(AccessOp op, typename AccessOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;

private:
  /// The address `op` accesses, as the upstream lowering computes it.
  Value address(AccessOp op, typename AccessOp::Adaptor adaptor,
                ConversionPatternRewriter &rewriter) const;
  /// Calls the check of `access` on `bytes` bytes at `pointer`.
  void emitCheck(AccessOp op, const CheckedAccess &access, Value pointer,
                 uint64_t bytes, uint64_t alignment,
                 ConversionPatternRewriter &rewriter) const;

  const CheckedAccesses &accesses;
};
} // namespace

/// The element pointer of memref accesses and 1-D vector accesses alike.
template <typename AccessOp>
Value CheckedAccessLowering<AccessOp>::address(
    AccessOp op, typename AccessOp::Adaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if constexpr (std::is_same_v<AccessOp, memref::LoadOp> ||
                std::is_same_v<AccessOp, memref::StoreOp>) {
    // memref.load/store indices are in bounds by definition, as upstream
    // says with inbounds|nuw.
    return this->getStridedElementPtr(rewriter, op.getLoc(), op.getMemRefType(),
                                      adaptor.getMemref(), adaptor.getIndices(),
                                      LLVM::GEPNoWrapFlags::inbounds |
                                          LLVM::GEPNoWrapFlags::nuw);
  } else {
    return this->getStridedElementPtr(rewriter, op.getLoc(), op.getMemRefType(),
                                      adaptor.getBase(), adaptor.getIndices());
  }
}

template <typename AccessOp>
void CheckedAccessLowering<AccessOp>::emitCheck(
    AccessOp op, const CheckedAccess &access, Value pointer, uint64_t bytes,
    uint64_t alignment, ConversionPatternRewriter &rewriter) const {
  constexpr bool isStore = std::is_same_v<AccessOp, memref::StoreOp> ||
                           std::is_same_v<AccessOp, vector::StoreOp>;
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  Type ptrType = LLVM::LLVMPointerType::get(context);
  Operation *module = op->template getParentOfType<gpu::GPUModuleOp>();

  Value size = LLVM::ConstantOp::create(rewriter, loc, i64,
                                        rewriter.getI64IntegerAttr(bytes));
  Value flags = LLVM::ConstantOp::create(
      rewriter, loc, i32,
      rewriter.getI32IntegerAttr(isStore ? JEET_EMU_ACCESS_WRITE
                                         : JEET_EMU_ACCESS_READ));
  Value site = LLVM::AddressOfOp::create(rewriter, loc, access.site);
  Type voidType = LLVM::LLVMVoidType::get(context);
  if (access.kind == MemoryKind::Global) {
    Value align = LLVM::ConstantOp::create(
        rewriter, loc, i64, rewriter.getI64IntegerAttr(alignment));
    LLVM::LLVMFuncOp check =
        declareFunction(rewriter, module, "__jeet_emu_check_global", voidType,
                        {ptrType, i64, i32, i64, ptrType});
    LLVM::CallOp::create(rewriter, loc, check,
                         ValueRange{pointer, size, flags, align, site});
  } else {
    LLVM::LLVMFuncOp check =
        declareFunction(rewriter, module, "__jeet_emu_check_shared", voidType,
                        {ptrType, i64, i32, ptrType});
    LLVM::CallOp::create(rewriter, loc, check,
                         ValueRange{pointer, size, flags, site});
  }
}

template <typename AccessOp>
LogicalResult CheckedAccessLowering<AccessOp>::matchAndRewrite(
    AccessOp op, typename AccessOp::Adaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  auto found = accesses.find(op);
  if (found == accesses.end())
    return rewriter.notifyMatchFailure(op, "not a checked access");
  constexpr bool isVector = std::is_same_v<AccessOp, vector::LoadOp> ||
                            std::is_same_v<AccessOp, vector::StoreOp>;
  constexpr bool isStore = std::is_same_v<AccessOp, memref::StoreOp> ||
                           std::is_same_v<AccessOp, vector::StoreOp>;

  Type elementType = this->getTypeConverter()->convertType(
      op.getMemRefType().getElementType());
  if (!elementType || !elementType.isIntOrFloat())
    return rewriter.notifyMatchFailure(op, "unsupported element type");
  uint64_t elementBits = elementType.getIntOrFloatBitWidth();
  Type accessedType = elementType;
  uint64_t bytes = llvm::divideCeil(elementBits, kBitsPerByte);
  // What the emitted access says: an explicit alignment, else what the
  // upstream lowerings say (the element's natural alignment, stated for
  // vectors, implied by 0 for scalars).
  uint64_t accessAlignment = op.getAlignment().value_or(0);
  if constexpr (isVector) {
    VectorType vectorType = op.getVectorType();
    if (vectorType.getRank() != 1 || vectorType.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed 1-D vector access");
    accessedType = this->getTypeConverter()->convertType(vectorType);
    bytes = llvm::divideCeil(elementBits * vectorType.getNumElements(),
                             kBitsPerByte);
    if (!accessAlignment)
      accessAlignment =
          llvm::PowerOf2Ceil(llvm::divideCeil(elementBits, kBitsPerByte));
  }
  // The alignment the check verifies: the stated one, else the element's.
  uint64_t checkedAlignment =
      accessAlignment
          ? accessAlignment
          : llvm::PowerOf2Ceil(llvm::divideCeil(elementBits, kBitsPerByte));

  Value pointer = address(op, adaptor, rewriter);
  emitCheck(op, found->second, pointer, bytes, checkedAlignment, rewriter);
  if constexpr (std::is_same_v<AccessOp, memref::StoreOp>) {
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(
        op, adaptor.getValue(), pointer, accessAlignment,
        /*isVolatile=*/false, op.getNontemporal());
  } else if constexpr (isStore) {
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(
        op, adaptor.getValueToStore(), pointer, accessAlignment,
        /*isVolatile=*/false, op.getNontemporal());
  } else {
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(
        op, accessedType, pointer, accessAlignment, /*isVolatile=*/false,
        op.getNontemporal());
  }
  return success();
}

void jeet::emu::populateCheckedAccessPatterns(
    const LLVMTypeConverter &converter, const CheckedAccesses &accesses,
    RewritePatternSet &patterns) {
  patterns.add<CheckedAccessLowering<memref::LoadOp>,
               CheckedAccessLowering<memref::StoreOp>,
               CheckedAccessLowering<vector::LoadOp>,
               CheckedAccessLowering<vector::StoreOp>>(converter, accesses);
}
