//===- JeetOps.cpp - Operations of the jeet dialect -----------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "OpSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace jeet;

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

std::optional<SmallVector<int64_t>> jeet::broadcastShapes(ArrayRef<int64_t> a,
                                                          ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    result[rank - 1 - i] = da == 1 ? db : da;
  }
  return result;
}

bool jeet::isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[from.size() - 1 - i];
    if (f != 1 && f != to[to.size() - 1 - i])
      return false;
  }
  return true;
}

std::optional<int64_t> jeet::getNumElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    if (dim < 0 || llvm::MulOverflow(count, dim, count))
      return std::nullopt;
  return count;
}

SmallVector<int64_t> jeet::reducedShape(ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> axes, bool keepdims) {
  SmallVector<int64_t> result;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(i)))
      result.push_back(dim);
    else if (keepdims)
      result.push_back(1);
  }
  return result;
}

/// Formats a list of integers as `[a, b, c]`.
static std::string formatList(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os);
  os << "]";
  return s;
}

//===----------------------------------------------------------------------===//
// Type inference helpers
//===----------------------------------------------------------------------===//

/// The statically shaped tensor types `types`, or an error naming them.
/// Inference runs before the verifier checks the operand types when an op is
/// built in C++ (a builder, or jeet::Graph, which only makes static tensors
/// of the dialect's element types), so it must not assume them. Parsed IR
/// never gets here with other types: the ops whose result type the parser
/// infers take it from their operand, and the verifier checks the operand
/// types before it runs inference.
static FailureOr<SmallVector<RankedTensorType, 2>>
getStaticTensors(StringRef opName, std::optional<Location> loc,
                 ArrayRef<Type> types) {
  SmallVector<RankedTensorType, 2> tensors;
  for (Type type : types) {
    auto tensor = dyn_cast_or_null<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape()) {
      if (!loc)
        return failure();
      InFlightDiagnostic diag =
          emitError(*loc) << "'" << opName << "' op expects "
                          << (types.size() == 1 ? "a statically shaped tensor"
                                                : "statically shaped tensors")
                          << ", got ";
      llvm::interleave(
          types, [&](Type t) { diag << t; }, [&] { diag << " and "; });
      return diag;
    }
    tensors.push_back(tensor);
  }
  return tensors;
}

/// An error for a missing attribute that inference needs: the verifier
/// reports it first in parsed IR, jeet::Graph gets here.
static LogicalResult missingAttribute(StringRef opName,
                                      std::optional<Location> loc,
                                      StringRef name) {
  return emitOptionalError(loc, "'", opName, "' op requires attribute '", name,
                           "'");
}

LogicalResult jeet::detail::inferBroadcastResultType(
    StringRef opName, std::optional<Location> loc, Type lhsType, Type rhsType,
    SmallVectorImpl<Type> &results) {
  auto tensors = getStaticTensors(opName, loc, {lhsType, rhsType});
  if (failed(tensors))
    return failure();
  RankedTensorType lhs = (*tensors)[0], rhs = (*tensors)[1];
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "'", opName,
                             "' op operand element types differ: ", lhsType,
                             " and ", rhsType);
  auto shape = broadcastShapes(lhs.getShape(), rhs.getShape());
  if (!shape)
    return emitOptionalError(
        loc, "'", opName,
        "' op operand shapes are not broadcast-compatible: ", lhsType, " and ",
        rhsType);
  results.push_back(RankedTensorType::get(*shape, lhs.getElementType()));
  return success();
}

Type jeet::detail::widenLowPrecisionFloat(Type type) {
  if (isa<Float16Type, BFloat16Type>(type))
    return Float32Type::get(type.getContext());
  return type;
}

Value jeet::detail::buildInWideFloat(OpBuilder &builder, Location loc,
                                     Value input,
                                     function_ref<Value(Value)> compute) {
  auto type = cast<RankedTensorType>(input.getType());
  Type elementType = type.getElementType();
  Type wide = widenLowPrecisionFloat(elementType);
  if (wide == elementType)
    return compute(input);
  Value result = compute(CastOp::create(builder, loc, type.clone(wide), input));
  auto resultType = cast<RankedTensorType>(result.getType());
  return CastOp::create(builder, loc, resultType.clone(elementType), result);
}

/// Checks `axes` against `rank`: each axis in range, none repeated.
static LogicalResult verifyAxes(StringRef opName, std::optional<Location> loc,
                                StringRef what, ArrayRef<int64_t> axes,
                                Type type, bool allowEmpty) {
  int64_t rank = cast<RankedTensorType>(type).getRank();
  if (axes.empty() && !allowEmpty)
    return emitOptionalError(loc, "'", opName, "' op ", what,
                             " must not be empty (input ", type, ")");
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return emitOptionalError(loc, "'", opName, "' op ", what, " ",
                               formatList(axes), " out of range [0, ", rank,
                               ") for ", type);
    if (!seen.insert(axis).second)
      return emitOptionalError(loc, "'", opName, "' op ", what, " ",
                               formatList(axes), " repeats axis ", axis,
                               " (input ", type, ")");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Constant folding helpers
//===----------------------------------------------------------------------===//

/// Constants up to this many elements are folded; splats of any size.
static constexpr int64_t kMaxFoldElements = 256;

/// Returns the splat value of a constant operand, if it is one.
static std::optional<Attribute> getSplat(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return std::nullopt;
  return dense.getSplatValue<Attribute>();
}

static bool isSplatFloat(Attribute attr, double value, bool negativeZero) {
  auto splat = getSplat(attr);
  if (!splat)
    return false;
  auto f = dyn_cast<FloatAttr>(*splat);
  if (!f)
    return false;
  APFloat v = f.getValue();
  if (v.isZero() && value == 0.0)
    return v.isNegative() == negativeZero;
  bool ignored;
  APFloat expected(value);
  expected.convert(v.getSemantics(), APFloat::rmNearestTiesToEven, &ignored);
  return v.bitwiseIsEqual(expected);
}

static bool isSplatInt(Attribute attr, int64_t value) {
  auto splat = getSplat(attr);
  if (!splat)
    return false;
  auto i = dyn_cast<IntegerAttr>(*splat);
  return i && i.getValue().getSExtValue() == value;
}

/// Is `attr` the identity constant `value` of an op (for floats, `value`
/// with the given sign of zero)?
static bool isIdentity(Attribute attr, int64_t value, bool negativeZero) {
  return isSplatFloat(attr, static_cast<double>(value), negativeZero) ||
         isSplatInt(attr, value);
}

using FloatFn =
    function_ref<std::optional<APFloat>(const APFloat &, const APFloat &)>;
using IntFn = function_ref<std::optional<APInt>(const APInt &, const APInt &)>;
/// The result element (of `elementType`) of two operand elements, or null
/// when it is not folded.
using ElementFn =
    function_ref<Attribute(Attribute lhs, Attribute rhs, Type elementType)>;

/// Folds a binary op whose operands are both constants, element by element
/// with numpy broadcasting. Only small constants are folded (any splat).
static Attribute foldBinaryElements(Attribute lhsAttr, Attribute rhsAttr,
                                    Type resultType, ElementFn fn) {
  auto lhs = dyn_cast_or_null<DenseElementsAttr>(lhsAttr);
  auto rhs = dyn_cast_or_null<DenseElementsAttr>(rhsAttr);
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!lhs || !rhs || !type || !type.hasStaticShape())
    return {};
  bool splat = lhs.isSplat() && rhs.isSplat();
  std::optional<int64_t> count = jeet::getNumElements(type.getShape());
  if (!count || (!splat && *count > kMaxFoldElements))
    return {};
  int64_t n = splat ? 1 : *count;
  ArrayRef<int64_t> shape = type.getShape();
  // Maps the row-major index `i` of the result to the index of the element of
  // `a` that broadcasts to it (numpy's rules: shapes aligned on the right).
  auto at = [&](DenseElementsAttr a, int64_t i) {
    if (a.isSplat())
      return a.getSplatValue<Attribute>();
    ArrayRef<int64_t> from = a.getType().getShape();
    int64_t index = 0, stride = 1, rest = i;
    for (size_t d = 0; d < from.size(); ++d) {
      int64_t size = shape[shape.size() - 1 - d];
      int64_t coord = rest % size;
      rest /= size;
      int64_t dim = from[from.size() - 1 - d];
      if (dim != 1)
        index += coord * stride;
      stride *= dim;
    }
    return a.getValues<Attribute>()[index];
  };
  SmallVector<Attribute> values;
  Type elementType = type.getElementType();
  for (int64_t i = 0; i < n; ++i) {
    Attribute value = fn(at(lhs, i), at(rhs, i), elementType);
    if (!value)
      return {};
    values.push_back(value);
  }
  if (splat)
    return DenseElementsAttr::get(type, values.front());
  return DenseElementsAttr::get(type, values);
}

/// foldBinaryElements for an op whose result elements have the operands'
/// type: `floatFn` on floats, `intFn` on integers.
static Attribute foldBinaryConstants(Attribute lhsAttr, Attribute rhsAttr,
                                     Type resultType, FloatFn floatFn,
                                     IntFn intFn) {
  return foldBinaryElements(
      lhsAttr, rhsAttr, resultType,
      [&](Attribute a, Attribute b, Type elementType) -> Attribute {
        if (auto fa = dyn_cast<FloatAttr>(a)) {
          auto r = floatFn(fa.getValue(), cast<FloatAttr>(b).getValue());
          return r ? FloatAttr::get(elementType, *r) : Attribute();
        }
        auto r = intFn(cast<IntegerAttr>(a).getValue(),
                       cast<IntegerAttr>(b).getValue());
        return r ? IntegerAttr::get(elementType, *r) : Attribute();
      });
}

OpFoldResult jeet::detail::foldComparison(Attribute lhs, Attribute rhs,
                                          Type resultType,
                                          arith::CmpFPredicate floatPredicate,
                                          arith::CmpIPredicate intPredicate,
                                          arith::CmpIPredicate boolPredicate) {
  return foldBinaryElements(
      lhs, rhs, resultType,
      [&](Attribute a, Attribute b, Type elementType) -> Attribute {
        bool result;
        if (auto fa = dyn_cast<FloatAttr>(a)) {
          result = arith::applyCmpPredicate(floatPredicate, fa.getValue(),
                                            cast<FloatAttr>(b).getValue());
        } else {
          auto ia = cast<IntegerAttr>(a);
          result = arith::applyCmpPredicate(
              ia.getType().isInteger(1) ? boolPredicate : intPredicate,
              ia.getValue(), cast<IntegerAttr>(b).getValue());
        }
        return IntegerAttr::get(elementType, result);
      });
}

/// Folds a unary op on a small constant, element by element.
static Attribute
foldUnaryConstant(Attribute inputAttr, Type resultType,
                  function_ref<APFloat(const APFloat &)> floatFn,
                  function_ref<APInt(const APInt &)> intFn) {
  auto input = dyn_cast_or_null<DenseElementsAttr>(inputAttr);
  if (!input)
    return {};
  if (!input.isSplat() && input.getNumElements() > kMaxFoldElements)
    return {};
  auto type = cast<ShapedType>(resultType);
  if (isa<FloatType>(type.getElementType()))
    return input.mapValues(type.getElementType(), [&](const APFloat &v) {
      return floatFn(v).bitcastToAPInt();
    });
  return input.mapValues(type.getElementType(),
                         [&](const APInt &v) { return intFn(v); });
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult
ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                             Adaptor adaptor,
                             SmallVectorImpl<Type> &inferredReturnTypes) {
  auto value = dyn_cast_or_null<ElementsAttr>(adaptor.getValueAttr());
  if (!value)
    return emitOptionalError(loc, "'jeet.constant' op requires a `value` "
                                  "elements attribute");
  inferredReturnTypes.push_back(value.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  if (!isa<DenseElementsAttr, DenseResourceElementsAttr>(getValue()))
    return emitOpError("value must be a dense elements attribute, got ")
           << getValue();
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

/// `x op identity` folds to `x` only when no broadcast happens, i.e. x already
/// has the result's type.
static OpFoldResult foldToOperandIfSameType(Value operand, Type resultType) {
  if (operand.getType() == resultType)
    return operand;
  return {};
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // x + (-0.0) is x exactly, for every x including -0.0 and NaN; x + 0.0 is
  // not (it turns -0.0 into +0.0).
  if (isIdentity(adaptor.getRhs(), 0, /*negativeZero=*/true))
    if (auto r = foldToOperandIfSameType(getLhs(), getType()))
      return r;
  if (isIdentity(adaptor.getLhs(), 0, /*negativeZero=*/true))
    if (auto r = foldToOperandIfSameType(getRhs(), getType()))
      return r;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a + b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  // x - (+0.0) is x exactly.
  if (isIdentity(adaptor.getRhs(), 0, /*negativeZero=*/false))
    if (auto r = foldToOperandIfSameType(getLhs(), getType()))
      return r;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a - b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isIdentity(adaptor.getRhs(), 1, false))
    if (auto r = foldToOperandIfSameType(getLhs(), getType()))
      return r;
  if (isIdentity(adaptor.getLhs(), 1, false))
    if (auto r = foldToOperandIfSameType(getRhs(), getType()))
      return r;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a * b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isIdentity(adaptor.getRhs(), 1, false))
    if (auto r = foldToOperandIfSameType(getLhs(), getType()))
      return r;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a / b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        // The values DivOp::buildScalar computes at run time.
        if (b.isZero())
          return APInt::getAllOnes(a.getBitWidth());
        if (a.isMinSignedValue() && b.isAllOnes())
          return a;
        return a.sdiv(b);
      });
}

OpFoldResult RemOp::fold(FoldAdaptor adaptor) {
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        APFloat r = a;
        r.mod(b);
        return r;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        // The values RemOp::buildScalar computes at run time.
        if (b.isZero())
          return a;
        if (b.isAllOnes())
          return APInt::getZero(a.getBitWidth());
        return a.srem(b);
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::maximum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a.sgt(b) ? a : b;
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::minimum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a.slt(b) ? a : b;
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  // x ** 1 is x exactly; other powers depend on the math library's rounding.
  if (isIdentity(adaptor.getRhs(), 1, false))
    if (auto r = foldToOperandIfSameType(getLhs(), getType()))
      return r;
  return {};
}

/// `x op value` folds to `x` when `value` is a splat of the integer `identity`
/// (all ones: -1) and to the splat `absorbing` when it is that: the two
/// operands are tried in turn.
static OpFoldResult foldLogical(Value lhs, Value rhs, Attribute lhsAttr,
                                Attribute rhsAttr, Type resultType,
                                std::optional<int64_t> identity,
                                std::optional<int64_t> absorbing) {
  for (auto [other, attr] :
       {std::make_pair(lhs, rhsAttr), std::make_pair(rhs, lhsAttr)}) {
    if (identity && isSplatInt(attr, *identity))
      if (auto r = foldToOperandIfSameType(other, resultType))
        return r;
    if (absorbing && isSplatInt(attr, *absorbing))
      return DenseElementsAttr::get(cast<ShapedType>(resultType),
                                    *getSplat(attr));
  }
  return {};
}

/// No float operand reaches a logical op (the verifier allows integers and
/// booleans only).
static std::optional<APFloat> noFloatFold(const APFloat &, const APFloat &) {
  return std::nullopt;
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldLogical(getLhs(), getRhs(), adaptor.getLhs(), adaptor.getRhs(),
                      getType(), /*identity=*/-1, /*absorbing=*/0))
    return r;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(), noFloatFold,
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a & b;
      });
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldLogical(getLhs(), getRhs(), adaptor.getLhs(), adaptor.getRhs(),
                      getType(), /*identity=*/0, /*absorbing=*/-1))
    return r;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(), noFloatFold,
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a | b;
      });
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldLogical(getLhs(), getRhs(), adaptor.getLhs(), adaptor.getRhs(),
                      getType(), /*identity=*/0, /*absorbing=*/std::nullopt))
    return r;
  return foldBinaryConstants(
      adaptor.getLhs(), adaptor.getRhs(), getType(), noFloatFold,
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a ^ b;
      });
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  Type conditionType = adaptor.getCondition().getType(),
       trueType = adaptor.getTrueValue().getType(),
       falseType = adaptor.getFalseValue().getType();
  auto tensors = getStaticTensors(getOperationName(), loc,
                                  {conditionType, trueType, falseType});
  if (failed(tensors))
    return failure();
  auto [condition, onTrue, onFalse] =
      std::make_tuple((*tensors)[0], (*tensors)[1], (*tensors)[2]);
  if (!condition.getElementType().isInteger(1))
    return emitOptionalError(
        loc,
        "'jeet.select' op condition must be a tensor of booleans (i1), "
        "got ",
        conditionType);
  if (onTrue.getElementType() != onFalse.getElementType())
    return emitOptionalError(loc,
                             "'jeet.select' op the two values' element types "
                             "differ: ",
                             trueType, " and ", falseType);
  auto values = broadcastShapes(onTrue.getShape(), onFalse.getShape());
  std::optional<SmallVector<int64_t>> shape;
  if (values)
    shape = broadcastShapes(condition.getShape(), *values);
  if (!shape)
    return emitOptionalError(loc,
                             "'jeet.select' op operand shapes are not "
                             "broadcast-compatible: ",
                             conditionType, ", ", trueType, " and ", falseType);
  results.push_back(RankedTensorType::get(*shape, onTrue.getElementType()));
  return success();
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getTrueValue() == getFalseValue())
    if (auto r = foldToOperandIfSameType(getTrueValue(), getType()))
      return r;
  if (isSplatInt(adaptor.getCondition(), -1))
    return foldToOperandIfSameType(getTrueValue(), getType());
  if (isSplatInt(adaptor.getCondition(), 0))
    return foldToOperandIfSameType(getFalseValue(), getType());
  return {};
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return foldUnaryConstant(
      adaptor.getInput(), getType(), [](const APFloat &v) { return -v; },
      [](const APInt &v) { return -v; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<AbsOp>())
    return inner.getResult();
  return foldUnaryConstant(
      adaptor.getInput(), getType(),
      [](const APFloat &v) { return llvm::abs(v); },
      [](const APInt &v) { return v.abs(); });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<ReluOp>())
    return inner.getResult();
  return foldUnaryConstant(
      adaptor.getInput(), getType(),
      [](const APFloat &v) {
        return llvm::maximum(v, APFloat::getZero(v.getSemantics()));
      },
      [](const APInt &v) {
        return v.isNegative() ? APInt::getZero(v.getBitWidth()) : v;
      });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NotOp>())
    return inner.getInput();
  return foldUnaryConstant(
      adaptor.getInput(), getType(), [](const APFloat &v) { return v; },
      [](const APInt &v) { return ~v; });
}

LogicalResult GeluOp::verify() {
  StringRef approximate = getApproximate();
  if (approximate != kExactForm && approximate != kTanhApproximation)
    return emitOpError("approximate must be \"")
           << kExactForm << "\" or \"" << kTanhApproximation << "\", got \""
           << approximate << "\"";
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  Type lhsType = adaptor.getLhs().getType(),
       rhsType = adaptor.getRhs().getType();
  auto tensors = getStaticTensors(getOperationName(), loc, {lhsType, rhsType});
  if (failed(tensors))
    return failure();
  RankedTensorType lhs = (*tensors)[0], rhs = (*tensors)[1];
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(
        loc, "'jeet.matmul' op operand element types differ: ", lhsType,
        " and ", rhsType);
  if (lhs.getRank() < 1 || rhs.getRank() < 1)
    return emitOptionalError(
        loc, "'jeet.matmul' op operands must have rank 1 or more, got ",
        lhsType, " and ", rhsType);
  // A 1-D operand is a row (lhs) or a column (rhs), as in numpy.
  SmallVector<int64_t> a = promoteMatmulOperand(lhs, /*isLhs=*/true),
                       b = promoteMatmulOperand(rhs, /*isLhs=*/false);
  int64_t k1 = a[a.size() - 1], k2 = b[b.size() - 2];
  if (k1 != k2)
    return emitOptionalError(
        loc, "'jeet.matmul' op contraction dimensions differ: ", lhsType,
        " has K = ", k1, " but ", rhsType, " has K = ", k2);
  auto batch = broadcastShapes(ArrayRef<int64_t>(a).drop_back(2),
                               ArrayRef<int64_t>(b).drop_back(2));
  if (!batch)
    return emitOptionalError(
        loc, "'jeet.matmul' op batch dimensions are not broadcast-compatible: ",
        lhsType, " and ", rhsType);
  SmallVector<int64_t> shape = *batch;
  // The promoted dimensions are dropped again.
  if (lhs.getRank() > 1)
    shape.push_back(a[a.size() - 2]);
  if (rhs.getRank() > 1)
    shape.push_back(b[b.size() - 1]);
  results.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

SmallVector<int64_t> jeet::promoteMatmulOperand(RankedTensorType type,
                                                bool isLhs) {
  SmallVector<int64_t> shape(type.getShape());
  if (shape.size() == 1)
    shape.insert(isLhs ? shape.begin() : shape.end(), 1);
  return shape;
}

Type MatmulOp::getAccumulatorType() {
  return detail::widenLowPrecisionFloat(getType().getElementType());
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  Type inputType = adaptor.getInput().getType();
  auto tensors = getStaticTensors(getOperationName(), loc, inputType);
  if (failed(tensors))
    return failure();
  RankedTensorType input = tensors->front();
  if (!adaptor.getPermutationAttr())
    return missingAttribute(getOperationName(), loc, "permutation");
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if (static_cast<int64_t>(perm.size()) != input.getRank())
    return emitOptionalError(
        loc, "'jeet.transpose' op permutation ", formatList(perm), " has ",
        perm.size(), " entries but ", inputType, " has rank ", input.getRank());
  if (failed(verifyAxes(getOperationName(), loc, "permutation", perm, input,
                        /*allowEmpty=*/true)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(input.getDimSize(p));
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

bool jeet::isMatrixTranspose(TransposeOp op) {
  ArrayRef<int64_t> perm = op.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2 || perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return false;
  return llvm::equal(perm.drop_back(2), llvm::seq<int64_t>(0, rank - 2));
}

bool jeet::foldsIntoMatmuls(TransposeOp op) {
  if (!isMatrixTranspose(op) || op->use_empty())
    return false;
  return llvm::all_of(op->getUses(), [](OpOperand &use) {
    auto matmul = dyn_cast<MatmulOp>(use.getOwner());
    return matmul && matmul.getLhs().getType().getRank() >= 2 &&
           matmul.getRhs().getType().getRank() >= 2;
  });
}

bool jeet::isViewSlice(SliceOp op) {
  // A constant's slice is a view of its global too (a depthwise filter's
  // taps); on the GPU jeet-gpu-sink-globals takes the view into the kernel
  // with the global.
  return llvm::all_of(op.getSteps(), [](int64_t step) { return step > 0; });
}

std::optional<SmallVector<ReshapeGroup>>
jeet::getReshapeGroups(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  auto nonUnit =
      [](ArrayRef<int64_t> shape) -> std::optional<SmallVector<int64_t>> {
    SmallVector<int64_t> dims;
    for (auto [d, size] : llvm::enumerate(shape)) {
      if (size <= 0)
        return std::nullopt;
      if (size != 1)
        dims.push_back(d);
    }
    return dims;
  };
  std::optional<SmallVector<int64_t>> f = nonUnit(from), t = nonUnit(to);
  if (!f || !t)
    return std::nullopt;
  SmallVector<ReshapeGroup> groups;
  size_t i = 0, j = 0;
  while (i < f->size() || j < t->size()) {
    if (i == f->size() || j == t->size())
      return std::nullopt;
    ReshapeGroup group;
    int64_t fromSize = from[(*f)[i]], toSize = to[(*t)[j]];
    group.from.push_back((*f)[i++]);
    group.to.push_back((*t)[j++]);
    while (fromSize != toSize) {
      if (fromSize < toSize) {
        if (i == f->size())
          return std::nullopt;
        fromSize *= from[(*f)[i]];
        group.from.push_back((*f)[i++]);
      } else {
        if (j == t->size())
          return std::nullopt;
        toSize *= to[(*t)[j]];
        group.to.push_back((*t)[j++]);
      }
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

bool jeet::isSplittingReshape(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  std::optional<SmallVector<ReshapeGroup>> groups = getReshapeGroups(from, to);
  return groups && !groups->empty() &&
         llvm::all_of(*groups, [](const ReshapeGroup &group) {
           return group.from.size() == 1;
         });
}

bool jeet::isSplittingReshape(ReshapeOp op) {
  return isSplittingReshape(op.getInput().getType().getShape(),
                            op.getType().getShape());
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  // transpose(transpose(x, inner), outer) == transpose(x, inner o outer).
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> innerPerm = inner.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(innerPerm[p]);
    setPermutation(composed);
    getInputMutable().assign(inner.getInput());
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
      return getInput();
    return getResult();
  }
  return {};
}

namespace {
/// A transpose that only moves dimensions of size 1 is a reshape.
struct TransposeOfUnitDims : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getInput().getType();
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    // The input dimensions the result reads, in order, without the 1s.
    SmallVector<int64_t> moved;
    for (int64_t dim : op.getPermutation())
      if (type.getDimSize(dim) != 1)
        moved.push_back(dim);
    if (!llvm::is_sorted(moved))
      return rewriter.notifyMatchFailure(op, "moves elements");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

/// A gather of one constant index is a slice of one element along the
/// axis, reshaped to the result's shape.
struct GatherOfConstantIndex : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getData().getType();
    auto constant = op.getIndices().getDefiningOp<ConstantOp>();
    auto values = constant ? dyn_cast<DenseIntElementsAttr>(constant.getValue())
                           : DenseIntElementsAttr();
    int64_t axis = op.getAxis();
    if (!values || values.getNumElements() != 1 || !type.hasStaticShape() ||
        !op.getType().hasStaticShape())
      return rewriter.notifyMatchFailure(op, "not one constant index");
    // The index as the op reads it: from the end when negative, clamped.
    int64_t size = type.getDimSize(axis);
    if (size == 0)
      return rewriter.notifyMatchFailure(op, "empty axis");
    int64_t index = (*values.getValues<APInt>().begin()).getSExtValue();
    if (index < 0)
      index += size;
    index = std::clamp<int64_t>(index, 0, size - 1);
    SmallVector<int64_t> starts(type.getRank(), 0), steps(type.getRank(), 1);
    SmallVector<int64_t> stops(type.getShape());
    starts[axis] = index;
    stops[axis] = index + 1;
    Value slice = SliceOp::create(rewriter, op.getLoc(), op.getData(), starts,
                                  stops, steps);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), slice);
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<TransposeOfUnitDims>(context);
}

void GatherOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<GatherOfConstantIndex>(context);
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("changes the element type: ") << in << " to " << out;
  // ShapedType::getNumElements wraps around for huge shapes; count carefully.
  std::optional<int64_t> inCount = jeet::getNumElements(in.getShape());
  std::optional<int64_t> outCount = jeet::getNumElements(out.getShape());
  if (!inCount || !outCount)
    return emitOpError("cannot reshape ")
           << in << " to " << out
           << ": the element count does not fit in 64 bits";
  if (*inCount != *outCount)
    return emitOpError("cannot reshape ")
           << in << " (" << *inCount << " elements) to " << out << " ("
           << *outCount << " elements)";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  // Constants are reshaped only when small (or splats), like other folds, so
  // that a large constant is not copied.
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat() || dense.getNumElements() <= kMaxFoldElements)
      return dense.reshape(getType());
  return {};
}

namespace {
/// A reshape that only adds or removes dimensions of size 1 of a transpose
/// (its only reader) is a transpose of the transpose's input so reshaped:
/// the result's dimensions of size 1 where they are in the result (the
/// transpose leaves them in place), the input's other dimensions in the
/// other places in their order.
struct ReshapeOfTranspose : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getInput().getDefiningOp<TransposeOp>();
    if (!transpose || !transpose->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not the reshape of a transpose");
    RankedTensorType input = transpose.getInput().getType();
    ArrayRef<int64_t> shape = op.getType().getShape();
    std::optional<SmallVector<ReshapeGroup>> groups =
        getReshapeGroups(transpose.getType().getShape(), shape);
    if (!groups || llvm::any_of(*groups, [](const ReshapeGroup &group) {
          return group.from.size() != 1 || group.to.size() != 1;
        }))
      return rewriter.notifyMatchFailure(op, "not only dimensions of size 1");
    SmallVector<int64_t> reshaped(shape.size(), 1), permutation(shape.size());
    // Each input dimension other than 1 goes to the next place of the
    // result's dimensions other than 1.
    SmallVector<int64_t> placeOf(input.getRank(), 0);
    auto group = groups->begin();
    for (auto [d, size] : llvm::enumerate(input.getShape())) {
      if (size == 1)
        continue;
      int64_t place = group++->to.front();
      placeOf[d] = place;
      reshaped[place] = size;
    }
    for (auto [d, size] : llvm::enumerate(shape))
      permutation[d] = d;
    for (const ReshapeGroup &g : *groups)
      permutation[g.to.front()] =
          placeOf[transpose.getPermutation()[g.from.front()]];
    Value moved = ReshapeOp::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(reshaped, input.getElementType()),
        transpose.getInput());
    rewriter.replaceOpWithNewOp<TransposeOp>(op, moved, permutation);
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<ReshapeOfTranspose>(context);
}

//===----------------------------------------------------------------------===//
// BroadcastToOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastToOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("changes the element type: ") << in << " to " << out;
  if (!isBroadcastableTo(in.getShape(), out.getShape()))
    return emitOpError("cannot broadcast ") << in << " to " << out;
  return success();
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto splat = getSplat(adaptor.getInput()))
    return DenseElementsAttr::get(getType(), *splat);
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult jeet::detail::inferReductionResultType(
    StringRef opName, std::optional<Location> loc, Type inputType,
    DenseI64ArrayAttr axes, bool keepdims, SmallVectorImpl<Type> &results) {
  auto tensors = getStaticTensors(opName, loc, inputType);
  if (failed(tensors))
    return failure();
  RankedTensorType input = tensors->front();
  if (!axes)
    return missingAttribute(opName, loc, "axes");
  if (failed(verifyAxes(opName, loc, "axes", axes.asArrayRef(), input,
                        /*allowEmpty=*/false)))
    return failure();
  results.push_back(RankedTensorType::get(
      reducedShape(input.getShape(), axes.asArrayRef(), keepdims),
      input.getElementType()));
  return success();
}

LogicalResult jeet::detail::inferArgReductionResultType(
    StringRef opName, std::optional<Location> loc, Type inputType,
    IntegerAttr axis, bool keepdims, SmallVectorImpl<Type> &results) {
  auto tensors = getStaticTensors(opName, loc, inputType);
  if (failed(tensors))
    return failure();
  RankedTensorType input = tensors->front();
  if (!axis)
    return missingAttribute(opName, loc, "axis");
  int64_t axes[] = {axis.getInt()};
  if (failed(verifyAxes(opName, loc, "axis", axes, input,
                        /*allowEmpty=*/false)))
    return failure();
  results.push_back(
      RankedTensorType::get(reducedShape(input.getShape(), axes, keepdims),
                            IntegerType::get(input.getContext(), 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  RankedTensorType type = getType();
  int64_t rank = type.getRank();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ")
           << axis << " out of range [0, " << rank << ") for " << type;
  return success();
}

OpFoldResult IotaOp::fold(FoldAdaptor) {
  RankedTensorType type = getType();
  if (type.getNumElements() > kMaxFoldedElements)
    return {};
  Type elementType = type.getElementType();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t axis = getAxis();
  // The stride of `axis` in the row-major order of the elements.
  int64_t stride = 1;
  for (int64_t size : shape.drop_front(axis + 1))
    stride *= size;
  SmallVector<Attribute> values;
  for (int64_t i = 0, n = type.getNumElements(); i < n; ++i) {
    int64_t index = (i / stride) % shape[axis];
    if (isa<FloatType>(elementType))
      values.push_back(FloatAttr::get(elementType, static_cast<double>(index)));
    else
      values.push_back(IntegerAttr::get(elementType, index));
  }
  return DenseElementsAttr::get(type, values);
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  SmallVector<Type> types(adaptor.getInputs().getTypes());
  if (types.empty())
    return emitOptionalError(loc, "'", name, "' op needs at least one input");
  auto tensors = getStaticTensors(name, loc, types);
  if (failed(tensors))
    return failure();
  if (!adaptor.getAxisAttr())
    return missingAttribute(name, loc, "axis");
  RankedTensorType first = tensors->front();
  int64_t axes[] = {static_cast<int64_t>(adaptor.getAxis())};
  if (failed(verifyAxes(name, loc, "axis", axes, first, /*allowEmpty=*/false)))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  shape[axes[0]] = 0;
  for (RankedTensorType tensor : *tensors) {
    if (tensor.getElementType() != first.getElementType())
      return emitOptionalError(loc, "'", name,
                               "' op input element types differ: ", first,
                               " and ", tensor);
    bool sameSizes = tensor.getRank() == first.getRank();
    for (int64_t d = 0; sameSizes && d < first.getRank(); ++d)
      sameSizes = d == axes[0] || tensor.getDimSize(d) == shape[d];
    if (!sameSizes)
      return emitOptionalError(loc, "'", name, "' op inputs ", first, " and ",
                               tensor, " differ outside axis ", axes[0]);
    shape[axes[0]] += tensor.getDimSize(axes[0]);
  }
  results.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return foldToOperandIfSameType(getInputs().front(), getType());
  return {};
}

namespace {
/// concat(a, b, c) where concat(a, b) along the same axis comes before it:
/// concat(concat(a, b), c). Densenet concatenates all the features of a
/// block before each layer, each concatenation the one before and one more
/// input: as a concatenation of the one before, each copies no more bytes,
/// and the memory plan puts the one before in its slice (coalesced
/// copies), so the block's features are written once. The longest such
/// prefix is taken.
struct ConcatOfEarlierConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    OperandRange inputs = op.getInputs();
    if (inputs.size() < 3)
      return rewriter.notifyMatchFailure(op, "too few inputs to share two");
    ConcatOp longest;
    for (Operation *user : inputs.front().getUsers()) {
      auto earlier = dyn_cast<ConcatOp>(user);
      if (!earlier || earlier == op || earlier.getAxis() != op.getAxis() ||
          earlier->getBlock() != op->getBlock() ||
          !earlier->isBeforeInBlock(op))
        continue;
      OperandRange prefix = earlier.getInputs();
      if (prefix.size() < 2 || prefix.size() >= inputs.size() ||
          (longest && prefix.size() <= longest.getInputs().size()) ||
          !llvm::equal(prefix, inputs.take_front(prefix.size())))
        continue;
      longest = earlier;
    }
    if (!longest)
      return rewriter.notifyMatchFailure(op, "no earlier concat of a prefix");
    SmallVector<Value> joined = {longest.getResult()};
    llvm::append_range(joined, inputs.drop_front(longest.getInputs().size()));
    rewriter.modifyOpInPlace(op, [&] { op.getInputsMutable().assign(joined); });
    return success();
  }
};
} // namespace

void ConcatOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<ConcatOfEarlierConcat>(context);
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

SliceBounds jeet::getSliceBounds(int64_t size, int64_t start, int64_t stop,
                                 int64_t step) {
  // Python's slice.indices: negative bounds count from the end, then both
  // are clamped to [0, size] (forwards) or [-1, size - 1] (backwards).
  int64_t lower = step > 0 ? 0 : -1;
  int64_t upper = step > 0 ? size : size - 1;
  auto clamp = [&](int64_t bound) {
    if (bound < 0)
      bound = bound < -size ? lower : bound + size;
    return std::clamp(bound, lower, upper);
  };
  int64_t first = clamp(start), last = clamp(stop);
  int64_t span = step > 0 ? last - first : first - last;
  int64_t stride = step > 0 ? step : -step;
  int64_t count = span > 0 ? (span + stride - 1) / stride : 0;
  return {first, count};
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  Type inputType = adaptor.getInput().getType();
  auto tensors = getStaticTensors(name, loc, inputType);
  if (failed(tensors))
    return failure();
  RankedTensorType input = tensors->front();
  for (auto [attr, present] :
       {std::make_pair("starts", bool(adaptor.getStartsAttr())),
        std::make_pair("stops", bool(adaptor.getStopsAttr())),
        std::make_pair("steps", bool(adaptor.getStepsAttr()))})
    if (!present)
      return missingAttribute(name, loc, attr);
  ArrayRef<int64_t> starts = adaptor.getStarts(), stops = adaptor.getStops(),
                    steps = adaptor.getSteps();
  int64_t rank = input.getRank();
  for (auto [attr, values] :
       {std::make_pair("starts", starts), std::make_pair("stops", stops),
        std::make_pair("steps", steps)})
    if (static_cast<int64_t>(values.size()) != rank)
      return emitOptionalError(loc, "'", name, "' op ", attr, " ",
                               formatList(values), " has ", values.size(),
                               " entries but ", inputType, " has rank ", rank);
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (steps[d] == 0)
      return emitOptionalError(loc, "'", name, "' op steps ", formatList(steps),
                               " has a step of 0 (dimension ", d, ")");
    shape.push_back(
        getSliceBounds(input.getDimSize(d), starts[d], stops[d], steps[d])
            .count);
  }
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  // The whole input, forwards.
  RankedTensorType input = getInput().getType();
  for (int64_t d = 0; d < input.getRank(); ++d) {
    SliceBounds bounds = getSliceBounds(input.getDimSize(d), getStarts()[d],
                                        getStops()[d], getSteps()[d]);
    if (bounds.start != 0 || getSteps()[d] != 1 ||
        bounds.count != input.getDimSize(d))
      return {};
  }
  return foldToOperandIfSameType(getInput(), getType());
}

namespace {
/// Elements `start + i * step`, `i < count`, of one dimension, or of a group
/// of dimensions read as one (row-major).
struct Progression {
  int64_t start, count, step;
};

/// The box `boxes[k]` of a group of dimensions of `sizes` (row-major) as one
/// progression of the group's linear indices, if it is one: each dimension
/// that takes more than one element (with a positive step) steps over
/// exactly the span of the next such one (a contiguous run of whole rows,
/// or one column).
std::optional<Progression> boxToProgression(ArrayRef<int64_t> sizes,
                                            ArrayRef<Progression> boxes) {
  int64_t start = 0, count = 1, step = 1, span = 0;
  int64_t stride = 1;
  for (size_t k = sizes.size(); k-- > 0; stride *= sizes[k]) {
    const Progression &box = boxes[k];
    start += box.start * stride;
    if (box.count == 1)
      continue;
    if (box.step <= 0 || (span && box.step * stride != span))
      return std::nullopt;
    if (!span)
      step = box.step * stride;
    count *= box.count;
    span = box.step * stride * box.count;
  }
  return Progression{start, count, count > 1 ? step : 1};
}

/// The progression of linear indices as a box of a group of dimensions of
/// `sizes` (row-major), if it is one: the innermost dimension `d` whose
/// elements the progression steps over (the dimensions after it fixed, or
/// taken whole by a contiguous range) and fits in.
std::optional<SmallVector<Progression>>
progressionToBox(ArrayRef<int64_t> sizes, Progression linear) {
  size_t rank = sizes.size();
  int64_t inner = 1;
  for (size_t d = rank; d-- > 0; inner *= sizes[d]) {
    SmallVector<Progression> box(rank, Progression{0, 1, 1});
    // A contiguous range covers whole rows of the dimensions after `d`.
    bool whole = linear.step == 1 && linear.count > 1;
    if (whole ? (linear.start % inner || linear.count % inner)
              : (linear.count > 1 && linear.step % inner))
      continue;
    int64_t count = whole ? linear.count / inner : linear.count;
    int64_t step = whole ? 1 : linear.step / inner;
    int64_t outer = linear.start / inner, at = outer % sizes[d];
    if (at + (count - 1) * step >= sizes[d])
      continue;
    box[d] = Progression{at, count, count > 1 ? step : 1};
    int64_t rest = linear.start % inner;
    for (size_t k = rank; k-- > d + 1;) {
      box[k] = whole ? Progression{0, sizes[k], 1}
                     : Progression{rest % sizes[k], 1, 1};
      rest /= sizes[k];
    }
    outer /= sizes[d];
    for (size_t k = d; k-- > 0;) {
      box[k] = Progression{outer % sizes[k], 1, 1};
      outer /= sizes[k];
    }
    return box;
  }
  return std::nullopt;
}

/// A slice of a transpose that takes one element of every dimension the
/// transpose moves past another (other than 1) is a reshape of a slice of
/// the transpose's input: a view of the input where it read a copy.
struct SliceOfTranspose : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getInput().getDefiningOp<TransposeOp>();
    if (!transpose)
      return rewriter.notifyMatchFailure(op, "not a slice of a transpose");
    // The input dimensions the slice's result reads, in order, without 1s.
    SmallVector<int64_t> moved;
    for (auto [d, from] : llvm::enumerate(transpose.getPermutation()))
      if (op.getType().getDimSize(d) != 1)
        moved.push_back(from);
    if (!llvm::is_sorted(moved))
      return rewriter.notifyMatchFailure(op, "the slice is still transposed");
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<int64_t> starts(perm.size()), stops(perm.size()),
        steps(perm.size());
    for (auto [d, from] : llvm::enumerate(perm)) {
      starts[from] = op.getStarts()[d];
      stops[from] = op.getStops()[d];
      steps[from] = op.getSteps()[d];
    }
    Value slice = SliceOp::create(rewriter, op.getLoc(), transpose.getInput(),
                                  starts, stops, steps);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), slice);
    return success();
  }
};

/// A slice of a reshape is a reshape of a slice of the reshape's input
/// where, in every group of dimensions that the reshape splits or merges
/// (getReshapeGroups), the slice takes one progression of the group's
/// elements, which is a box of the input's dimensions of the group (one of
/// the matrices stacked along a dimension, whole rows of a matrix), and the
/// reshape after it only splits dimensions, so that both stay views.
struct SliceOfReshape : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto reshape = op.getInput().getDefiningOp<ReshapeOp>();
    if (!reshape)
      return rewriter.notifyMatchFailure(op, "not a slice of a reshape");
    ArrayRef<int64_t> from = reshape.getInput().getType().getShape(),
                      to = reshape.getType().getShape();
    std::optional<SmallVector<ReshapeGroup>> groups =
        getReshapeGroups(from, to);
    if (!groups)
      return rewriter.notifyMatchFailure(op, "no groups of dimensions");
    SmallVector<Progression> taken;
    for (auto [d, size] : llvm::enumerate(to)) {
      int64_t step = op.getSteps()[d];
      SliceBounds bounds =
          getSliceBounds(size, op.getStarts()[d], op.getStops()[d], step);
      if (bounds.count == 0)
        return rewriter.notifyMatchFailure(op, "an empty slice");
      taken.push_back({bounds.start, bounds.count, step});
    }
    size_t rank = from.size();
    SmallVector<int64_t> starts(rank, 0), stops(rank, 1), steps(rank, 1),
        shape(rank, 1);
    for (const ReshapeGroup &group : *groups) {
      if (group.from.size() == 1 && group.to.size() == 1) {
        int64_t d = group.to.front(), k = group.from.front();
        starts[k] = op.getStarts()[d];
        stops[k] = op.getStops()[d];
        steps[k] = op.getSteps()[d];
        shape[k] = taken[d].count;
        continue;
      }
      SmallVector<int64_t> toSizes, fromSizes;
      SmallVector<Progression> boxes;
      for (int64_t d : group.to) {
        toSizes.push_back(to[d]);
        boxes.push_back(taken[d]);
      }
      for (int64_t k : group.from)
        fromSizes.push_back(from[k]);
      std::optional<Progression> linear = boxToProgression(toSizes, boxes);
      std::optional<SmallVector<Progression>> box =
          linear ? progressionToBox(fromSizes, *linear) : std::nullopt;
      if (!box)
        return rewriter.notifyMatchFailure(op, "not a box of the input");
      for (auto [k, range] : llvm::zip_equal(group.from, *box)) {
        starts[k] = range.start;
        stops[k] = range.start + (range.count - 1) * range.step + 1;
        steps[k] = range.step;
        shape[k] = range.count;
      }
    }
    if (!isSplittingReshape(shape, op.getType().getShape()))
      return rewriter.notifyMatchFailure(op, "the reshape after would merge");
    Value slice = SliceOp::create(rewriter, op.getLoc(), reshape.getInput(),
                                  starts, stops, steps);
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), slice);
    return success();
  }
};
} // namespace

void SliceOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<SliceOfTranspose, SliceOfReshape>(context);
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  Type dataType = adaptor.getData().getType(),
       indicesType = adaptor.getIndices().getType();
  auto tensors = getStaticTensors(name, loc, {dataType, indicesType});
  if (failed(tensors))
    return failure();
  RankedTensorType data = (*tensors)[0], indices = (*tensors)[1];
  if (!adaptor.getAxisAttr())
    return missingAttribute(name, loc, "axis");
  int64_t axis = adaptor.getAxis();
  int64_t axes[] = {axis};
  if (failed(verifyAxes(name, loc, "axis", axes, data, /*allowEmpty=*/false)))
    return failure();
  if (data.getDimSize(axis) == 0 && indices.getNumElements() != 0)
    return emitOptionalError(loc, "'", name, "' op cannot take indices ",
                             indicesType, " from axis ", axis, " of ", dataType,
                             ", which is empty");
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  results.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  Type inputType = adaptor.getInput().getType(),
       valueType = adaptor.getValue().getType();
  auto tensors = getStaticTensors(name, loc, {inputType, valueType});
  if (failed(tensors))
    return failure();
  RankedTensorType input = (*tensors)[0], value = (*tensors)[1];
  if (value.getRank() != 0 || value.getElementType() != input.getElementType())
    return emitOptionalError(loc, "'", name,
                             "' op the value must be a 0-d tensor of the "
                             "input's element type: ",
                             valueType, " for ", inputType);
  for (auto [attr, present] :
       {std::make_pair("low", bool(adaptor.getLowAttr())),
        std::make_pair("high", bool(adaptor.getHighAttr()))})
    if (!present)
      return missingAttribute(name, loc, attr);
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  int64_t rank = input.getRank();
  SmallVector<int64_t> shape;
  for (auto [attr, values] :
       {std::make_pair("low", low), std::make_pair("high", high)}) {
    if (static_cast<int64_t>(values.size()) != rank)
      return emitOptionalError(loc, "'", name, "' op ", attr, " ",
                               formatList(values), " has ", values.size(),
                               " entries but ", inputType, " has rank ", rank);
    if (llvm::any_of(values, [](int64_t v) { return v < 0; }))
      return emitOptionalError(loc, "'", name, "' op ", attr, " ",
                               formatList(values),
                               " has a negative entry (crop with jeet.slice)");
  }
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(input.getDimSize(d) + low[d] + high[d]);
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (llvm::all_of(getLow(), [](int64_t v) { return v == 0; }) &&
      llvm::all_of(getHigh(), [](int64_t v) { return v == 0; }))
    return foldToOperandIfSameType(getInput(), getType());
  return {};
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getType().getRank();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " out of range [0, " << rank
                                << ") for " << getInput().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto in = getInput().getType(), out = getType();
  if (in.getShape() != out.getShape())
    return emitOpError("changes the shape: ")
           << in << " to " << out << " (only the element type may change)";
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------===//

void FusionOp::build(OpBuilder &builder, OperationState &state,
                     TypeRange resultTypes, ValueRange inputs) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

LogicalResult FusionOp::verifyRegions() {
  if (getNumResults() == 0)
    return emitOpError("returns no values; a kernel must produce at least "
                       "one tensor");
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError("has ")
           << getInputs().size() << " inputs but its region takes "
           << block.getNumArguments() << " arguments";
  for (auto [i, input, arg] :
       llvm::enumerate(getInputs(), block.getArguments()))
    if (input.getType() != arg.getType())
      return emitOpError("input #")
             << i << " has type " << input.getType() << " but region argument #"
             << i << " has type " << arg.getType();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError("region must end with 'jeet.yield'");
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " value(s) of type(s) "
           << yield.getValues().getTypes() << " but the fusion returns "
           << getResultTypes();
  for (Operation &op : block.without_terminator()) {
    if (isa<FusionOp>(op))
      return op.emitOpError("cannot be nested in another 'jeet.fusion'");
    // Unregistered ops have no dialect.
    if (!isa_and_nonnull<JeetDialect>(op.getDialect()))
      return op.emitOpError("is not a jeet op; a 'jeet.fusion' region holds "
                            "jeet ops only");
  }
  return success();
}

// The op classes; their ODS definitions call the helpers of OpSupport.h.
#define GET_OP_CLASSES
#include "jeet/Dialect/Jeet/IR/JeetOps.cpp.inc"
