//===- CpuApproximateMath.cpp - Vectorisable exp, log, tanh and erf -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites f32 transcendental functions into MLIR's polynomial
// approximations (exp: its algorithm, NaN-safe), which LLVM vectorises,
// instead of per-lane libm calls.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace jeet {
#define GEN_PASS_DEF_JEETCPUAPPROXIMATEMATHPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// A scalar or vector constant of `type`'s f32 element type.
static Value f32Constant(OpBuilder &b, Location loc, Type type, float value) {
  Attribute attr = b.getF32FloatAttr(value);
  if (auto vectorType = dyn_cast<VectorType>(type))
    attr = DenseElementsAttr::get(vectorType, attr);
  return arith::ConstantOp::create(b, loc, type, cast<TypedAttr>(attr));
}

/// Wraps each f32 exp, log and tanh in the fix-ups that keep the polynomial
/// approximations exact at the edges of the range, where they would flush
/// subnormals or lose a sign:
///   exp(x), x < -87:  exp(x / 2)^2 (the approximation builds its result
///                     from a normal exponent, so subnormal results would be
///                     0; x / 2 is exact and the square rounds once)
///   log(x), 0 < x < 2^-126:  log(x * 2^23) - 23 ln 2 (the approximation
///                     reads the exponent field, which a subnormal lacks)
///   tanh(x), erf(x):  copysign(f(x), x) (f(-0) = -0)
/// The new exp/log/tanh/erf op is left for the approximation patterns.
static void guard(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  Type type = x.getType();
  auto cmp = [&](arith::CmpFPredicate predicate, Value lhs, float rhs) {
    return arith::CmpFOp::create(b, loc, predicate, lhs,
                                 f32Constant(b, loc, type, rhs));
  };
  Value result;
  if (isa<math::ExpOp>(op)) {
    Value small = cmp(arith::CmpFPredicate::OLT, x, -87.0f);
    Value half =
        arith::MulFOp::create(b, loc, x, f32Constant(b, loc, type, 0.5f));
    Value input = arith::SelectOp::create(b, loc, small, half, x);
    Value exp = math::ExpOp::create(b, loc, input);
    Value square = arith::MulFOp::create(b, loc, exp, exp);
    result = arith::SelectOp::create(b, loc, small, square, exp);
  } else if (isa<math::LogOp>(op)) {
    Value small =
        arith::AndIOp::create(b, loc, cmp(arith::CmpFPredicate::OGT, x, 0.0f),
                              cmp(arith::CmpFPredicate::OLT, x, 0x1p-126f));
    Value scaled =
        arith::MulFOp::create(b, loc, x, f32Constant(b, loc, type, 0x1p23f));
    Value input = arith::SelectOp::create(b, loc, small, scaled, x);
    Value log = math::LogOp::create(b, loc, input);
    Value correction = arith::SelectOp::create(
        b, loc, small,
        f32Constant(b, loc, type, static_cast<float>(-23.0 * M_LN2)),
        f32Constant(b, loc, type, 0.0f));
    result = arith::AddFOp::create(b, loc, log, correction);
  } else {
    // tanh and erf are odd: the sign of x, also for -0.
    Value odd = isa<math::TanhOp>(op) ? Value(math::TanhOp::create(b, loc, x))
                                      : Value(math::ErfOp::create(b, loc, x));
    result = math::CopySignOp::create(b, loc, odd, x);
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

/// f32 exp as MLIR's polynomial approximation does it (Cephes: e^x =
/// e^a * 2^n with n = round(x / ln 2), a polynomial for e^a), except that
/// n is clamped to [-127, 127] with ordered compares: MLIR's clamp keeps a
/// NaN, which `arith.fptosi` then turns into poison, and LLVM folded a NaN
/// known at compile time to any value (a softmax of NaNs came out 0). Here
/// n of a NaN is a bound and the NaN comes through `a`'s polynomial. The
/// same instructions on x86 (vmaxps/vminps). Smaller floats are extended.
struct ExpApproximation : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Type element = getElementTypeOrSelf(type);
    Location loc = op.getLoc();
    if (!isa<FloatType>(element) || element.getIntOrFloatBitWidth() > 32)
      return rewriter.notifyMatchFailure(op, "not a float of 32 bits or less");
    if (!element.isF32()) {
      Type f32 = rewriter.getF32Type();
      if (auto vector = dyn_cast<VectorType>(type))
        f32 = vector.clone(f32);
      Value wide = arith::ExtFOp::create(rewriter, loc, f32, op.getOperand());
      Value exp = math::ExpOp::create(rewriter, loc, wide);
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, exp);
      return success();
    }
    OpBuilder &b = rewriter;
    auto cst = [&](float value) { return f32Constant(b, loc, type, value); };
    auto fma = [&](Value x, Value y, Value z) -> Value {
      return math::FmaOp::create(b, loc, x, y, z);
    };
    auto select = [&](arith::CmpFPredicate predicate, Value value,
                      Value bound) -> Value {
      return arith::SelectOp::create(
          b, loc, arith::CmpFOp::create(b, loc, predicate, value, bound), value,
          bound);
    };
    using P = arith::CmpFPredicate;
    // x in [-87.8, 88.8] (log(2^-126) and log(FLT_MAX), with room); a NaN
    // stays (unordered compares).
    Value x = select(P::UGE, op.getOperand(), cst(-87.8f));
    x = select(P::ULE, x, cst(88.8f));
    Value n = math::FloorOp::create(
        b, loc, fma(x, cst(1.44269504088896341f), cst(0.5f)));
    // n in [-127, 127]; a NaN becomes -127 (ordered compares). 2^-127 is
    // built as 0: e^x is below the smallest normal there.
    n = select(P::OGT, n, cst(-127.0f));
    n = select(P::OLT, n, cst(127.0f));
    // a = x - n ln 2, in two parts; e^a by a polynomial.
    Value a = fma(cst(-0.693359375f), n, x);
    a = fma(cst(2.12194440e-4f), n, a);
    Value z = fma(a, cst(1.9875691500E-4f), cst(1.3981999507E-3f));
    z = fma(z, a, cst(8.3334519073E-3f));
    z = fma(z, a, cst(4.1665795894E-2f));
    z = fma(z, a, cst(1.6666665459E-1f));
    z = fma(z, a, cst(5.0000001201E-1f));
    z = fma(z, arith::MulFOp::create(b, loc, a, a), a);
    z = arith::AddFOp::create(b, loc, cst(1.0f), z);
    // 2^n from its exponent field.
    Type i32 = b.getI32Type();
    if (auto vector = dyn_cast<VectorType>(type))
      i32 = vector.clone(i32);
    auto intConstant = [&](int32_t value) -> Value {
      Attribute attr = b.getI32IntegerAttr(value);
      if (auto vector = dyn_cast<VectorType>(i32))
        attr = DenseElementsAttr::get(vector, attr);
      return arith::ConstantOp::create(b, loc, i32, cast<TypedAttr>(attr));
    };
    Value exponent = arith::AddIOp::create(
        b, loc, arith::FPToSIOp::create(b, loc, i32, n), intConstant(127));
    Value pow2 = arith::BitcastOp::create(
        b, loc, type, arith::ShLIOp::create(b, loc, exponent, intConstant(23)));
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, z, pow2);
    return success();
  }
};

struct JeetCpuApproximateMathPass
    : public jeet::impl::JeetCpuApproximateMathPassBase<
          JeetCpuApproximateMathPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    static constexpr llvm::StringLiteral kSupported[] = {"exp", "log", "tanh",
                                                         "erf"};
    if (functions.empty()) {
      for (llvm::StringRef name : kSupported)
        selected.insert(name);
      return success();
    }
    for (const std::string &name : functions) {
      if (!llvm::is_contained(kSupported, name))
        return emitError(UnknownLoc::get(context))
               << "jeet-cpu-approximate-math: unknown function '" << name
               << "' in 'functions' (supported: exp, log, tanh, erf)";
      selected.insert(name);
    }
    return success();
  }

  void runOnOperation() override {
    SmallVector<Operation *> guarded;
    bool anySelected = false;
    getOperation().walk([&](Operation *op) {
      if (!isa<math::MathDialect>(op->getDialect()) ||
          !selected.contains(op->getName().stripDialect()))
        return;
      anySelected = true;
      if (isa<math::ExpOp, math::LogOp, math::TanhOp, math::ErfOp>(op) &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF32())
        guarded.push_back(op);
    });
    // The greedy driver below walks every op of the function to the fixed
    // point even when there is nothing to approximate: on a matmul's
    // unrolled kernels it took ~15% of the codegen stage.
    if (!anySelected)
      return;
    for (Operation *op : guarded)
      guard(op);

    RewritePatternSet patterns(&getContext());
    // The predicate sees operation names ("math.exp"); exp is ours.
    populateMathPolynomialApproximationPatterns(
        patterns, [&](llvm::StringRef name) {
          return name.consume_front("math.") && name != "exp" &&
                 selected.contains(name);
        });
    if (selected.contains("exp"))
      patterns.add<ExpApproximation>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }

  llvm::StringSet<> selected;
};

} // namespace
