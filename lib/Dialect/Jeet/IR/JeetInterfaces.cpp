//===- JeetInterfaces.cpp - Op families of the jeet dialect ---------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// How each op implements its family's interface where ODS parameters do not
// say it all: the scalar functions of the elementwise ops (the arithmetic of
// every op is defined here, and only here) and the decompositions of the
// composite ops (softmax, GELU, mean).
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetInterfaces.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "OpSupport.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace jeet;

#include "jeet/Dialect/Jeet/IR/JeetInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Scalar arithmetic
//===----------------------------------------------------------------------===//

Value jeet::buildScalarConstant(OpBuilder &builder, Location loc, Type type,
                                double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(
      builder, loc, builder.getIntegerAttr(type, static_cast<int64_t>(value)));
}

/// Float to signed integer, saturating, as XLA defines it: NaN gives 0,
/// values beyond the integer's range its minimum or maximum (arith.fptosi
/// alone gives poison there, which LLVM folds to anything: constant-folded
/// and run-time results would differ).
static Value buildSaturatingFloatToInt(OpBuilder &builder, Location loc,
                                       Value value, Type to) {
  Type f32 = builder.getF32Type();
  if (value.getType() != f32)
    value = arith::ExtFOp::create(builder, loc, f32, value);
  unsigned width = to.getIntOrFloatBitWidth();
  APInt maxInt = APInt::getSignedMaxValue(width);
  // -2^(w-1) is exact in f32; 2^(w-1) is the first float above the range.
  double low = -std::ldexp(1.0, width - 1), high = std::ldexp(1.0, width - 1);
  Value lowF = buildScalarConstant(builder, loc, f32, low);
  Value highF = buildScalarConstant(builder, loc, f32, high);
  // Clamped below at the minimum; values at or above 2^(w-1) are replaced
  // (before the conversion, which they would overflow) and selected below.
  Value tooHigh = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OGE,
                                        value, highF);
  Value isNaN = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNO,
                                      value, value);
  Value zeroF = buildScalarConstant(builder, loc, f32, 0.0);
  Value safe = arith::MaximumFOp::create(builder, loc, value, lowF);
  safe = arith::SelectOp::create(builder, loc, tooHigh, zeroF, safe);
  safe = arith::SelectOp::create(builder, loc, isNaN, zeroF, safe);
  Value converted = arith::FPToSIOp::create(builder, loc, to, safe);
  Value maxValue = arith::ConstantOp::create(
      builder, loc, builder.getIntegerAttr(to, maxInt));
  return arith::SelectOp::create(builder, loc, tooHigh, maxValue, converted);
}

Value jeet::buildScalarConversion(OpBuilder &builder, Location loc, Value value,
                                  Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  // Booleans as numpy converts them: a number is true when it is not zero
  // (NaN is true), and true is 1.
  if (to.isInteger(1)) {
    Value zero = buildScalarConstant(builder, loc, from, 0);
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNE,
                                   value, zero);
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne, value,
                                 zero);
  }
  if (from.isInteger(1)) {
    // To f16: the bits of 1.0 or 0. From arith.uitofp, LLVM 22's X86 back
    // end aborts on AVX512-FP16 hosts when the booleans are 16 lanes of a bf16
    // comparison ("Cannot select: X86ISD::CMPP v16f32"; InstCombine narrows
    // an f32 comparison of extended bf16, or an integer test of its bits,
    // back to a bf16 comparison, so the comparison cannot avoid it).
    if (isa<Float16Type>(to)) {
      Value bits = arith::SelectOp::create(
          builder, loc, value,
          arith::ConstantOp::create(builder, loc,
                                    builder.getI16IntegerAttr(0x3C00)),
          arith::ConstantOp::create(builder, loc,
                                    builder.getI16IntegerAttr(0)));
      return arith::BitcastOp::create(builder, loc, to, bits);
    }
    if (isa<FloatType>(to))
      return arith::UIToFPOp::create(builder, loc, to, value);
    return arith::ExtUIOp::create(builder, loc, to, value);
  }
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() == toFloat.getWidth()) {
      Value wide =
          arith::ExtFOp::create(builder, loc, builder.getF32Type(), value);
      return arith::TruncFOp::create(builder, loc, to, wide);
    }
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(builder, loc, to, value);
    return arith::TruncFOp::create(builder, loc, to, value);
  }
  if (fromFloat)
    return buildSaturatingFloatToInt(builder, loc, value, to);
  if (toFloat)
    return arith::SIToFPOp::create(builder, loc, to, value);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(builder, loc, to, value);
  return arith::TruncIOp::create(builder, loc, to, value);
}

Value jeet::buildInF32(OpBuilder &builder, Location loc, ValueRange operands,
                       function_ref<Value(ValueRange)> fn) {
  Type type = operands.front().getType();
  if (!isa<Float16Type, BFloat16Type>(type))
    return fn(operands);
  SmallVector<Value> wide;
  for (Value operand : operands)
    wide.push_back(
        arith::ExtFOp::create(builder, loc, builder.getF32Type(), operand));
  return arith::TruncFOp::create(builder, loc, type, fn(wide));
}

Value jeet::detail::buildComparison(OpBuilder &builder, Location loc,
                                    ValueRange operands,
                                    arith::CmpFPredicate floatPredicate,
                                    arith::CmpIPredicate intPredicate,
                                    arith::CmpIPredicate boolPredicate) {
  Value lhs = operands[0], rhs = operands[1];
  Type type = lhs.getType();
  if (isa<FloatType>(type)) {
    if (isa<Float16Type, BFloat16Type>(type)) {
      Type f32 = builder.getF32Type();
      lhs = arith::ExtFOp::create(builder, loc, f32, lhs);
      rhs = arith::ExtFOp::create(builder, loc, f32, rhs);
    }
    return arith::CmpFOp::create(builder, loc, floatPredicate, lhs, rhs);
  }
  return arith::CmpIOp::create(
      builder, loc, type.isInteger(1) ? boolPredicate : intPredicate, lhs, rhs);
}

/// The bits per element in which the values `value` is computed from are
/// stored: in a fused group the elementwise ops of `value`'s shape are
/// recomputed from the tensors they start from, not stored, so this walks
/// back through them (at most `depth` ops) to the widest such tensor;
/// operands of another shape (a row's maximum, broadcast back) are not part
/// of the row. A cast starts from its source: an f16 row widened to f32 is
/// stored in f16.
static unsigned getStoredElementBits(Value value, ArrayRef<int64_t> shape,
                                     int depth) {
  Operation *producer = value.getDefiningOp();
  if (depth > 0 && producer && isa<ElementwiseOpInterface>(producer)) {
    unsigned widest = 0;
    for (Value operand : producer->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (type && type.getShape() == shape)
        widest =
            std::max(widest, getStoredElementBits(operand, shape, depth - 1));
    }
    if (widest)
      return widest;
  }
  return getElementTypeOrSelf(value.getType()).getIntOrFloatBitWidth();
}

int64_t jeet::getReducedSliceBytes(ReductionOpInterface reduction) {
  auto type = cast<RankedTensorType>(reduction.getInput().getType());
  int64_t bytes = llvm::divideCeil(
      getStoredElementBits(reduction.getInput(), type.getShape(), /*depth=*/8),
      8);
  for (int64_t axis : reduction.getAxes())
    bytes *= type.getDimSize(axis < 0 ? axis + type.getRank() : axis);
  return bytes;
}

namespace {
/// What integer division and remainder share: x and y, their type's
/// constants, and y with 1 in place of the divisors that trap in hardware
/// (0, and -1 where `minusOneTraps` says so), so that the operation itself
/// never traps.
struct IntegerDivision {
  IntegerDivision(OpBuilder &builder, Location loc, Value x, Value y,
                  function_ref<Value(IntegerDivision &)> minusOneTraps)
      : builder(builder), loc(loc), x(x), y(y),
        width(x.getType().getIntOrFloatBitWidth()) {
    zero = constant(APInt::getZero(width));
    minusOne = constant(APInt::getAllOnes(width));
    byZero = eq(y, zero);
    Value unsafe =
        arith::OrIOp::create(builder, loc, byZero, minusOneTraps(*this));
    divisor = arith::SelectOp::create(builder, loc, unsafe,
                                      constant(APInt(width, 1)), y);
  }

  Value constant(const APInt &value) {
    return arith::ConstantOp::create(
        builder, loc, builder.getIntegerAttr(x.getType(), value));
  }
  Value eq(Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, a, b);
  }

  OpBuilder &builder;
  Location loc;
  Value x, y;
  unsigned width;
  Value zero, minusOne, byZero, divisor;
};
} // namespace

/// x / y; integers round toward zero, and the two quotients that trap in
/// hardware are defined: x / 0 = -1 and INT_MIN / -1 = INT_MIN (XLA's
/// values). The divisor is replaced by 1 in both cases.
Value DivOp::buildScalar(OpBuilder &builder, Location loc,
                         ValueRange operands) {
  Value x = operands[0], y = operands[1];
  if (isa<FloatType>(x.getType()))
    return arith::DivFOp::create(builder, loc, x, y);
  IntegerDivision d(builder, loc, x, y, [](IntegerDivision &d) -> Value {
    Value minInt = d.constant(APInt::getSignedMinValue(d.width));
    return arith::AndIOp::create(d.builder, d.loc, d.eq(d.x, minInt),
                                 d.eq(d.y, d.minusOne));
  });
  // INT_MIN / 1 is INT_MIN: the overflow case needs nothing more.
  Value quotient = arith::DivSIOp::create(builder, loc, x, d.divisor);
  return arith::SelectOp::create(builder, loc, d.byZero, d.minusOne, quotient);
}

/// x rem y, the remainder of the quotient rounded toward zero: floats as C's
/// fmod (in f32 for f16 and bf16), integers with the divisor of the two
/// cases that trap in hardware replaced by 1: x rem 0 = x (so that
/// x = (x / 0) * 0 + x rem 0 with div's x / 0 = -1) and INT_MIN rem -1 = 0.
Value RemOp::buildScalar(OpBuilder &builder, Location loc,
                         ValueRange operands) {
  Value x = operands[0], y = operands[1];
  if (isa<FloatType>(x.getType()))
    return buildInF32(builder, loc, operands, [&](ValueRange wide) -> Value {
      return arith::RemFOp::create(builder, loc, wide[0], wide[1]);
    });
  // Any x rem -1 is 0 (and INT_MIN rem -1 would trap): x rem 1 is 0 too.
  IntegerDivision d(builder, loc, x, y, [](IntegerDivision &d) -> Value {
    return d.eq(d.y, d.minusOne);
  });
  Value remainder = arith::RemSIOp::create(builder, loc, x, d.divisor);
  return arith::SelectOp::create(builder, loc, d.byZero, x, remainder);
}

//===----------------------------------------------------------------------===//
// GELU, written once
//===----------------------------------------------------------------------===//

namespace {

/// The coefficient of x^3 in the tanh form of GELU.
constexpr double kGeluCubicCoefficient = 0.044715;

/// The arithmetic GELU needs, on scalars (arith and math ops).
struct ScalarArithmetic {
  OpBuilder &builder;
  Location loc;
  Type type;

  Value constant(double value) {
    return buildScalarConstant(builder, loc, type, value);
  }
  Value add(Value x, Value y) {
    return arith::AddFOp::create(builder, loc, x, y);
  }
  Value mul(Value x, Value y) {
    return arith::MulFOp::create(builder, loc, x, y);
  }
  Value tanh(Value x) { return math::TanhOp::create(builder, loc, x); }
  Value erf(Value x) { return math::ErfOp::create(builder, loc, x); }
};

/// A rank-0 jeet constant of `elementType`, which broadcasts against
/// anything.
Value rank0Constant(OpBuilder &builder, Location loc, Type elementType,
                    double value) {
  auto type = RankedTensorType::get({}, elementType);
  return ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(type, builder.getFloatAttr(elementType, value)));
}

/// The same arithmetic on tensors (jeet ops).
struct TensorArithmetic {
  OpBuilder &builder;
  Location loc;
  Type elementType;

  Value constant(double value) {
    return rank0Constant(builder, loc, elementType, value);
  }
  Value add(Value x, Value y) { return AddOp::create(builder, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(builder, loc, x, y); }
  Value tanh(Value x) { return TanhOp::create(builder, loc, x); }
  Value erf(Value x) { return ErfOp::create(builder, loc, x); }
};

} // namespace

/// gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), over the
/// arithmetic of `Arithmetic`: on scalars it is the scalar function of
/// `jeet.gelu`, on tensors its decomposition, so both compute the same
/// operations in the same order.
template <typename Arithmetic>
static Value buildGeluTanh(Arithmetic &a, Value x) {
  Value x3 = a.mul(a.mul(x, x), x);
  Value inner = a.add(x, a.mul(a.constant(kGeluCubicCoefficient), x3));
  Value scaled = a.mul(a.constant(std::sqrt(2.0 / M_PI)), inner);
  Value tanh = a.tanh(scaled);
  Value onePlusTanh = a.add(a.constant(1.0), tanh);
  Value halfX = a.mul(a.constant(0.5), x);
  return a.mul(halfX, onePlusTanh);
}

/// gelu(x) = 0.5 x (1 + erf(x / sqrt(2))), the exact form, likewise.
template <typename Arithmetic>
static Value buildGeluExact(Arithmetic &a, Value x) {
  Value scaled = a.mul(x, a.constant(M_SQRT1_2));
  Value onePlusErf = a.add(a.constant(1.0), a.erf(scaled));
  Value halfX = a.mul(a.constant(0.5), x);
  return a.mul(halfX, onePlusErf);
}

/// The form of GELU that `op` names.
template <typename Arithmetic>
static Value buildGelu(GeluOp op, Arithmetic &a, Value x) {
  if (op.getApproximate() == GeluOp::kTanhApproximation)
    return buildGeluTanh(a, x);
  return buildGeluExact(a, x);
}

//===----------------------------------------------------------------------===//
// Scalar functions of the elementwise ops
//===----------------------------------------------------------------------===//

// AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, ExpOp, LogOp, SqrtOp, RsqrtOp and
// TanhOp name their scalar function in JeetOps.td.

/// x ** y on integers, as NumPy's (wrapping on overflow) for y >= 0, by
/// squaring: one step for each bit of y below the sign bit, unrolled so that
/// the kernel stays one straight-line body that vectorizes (and folds to a
/// few multiplications where y is a constant). For y < 0, where NumPy
/// raises, the quotient 1 / x ** -y rounded toward zero, as PyTorch defines
/// it: 1 for x = 1, -1 or 1 for x = -1 (y odd or even), 0 otherwise
/// (0 ** y included).
static Value buildIntegerPower(OpBuilder &builder, Location loc, Value x,
                               Value y) {
  Type type = x.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getIntegerAttr(type, value));
  };
  auto isEqual = [&](Value a, Value b) -> Value {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, a, b);
  };
  Value zero = constant(0), one = constant(1), minusOne = constant(-1);
  auto lowBitSet = [&](Value v) -> Value {
    Value bit = arith::AndIOp::create(builder, loc, v, one);
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne, bit,
                                 zero);
  };

  Value result = one, square = x, exponent = y;
  for (unsigned bit = 0; bit + 1 < width; ++bit) {
    Value factor =
        arith::SelectOp::create(builder, loc, lowBitSet(exponent), square, one);
    result = arith::MulIOp::create(builder, loc, result, factor);
    if (bit + 2 < width) {
      square = arith::MulIOp::create(builder, loc, square, square);
      exponent = arith::ShRUIOp::create(builder, loc, exponent, one);
    }
  }

  Value minusOnePower =
      arith::SelectOp::create(builder, loc, lowBitSet(y), minusOne, one);
  Value reciprocal = arith::SelectOp::create(
      builder, loc, isEqual(x, one), one,
      arith::SelectOp::create(builder, loc, isEqual(x, minusOne), minusOnePower,
                              zero));
  Value negative =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, y, zero);
  return arith::SelectOp::create(builder, loc, negative, reciprocal, result);
}

Value PowOp::buildScalar(OpBuilder &builder, Location loc,
                         ValueRange operands) {
  if (!isa<FloatType>(operands[0].getType()))
    return buildIntegerPower(builder, loc, operands[0], operands[1]);
  return buildInF32(builder, loc, operands, [&](ValueRange wide) -> Value {
    return math::PowFOp::create(builder, loc, wide[0], wide[1]);
  });
}

Value NegOp::buildScalar(OpBuilder &builder, Location loc,
                         ValueRange operands) {
  Value x = operands[0];
  if (isa<FloatType>(x.getType()))
    return arith::NegFOp::create(builder, loc, x);
  Value zero = buildScalarConstant(builder, loc, x.getType(), 0);
  return arith::SubIOp::create(builder, loc, zero, x);
}

Value AbsOp::buildScalar(OpBuilder &builder, Location loc,
                         ValueRange operands) {
  Value x = operands[0];
  if (isa<FloatType>(x.getType()))
    return math::AbsFOp::create(builder, loc, x);
  return math::AbsIOp::create(builder, loc, x);
}

Value ReluOp::buildScalar(OpBuilder &builder, Location loc,
                          ValueRange operands) {
  Value x = operands[0];
  // maximumf propagates NaN; +0.0 so that relu(-0.0) is +0.0.
  Value zero = buildScalarConstant(builder, loc, x.getType(), 0.0);
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(builder, loc, x, zero);
  return arith::MaxSIOp::create(builder, loc, x, zero);
}

Value SigmoidOp::buildScalar(OpBuilder &builder, Location loc,
                             ValueRange operands) {
  // 1 / (1 + exp(-x)).
  return buildInF32(builder, loc, operands, [&](ValueRange wide) -> Value {
    Value one = buildScalarConstant(builder, loc, wide[0].getType(), 1.0);
    Value negated = arith::NegFOp::create(builder, loc, wide[0]);
    Value exp = math::ExpOp::create(builder, loc, negated);
    Value denominator = arith::AddFOp::create(builder, loc, one, exp);
    return arith::DivFOp::create(builder, loc, one, denominator);
  });
}

Value GeluOp::buildScalar(OpBuilder &builder, Location loc,
                          ValueRange operands) {
  return buildInF32(builder, loc, operands, [&](ValueRange wide) {
    ScalarArithmetic arithmetic{builder, loc, wide[0].getType()};
    return buildGelu(*this, arithmetic, wide[0]);
  });
}

Value SelectOp::buildScalar(OpBuilder &builder, Location loc,
                            ValueRange operands) {
  return arith::SelectOp::create(builder, loc, operands[0], operands[1],
                                 operands[2]);
}

Value NotOp::buildScalar(OpBuilder &builder, Location loc,
                         ValueRange operands) {
  Value x = operands[0];
  // All ones: true for booleans, ~x for integers.
  Value ones = arith::ConstantOp::create(
      builder, loc,
      builder.getIntegerAttr(
          x.getType(), APInt::getAllOnes(x.getType().getIntOrFloatBitWidth())));
  return arith::XOrIOp::create(builder, loc, x, ones);
}

Value CastOp::buildScalar(OpBuilder &builder, Location loc,
                          ValueRange operands) {
  return buildScalarConversion(builder, loc, operands[0],
                               getType().getElementType());
}

/// The broadcast is in the indexing: each element is its operand's.
Value BroadcastToOp::buildScalar(OpBuilder &, Location, ValueRange operands) {
  return operands[0];
}

//===----------------------------------------------------------------------===//
// Decompositions of the composite ops
//===----------------------------------------------------------------------===//

/// f16 and bf16 compute in f32, as the scalar function does and as PyTorch
/// does: rounded between the ops, 1 + erf(x / sqrt(2)) (or its tanh form)
/// cancels to a few bits for x below about -2 (bf16 gelu(-3) came out
/// -0.00586, not -0.00405).
FailureOr<Value> GeluOp::decompose(OpBuilder &builder, ValueRange operands) {
  Location loc = getLoc();
  return detail::buildInWideFloat(builder, loc, operands[0], [&](Value x) {
    TensorArithmetic arithmetic{builder, loc, getElementTypeOrSelf(x)};
    return buildGelu(*this, arithmetic, x);
  });
}

/// softmax(x) = exp(x - max(x)) / sum(exp(x - max(x))) along the axis:
/// subtracting the maximum first keeps exp from overflowing. f16 and bf16
/// compute in f32 and round the result once (as PyTorch does): x - max
/// rounded to bf16 is off by up to |x - max| 2^-9, and exp turns that into
/// a relative error (3% of a bf16 softmax's smaller values at x - max = -10).
FailureOr<Value> SoftmaxOp::decompose(OpBuilder &builder, ValueRange operands) {
  Location loc = getLoc();
  SmallVector<int64_t> axes = {getAxisAttr().getInt()};
  return detail::buildInWideFloat(builder, loc, operands[0], [&](Value x) {
    Value max = ReduceMaxOp::create(builder, loc, x, axes, /*keepdims=*/true);
    Value shifted = SubOp::create(builder, loc, x, max);
    Value exp = ExpOp::create(builder, loc, shifted);
    Value sum = ReduceSumOp::create(builder, loc, exp, axes, /*keepdims=*/true);
    return DivOp::create(builder, loc, exp, sum).getResult();
  });
}

FailureOr<Value>
jeet::detail::decomposeArgReduction(OpBuilder &builder, Location loc, Value x,
                                    int64_t axis, bool keepdims, bool maximum) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> axes = {axis};
  Value extreme =
      maximum ? ReduceMaxOp::create(builder, loc, x, axes, /*keepdims=*/true)
                    .getResult()
              : ReduceMinOp::create(builder, loc, x, axes, /*keepdims=*/true)
                    .getResult();
  // The positions of the extreme value; where a slice has a NaN, its extreme
  // is NaN (maximumf/minimumf propagate it) and the positions are its NaNs.
  Value hit = EqOp::create(builder, loc, x, extreme);
  if (isa<FloatType>(type.getElementType()))
    hit = OrOp::create(builder, loc, hit, NeOp::create(builder, loc, x, x));
  // Indices along the axis only (size 1 elsewhere): they broadcast.
  Type i64 = builder.getI64Type();
  SmallVector<int64_t> indexShape(type.getRank(), 1);
  indexShape[axis] = type.getDimSize(axis);
  Value indices = IotaOp::create(builder, loc,
                                 RankedTensorType::get(indexShape, i64), axis);
  auto scalarType = RankedTensorType::get({}, i64);
  Value none = ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(scalarType,
                             builder.getI64IntegerAttr(indexShape[axis])));
  Value candidates = SelectOp::create(builder, loc, hit, indices, none);
  return ReduceMinOp::create(builder, loc, candidates, axes, keepdims)
      .getResult();
}

/// A product with a 1-D operand is one of matrices between reshapes: the
/// vector becomes a row or a column, and the result loses that dimension.
FailureOr<Value> MatmulOp::decompose(OpBuilder &builder, ValueRange operands) {
  auto lhsType = cast<RankedTensorType>(operands[0].getType());
  auto rhsType = cast<RankedTensorType>(operands[1].getType());
  Location loc = getLoc();
  // Batches of rows times one matrix, (..., M, K) x (K, N), are one product
  // of (P * M, K) by (K, N): the batches' rows are consecutive in memory.
  // As batches, each ran over all of the right operand for its M rows
  // (Swin's MLPs at 96x96: 12 batches of 6 rows by a 1536 x 384 matrix, at a
  // quarter of the FMA rate). Not where the lhs is a transpose, which the
  // matmul reads in place (a reshape would make it a copy).
  if (lhsType.getRank() > 2 && rhsType.getRank() == 2 &&
      lhsType.hasStaticShape() && rhsType.hasStaticShape() &&
      !operands[0].getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> shape = lhsType.getShape();
    int64_t rows = 1;
    for (int64_t dim : shape.drop_back())
      rows *= dim;
    Value lhs = ReshapeOp::create(
        builder, loc, lhsType.clone({rows, shape.back()}), operands[0]);
    Value product = MatmulOp::create(builder, loc, lhs, operands[1]);
    return ReshapeOp::create(builder, loc, getType(), product).getResult();
  }
  if (lhsType.getRank() > 1 && rhsType.getRank() > 1)
    return failure();
  auto promote = [&](Value operand, RankedTensorType type,
                     bool isLhs) -> Value {
    if (type.getRank() > 1)
      return operand;
    return ReshapeOp::create(
        builder, loc, type.clone(promoteMatmulOperand(type, isLhs)), operand);
  };
  Value lhs = promote(operands[0], lhsType, /*isLhs=*/true);
  Value rhs = promote(operands[1], rhsType, /*isLhs=*/false);
  Value product = MatmulOp::create(builder, loc, lhs, rhs);
  return ReshapeOp::create(builder, loc, getType(), product).getResult();
}

/// Is `value` exactly representable in the float type `type`?
static bool isExactIn(Type type, int64_t value) {
  APFloat f(cast<FloatType>(type).getFloatSemantics());
  APFloat::opStatus status =
      f.convertFromAPInt(APInt(64, value, /*isSigned=*/true), /*IsSigned=*/true,
                         APFloat::rmNearestTiesToEven);
  return status == APFloat::opOK;
}

/// reduce_mean(x) = reduce_sum(x) / N, N the number of reduced elements.
/// A float narrower than f32 is summed and divided in f32 (the sum of 8193
/// f16 values of 9 is past f16's 65504: the mean was infinite), as NumPy
/// means f16; where N is not exact in the element type (above 2^24 in f32),
/// the division is done in f32 too.
FailureOr<Value> ReduceMeanOp::decompose(OpBuilder &builder,
                                         ValueRange operands) {
  Location loc = getLoc();
  Value input = operands[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> reduced;
  for (int64_t axis : getAxes())
    reduced.push_back(inputType.getDimSize(axis));
  std::optional<int64_t> count = getNumElements(reduced);
  if (!count)
    return failure();
  Type elementType = inputType.getElementType();
  Type f32 = builder.getF32Type();
  if (detail::widenLowPrecisionFloat(elementType) != elementType)
    return detail::buildInWideFloat(builder, loc, input, [&](Value wide) {
      Value sum =
          ReduceSumOp::create(builder, loc, wide, getAxes(), getKeepdims());
      return DivOp::create(
                 builder, loc, sum,
                 rank0Constant(builder, loc, f32, static_cast<double>(*count)))
          .getResult();
    });
  Value sum =
      ReduceSumOp::create(builder, loc, input, getAxes(), getKeepdims());
  if (isExactIn(elementType, *count)) {
    Value n =
        rank0Constant(builder, loc, elementType, static_cast<double>(*count));
    return DivOp::create(builder, loc, sum, n).getResult();
  }
  auto sumType = cast<RankedTensorType>(sum.getType());
  Value wide = sum;
  if (elementType != f32)
    wide = CastOp::create(builder, loc, sumType.clone(f32), sum);
  Value mean = DivOp::create(
      builder, loc, wide,
      rank0Constant(builder, loc, f32, static_cast<double>(*count)));
  if (elementType != f32)
    mean = CastOp::create(builder, loc, sumType, mean);
  return mean;
}
