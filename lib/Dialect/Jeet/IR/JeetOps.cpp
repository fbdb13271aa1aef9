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
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

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

/// Folds a binary op whose operands are both constants, element by element
/// with numpy broadcasting. Only small constants are folded (any splat).
static Attribute foldBinaryConstants(Attribute lhsAttr, Attribute rhsAttr,
                                     Type resultType, FloatFn floatFn,
                                     IntFn intFn) {
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
    Attribute a = at(lhs, i), b = at(rhs, i);
    if (auto fa = dyn_cast<FloatAttr>(a)) {
      auto r = floatFn(fa.getValue(), cast<FloatAttr>(b).getValue());
      if (!r)
        return {};
      values.push_back(FloatAttr::get(elementType, *r));
    } else {
      auto r = intFn(cast<IntegerAttr>(a).getValue(),
                     cast<IntegerAttr>(b).getValue());
      if (!r)
        return {};
      values.push_back(IntegerAttr::get(elementType, *r));
    }
  }
  if (splat)
    return DenseElementsAttr::get(type, values.front());
  return DenseElementsAttr::get(type, values);
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
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOptionalError(
        loc, "'jeet.matmul' op operands must have rank 2 or more, got ",
        lhsType, " and ", rhsType);
  ArrayRef<int64_t> a = lhs.getShape(), b = rhs.getShape();
  int64_t k1 = a[a.size() - 1], k2 = b[b.size() - 2];
  if (k1 != k2)
    return emitOptionalError(
        loc, "'jeet.matmul' op contraction dimensions differ: ", lhsType,
        " has K = ", k1, " but ", rhsType, " has K = ", k2);
  auto batch = broadcastShapes(a.drop_back(2), b.drop_back(2));
  if (!batch)
    return emitOptionalError(
        loc, "'jeet.matmul' op batch dimensions are not broadcast-compatible: ",
        lhsType, " and ", rhsType);
  SmallVector<int64_t> shape = *batch;
  shape.push_back(a[a.size() - 2]);
  shape.push_back(b[b.size() - 1]);
  results.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
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
