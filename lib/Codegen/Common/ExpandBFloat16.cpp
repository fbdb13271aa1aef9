//===- ExpandBFloat16.cpp - bf16 arithmetic in f32, rounded by integers --===//
//
// Part of the Jeet project.
//
// jeet-expand-bf16: arithmetic and math on bf16 computed in f32 (MLIR's
// emulate-unsupported-floats and math-extend-to-supported-types patterns:
// extf, the op, truncf); then each `arith.truncf` of f32 to bf16 as integer
// operations on the bits, the rounding of NumPy's bfloat16 (ml_dtypes),
// PyTorch and NVIDIA's `cvt.rn.bf16.f32`, and each `arith.extf` of bf16 as a
// shift. Left to LLVM 22's x86 back end, bf16 arithmetic is promoted to f32
// and truncated the same way, and the truncation is `vcvtneps2bf16` on hosts
// with AVX512-BF16, which flushes subnormals to zero whatever the
// floating-point environment says, and a call of `__truncsfbf2` per element
// on other hosts.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/TargetParser/Host.h"

namespace jeet {
#define GEN_PASS_DEF_JEETEXPANDBFLOAT16PASS
#include "jeet/Codegen/Common/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// An integer constant of `type` (a scalar, or a vector splat).
Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  TypedAttr attr = b.getIntegerAttr(getElementTypeOrSelf(type), value);
  if (auto vector = dyn_cast<VectorType>(type))
    attr = SplatElementsAttr::get(vector, attr);
  return arith::ConstantOp::create(b, loc, attr);
}

/// `type` with its element type (or itself, a scalar) replaced by `element`.
Type withElementType(Type type, Type element) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(element);
  return element;
}

/// The bits of `in` (f32, scalar or vector) rounded to bf16 by integer
/// operations on them, as `i16`.
Value roundByIntegers(PatternRewriter &rewriter, Location loc, Value in,
                      Type i32, Type i16) {
  auto constant = [&](int64_t value) {
    return intConstant(rewriter, loc, i32, value);
  };
  Value bits = arith::BitcastOp::create(rewriter, loc, i32, in);
  Value high = arith::ShRUIOp::create(rewriter, loc, bits, constant(16));
  // Round to nearest, ties to even: 0x7fff below the halfway point, one
  // more when the kept part is odd. A carry out of the mantissa moves to
  // the next binade (or from the largest finite value to infinity), as
  // rounding does; infinities have no low bits to carry.
  Value odd = arith::AndIOp::create(rewriter, loc, high, constant(1));
  Value bias = arith::AddIOp::create(rewriter, loc, odd, constant(0x7fff));
  Value sum = arith::AddIOp::create(rewriter, loc, bits, bias);
  Value rounded = arith::ShRUIOp::create(rewriter, loc, sum, constant(16));
  // A NaN (exponent all ones, mantissa not zero) keeps its sign and the
  // high bits of its payload, with the quiet bit set: adding the bias
  // could carry a payload's low bits into the sign.
  // (One unordered comparison: the module carries no fast-math flag
  // that would let LLVM assume there are no NaNs.)
  Value isNan =
      arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UNO, in, in);
  Value quiet = arith::OrIOp::create(rewriter, loc, high, constant(0x40));
  Value chosen = arith::SelectOp::create(rewriter, loc, isNan, quiet, rounded);
  return arith::TruncIOp::create(rewriter, loc, i16, chosen);
}

/// The bits of `in` rounded to bf16 by the target's conversion instruction
/// (`vcvtneps2bf16`), as `i16`. The instruction rounds to nearest even and
/// makes NaNs quiet as roundByIntegers does, but reads subnormal inputs as
/// zeros. Lanes whose exponent is zero (zeros and subnormals) are lifted
/// into the smallest normal binade by setting the exponent's lowest bit:
/// exact, the mantissa and the bits below the kept half unchanged, so the
/// conversion rounds them as the integer ops would round the subnormal,
/// 0x80 higher in the bf16 bits; subtracting 0x80 gives the subnormal bf16
/// (or the smallest normal one, where the rounding carried out of the
/// mantissa, or a signed zero). The new truncation is not visited again:
/// walkAndApplyPatterns does not visit the ops a pattern creates.
Value roundByConversion(PatternRewriter &rewriter, Location loc, Value in,
                        Type bf16, Type i32, Type i16) {
  Value bits = arith::BitcastOp::create(rewriter, loc, i32, in);
  Value exponent = arith::AndIOp::create(
      rewriter, loc, bits, intConstant(rewriter, loc, i32, 0x7f800000));
  Value tiny =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, exponent,
                            intConstant(rewriter, loc, i32, 0));
  Value lifted = arith::OrIOp::create(
      rewriter, loc, bits, intConstant(rewriter, loc, i32, 0x00800000));
  Value chosen = arith::SelectOp::create(rewriter, loc, tiny, lifted, bits);
  Value input = arith::BitcastOp::create(rewriter, loc, in.getType(), chosen);
  Value converted = arith::TruncFOp::create(rewriter, loc, bf16, input);
  Value convertedBits = arith::BitcastOp::create(rewriter, loc, i16, converted);
  Value lowered = arith::SubIOp::create(rewriter, loc, convertedBits,
                                        intConstant(rewriter, loc, i16, 0x80));
  return arith::SelectOp::create(rewriter, loc, tiny, lowered, convertedBits);
}

/// Each truncation of f32 to bf16 (scalar or vector, default rounding) as
/// roundByIntegers, or with `hardware` as roundByConversion.
struct ExpandTruncFToBFloat16 : OpRewritePattern<arith::TruncFOp> {
  ExpandTruncFToBFloat16(MLIRContext *context, bool hardware)
      : OpRewritePattern(context), hardware(hardware) {}

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type sourceType = op.getIn().getType();
    if (!getElementTypeOrSelf(sourceType).isF32() ||
        !getElementTypeOrSelf(op.getType()).isBF16())
      return rewriter.notifyMatchFailure(op, "not a truncation of f32 to bf16");
    if (!sourceType.isIntOrFloat() && !isa<VectorType>(sourceType))
      return rewriter.notifyMatchFailure(op, "neither a scalar nor a vector");
    if (op.getRoundingmodeAttr())
      return rewriter.notifyMatchFailure(op, "an explicit rounding mode");
    Type i32 = withElementType(sourceType, rewriter.getI32Type());
    Type i16 = withElementType(sourceType, rewriter.getI16Type());
    Value bits =
        hardware ? roundByConversion(rewriter, op.getLoc(), op.getIn(),
                                     op.getType(), i32, i16)
                 : roundByIntegers(rewriter, op.getLoc(), op.getIn(), i32, i16);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), bits);
    return success();
  }

  bool hardware;
};

/// `arith.extf` of bf16 to f32 as the bits shifted into the high half: exact,
/// and no `fpext` of bf16 left for LLVM, whose InstCombine narrows
/// `floor(fpext x)` to `fpext(floor x)`: a rounding op on bf16, promoted and
/// truncated again by the back end (a call of `__truncsfbf2`).
struct ExpandExtFFromBFloat16 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type sourceType = op.getIn().getType();
    if (!getElementTypeOrSelf(sourceType).isBF16() ||
        !getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "not an extension of bf16 to f32");
    if (!sourceType.isIntOrFloat() && !isa<VectorType>(sourceType))
      return rewriter.notifyMatchFailure(op, "neither a scalar nor a vector");
    Location loc = op.getLoc();
    Type i32 = withElementType(sourceType, rewriter.getI32Type());
    Type i16 = withElementType(sourceType, rewriter.getI16Type());
    Value bits = arith::BitcastOp::create(rewriter, loc, i16, op.getIn());
    Value wide = arith::ExtUIOp::create(rewriter, loc, i32, bits);
    Value shifted = arith::ShLIOp::create(rewriter, loc, wide,
                                          intConstant(rewriter, loc, i32, 16));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), shifted);
    return success();
  }
};

struct ExpandBFloat16Pass
    : jeet::impl::JeetExpandBFloat16PassBase<ExpandBFloat16Pass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (conversion != "integer" && conversion != "hardware" &&
        conversion != "host")
      return emitError(UnknownLoc::get(context))
             << "jeet-expand-bf16: unknown conversion '" << conversion
             << "' (expected integer, hardware or host)";
    return success();
  }

  bool useHardwareConversion() const {
    if (conversion == "hardware")
      return true;
    if (conversion != "host")
      return false;
    static const bool host = [] {
      llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
      return jeet::prefersBFloat16Conversion(
          llvm::sys::getHostCPUName(),
          [&](llvm::StringRef name) { return features.lookup(name); });
    }();
    return host;
  }

  void runOnOperation() override {
    // Most graphs hold no bf16: one walk, and no conversion driver.
    auto isBFloat16 = [](Type type) {
      return getElementTypeOrSelf(type).isBF16();
    };
    WalkResult found = getOperation()->walk([&](Operation *op) {
      return llvm::any_of(op->getResultTypes(), isBFloat16) ||
                     llvm::any_of(op->getOperandTypes(), isBFloat16)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (!found.wasInterrupted())
      return markAllAnalysesPreserved();
    MLIRContext *context = &getContext();
    // bf16 operands widened to f32, results truncated back.
    TypeConverter converter;
    arith::populateEmulateUnsupportedFloatsConversions(
        converter, {BFloat16Type::get(context)}, Float32Type::get(context));
    RewritePatternSet emulation(context);
    arith::populateEmulateUnsupportedFloatsPatterns(emulation, converter);
    ConversionTarget target(*context);
    arith::populateEmulateUnsupportedFloatsLegality(target, converter);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(emulation))))
      return signalPassFailure();
    // Math ops on bf16 likewise (MLIR's math-extend-to-supported-types
    // patterns, with f16, f32 and f64 supported), for those that no
    // approximation took (floor, round, ...), which LLVM would also promote
    // and truncate.
    llvm::SetVector<Type> supported;
    supported.insert(Float16Type::get(context));
    supported.insert(Float32Type::get(context));
    supported.insert(Float64Type::get(context));
    TypeConverter mathConverter;
    math::populateExtendToSupportedTypesTypeConverter(
        mathConverter, supported, Float32Type::get(context));
    RewritePatternSet extension(context);
    math::populateExtendToSupportedTypesPatterns(extension, mathConverter);
    ConversionTarget mathTarget(*context);
    math::populateExtendToSupportedTypesConversionTarget(mathTarget,
                                                         mathConverter);
    if (failed(applyPartialConversion(getOperation(), mathTarget,
                                      std::move(extension))))
      return signalPassFailure();
    // Then every truncation, the emulation's and those there were.
    RewritePatternSet rounding(context);
    rounding.add<ExpandTruncFToBFloat16>(context, useHardwareConversion());
    rounding.add<ExpandExtFFromBFloat16>(context);
    walkAndApplyPatterns(getOperation(), std::move(rounding));
  }
};

} // namespace

bool jeet::hasBFloat16Conversion(
    llvm::function_ref<bool(llvm::StringRef)> hasFeature) {
  return (hasFeature("avx512bf16") && hasFeature("avx512vl")) ||
         hasFeature("avxneconvert");
}

bool jeet::prefersBFloat16Conversion(
    llvm::StringRef cpu, llvm::function_ref<bool(llvm::StringRef)> hasFeature) {
  return hasBFloat16Conversion(hasFeature) && cpu != "znver5";
}
