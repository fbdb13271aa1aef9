//===- Convolution.cpp - conv2d and 2-D pooling as im2col -----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// conv2d, max_pool2d and avg_pool2d: type inference and their decomposition
// into other jeet ops. All three take the windows of the padded input
// (jeet.pad, then jeet.im2col, an affine copy that the code generators
// vectorise) as (N, C, KH, KW, OH, OW), so that a convolution is a matmul
// of the filter (O, C * KH * KW) with them as (N, C * KH * KW, OH * OW), and
// a pooling a reduction over their window dimensions (2 and 3). A pooling
// of up to 49 taps is the maximum (the sum) of the padded input's strided
// views, one per offset of the kernel, with no copy; a larger one whose
// windows tile its input (strides equal to the kernel, no padding, no
// dilation) reduces a reshape of the input instead, (N, C, OH, KH, OW, KW)
// over dimensions 3 and 5. The CPU and GPU code generators then compute
// them with their matmul, reduction and elementwise kernels.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/ConvolutionForms.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "OpSupport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

#include <cstring>
#include <limits>

using namespace mlir;
using namespace jeet;

namespace {

/// The number of spatial dimensions, and of entries of `padding`.
constexpr int64_t kSpatialDims = 2;
constexpr int64_t kPaddingEntries = 2 * kSpatialDims;
/// NCHW and OIHW.
constexpr int64_t kRank = 4;
/// The largest kernel (KH * KW) computed from views of the padded input at
/// its offsets (7x7: foldWindows), a depthwise convolution's sum or a
/// pooling's maximum or sum; larger ones keep the grouped matmul or the
/// reduction of gathered windows.
constexpr int64_t kMaxWindowTaps = 49;

/// The geometry of the windows of a 2-D convolution or pooling.
struct Window {
  int64_t kernel[kSpatialDims];
  int64_t strides[kSpatialDims];
  int64_t dilations[kSpatialDims];
  /// top, left, bottom, right.
  int64_t padding[kPaddingEntries];
  /// The input's and the output's spatial sizes.
  int64_t in[kSpatialDims];
  int64_t out[kSpatialDims];

  int64_t padded(int64_t d) const {
    return in[d] + padding[d] + padding[d + kSpatialDims];
  }
};

std::string formatList(ArrayRef<int64_t> values) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(values, os);
  return text + "]";
}

/// Checks the window attributes against the input type (rank 4) and fills
/// `window`; emits an error naming the op otherwise.
LogicalResult getWindow(StringRef name, std::optional<Location> loc,
                        RankedTensorType input, ArrayRef<int64_t> kernel,
                        DenseI64ArrayAttr strides, DenseI64ArrayAttr padding,
                        DenseI64ArrayAttr dilations, Window &window) {
  if (!strides || !padding || !dilations)
    return emitOptionalError(loc, "'", name, "' op requires attributes ",
                             "'strides', 'padding' and 'dilations'");
  if (input.getRank() != kRank)
    return emitOptionalError(
        loc, "'", name, "' op expects an NCHW input of rank 4, got ", input);
  struct Entries {
    const char *what;
    ArrayRef<int64_t> values;
    int64_t count;
    int64_t min;
  } entries[] = {{"strides", strides.asArrayRef(), kSpatialDims, 1},
                 {"padding", padding.asArrayRef(), kPaddingEntries, 0},
                 {"dilations", dilations.asArrayRef(), kSpatialDims, 1}};
  for (const Entries &e : entries) {
    if (static_cast<int64_t>(e.values.size()) != e.count ||
        llvm::any_of(e.values, [&](int64_t v) { return v < e.min; }))
      return emitOptionalError(loc, "'", name, "' op ", e.what, " ",
                               formatList(e.values), " must have ", e.count,
                               " entries of at least ", e.min);
  }
  for (int64_t d = 0; d < kSpatialDims; ++d) {
    window.kernel[d] = kernel[d];
    window.strides[d] = strides[d];
    window.dilations[d] = dilations[d];
    window.padding[d] = padding[d];
    window.padding[d + kSpatialDims] = padding[d + kSpatialDims];
    window.in[d] = input.getDimSize(d + kRank - kSpatialDims);
    int64_t span = window.dilations[d] * (window.kernel[d] - 1) + 1;
    int64_t room = window.padded(d) - span;
    if (window.kernel[d] < 1 || room < 0)
      return emitOptionalError(
          loc, "'", name, "' op a window of ", formatList(kernel),
          " (dilations ", formatList(dilations.asArrayRef()),
          ") does not fit the padded input ", input, " (padding ",
          formatList(padding.asArrayRef()), ")");
    window.out[d] = room / window.strides[d] + 1;
  }
  return success();
}

/// A rank-0 jeet constant.
Value scalarConstant(OpBuilder &b, Location loc, TypedAttr value) {
  auto type = RankedTensorType::get({}, value.getType());
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, value));
}

Value reshape(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(x.getType());
  return ReshapeOp::create(b, loc, type.clone(shape), x);
}

/// `x` (N, C, H, W), or (N, H, W, C) with `channelsLast`, padded with
/// `padValue` by the window's padding (a pad of none folds away).
Value padForWindows(OpBuilder &b, Location loc, Value x, const Window &w,
                    TypedAttr padValue, bool channelsLast = false) {
  SmallVector<int64_t> low = {0, 0, w.padding[0], w.padding[1]};
  SmallVector<int64_t> high = {0, 0, w.padding[2], w.padding[3]};
  if (channelsLast) {
    low = {0, w.padding[0], w.padding[1], 0};
    high = {0, w.padding[2], w.padding[3], 0};
  }
  return PadOp::create(b, loc, x, scalarConstant(b, loc, padValue), low, high);
}

/// The windows of `x` (N, C, H, W) padded with `padValue`:
/// (N, C, KH, KW, OH, OW), element (n, c, kh, kw, oh, ow) being padded x at
/// (oh * sh + kh * dh, ow * sw + kw * dw).
Value gatherWindows(OpBuilder &b, Location loc, Value x, const Window &w,
                    TypedAttr padValue) {
  Value padded = padForWindows(b, loc, x, w, padValue);
  // The windows of 1 x 1 with unit strides (a pointwise convolution's) are
  // the padded input itself, reshaped: the matmul reads it in place, where
  // an im2col copied it whole. (With strides, the windows are a strided
  // slice whose rows the matmul cannot read as one matrix: still a copy.)
  if (w.kernel[0] == 1 && w.kernel[1] == 1 && w.strides[0] == 1 &&
      w.strides[1] == 1) {
    auto type = cast<RankedTensorType>(padded.getType());
    return reshape(b, loc, padded,
                   {type.getDimSize(0), type.getDimSize(1), 1, 1,
                    type.getDimSize(2), type.getDimSize(3)});
  }
  return Im2colOp::create(b, loc, padded,
                          ArrayRef<int64_t>(w.kernel, kSpatialDims),
                          ArrayRef<int64_t>(w.strides, kSpatialDims),
                          ArrayRef<int64_t>(w.dilations, kSpatialDims));
}

/// The statically shaped input of a windowed op (a pooling or im2col) and
/// its 2-entry kernel_shape, or an error naming the op.
static FailureOr<RankedTensorType>
windowedInput(StringRef name, std::optional<Location> loc, Type inputType,
              DenseI64ArrayAttr kernelShape) {
  auto input = dyn_cast<RankedTensorType>(inputType);
  if (!input || !input.hasStaticShape())
    return emitOptionalError(loc, "'", name,
                             "' op expects a statically shaped tensor");
  if (!kernelShape || kernelShape.size() != kSpatialDims)
    return emitOptionalError(loc, "'", name,
                             "' op kernel_shape must have 2 entries");
  return input;
}

template <typename PoolOp>
LogicalResult inferPool(std::optional<Location> loc,
                        typename PoolOp::Adaptor adaptor,
                        SmallVectorImpl<Type> &results, Window &window) {
  StringRef name = PoolOp::getOperationName();
  FailureOr<RankedTensorType> checked = windowedInput(
      name, loc, adaptor.getInput().getType(), adaptor.getKernelShapeAttr());
  if (failed(checked))
    return failure();
  RankedTensorType input = *checked;
  if (failed(getWindow(name, loc, input, adaptor.getKernelShape(),
                       adaptor.getStridesAttr(), adaptor.getPaddingAttr(),
                       adaptor.getDilationsAttr(), window)))
    return failure();
  results.push_back(input.clone({input.getDimSize(0), input.getDimSize(1),
                                 window.out[0], window.out[1]}));
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Conv2dOp
//===----------------------------------------------------------------------===//

LogicalResult Conv2dOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto filter = dyn_cast<RankedTensorType>(adaptor.getFilter().getType());
  if (!input || !filter || !input.hasStaticShape() || !filter.hasStaticShape())
    return emitOptionalError(loc, "'", name,
                             "' op expects statically shaped tensors");
  if (input.getElementType() != filter.getElementType())
    return emitOptionalError(
        loc, "'", name, "' op input and filter element types differ: ", input,
        " and ", filter);
  if (filter.getRank() != kRank)
    return emitOptionalError(
        loc, "'", name, "' op expects an OIHW filter of rank 4, got ", filter);
  if (!adaptor.getGroupsAttr())
    return emitOptionalError(loc, "'", name,
                             "' op requires attribute 'groups'");
  int64_t groups = adaptor.getGroups();
  Window window;
  if (failed(getWindow(name, loc, input, filter.getShape().drop_front(2),
                       adaptor.getStridesAttr(), adaptor.getPaddingAttr(),
                       adaptor.getDilationsAttr(), window)))
    return failure();
  int64_t channels = input.getDimSize(1), outChannels = filter.getDimSize(0);
  if (groups < 1 || channels % groups != 0 || outChannels % groups != 0 ||
      filter.getDimSize(1) * groups != channels)
    return emitOptionalError(
        loc, "'", name, "' op input ", input, " and filter ", filter,
        " do not agree with groups = ", groups,
        " (the filter needs C / groups input channels, and groups must divide "
        "C and O)");
  results.push_back(input.clone(
      {input.getDimSize(0), outChannels, window.out[0], window.out[1]}));
  return success();
}

/// The values of `filter` where a jeet.constant defines it, else null.
static DenseElementsAttr constantValues(Value filter) {
  auto constant = filter.getDefiningOp<ConstantOp>();
  return constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                  : DenseElementsAttr();
}

/// The strided windows of `padded` (N, C, H, W) at the kernel's offsets,
/// (N, C, OH, OW) slices with positive steps that their readers read in
/// place (with `channelsLast`, of (N, H, W, C): (N, OH, OW, C)), folded in
/// row-major order of (kh, kw): `combine` joins `term(window, kh, kw)` of
/// each offset to those of the offsets before it.
static Value foldWindows(OpBuilder &b, Location loc, Value padded,
                         const Window &w,
                         function_ref<Value(Value, int64_t, int64_t)> term,
                         function_ref<Value(Value, Value)> combine,
                         bool channelsLast = false) {
  auto type = cast<RankedTensorType>(padded.getType());
  int64_t n = type.getDimSize(0);
  int64_t c = type.getDimSize(channelsLast ? 3 : 1);
  Value result;
  for (int64_t kh = 0; kh < w.kernel[0]; ++kh) {
    for (int64_t kw = 0; kw < w.kernel[1]; ++kw) {
      int64_t h0 = kh * w.dilations[0], w0 = kw * w.dilations[1];
      int64_t h1 = h0 + (w.out[0] - 1) * w.strides[0] + 1;
      int64_t w1 = w0 + (w.out[1] - 1) * w.strides[1] + 1;
      Value window =
          channelsLast
              ? SliceOp::create(
                    b, loc, padded, ArrayRef<int64_t>{0, h0, w0, 0},
                    ArrayRef<int64_t>{n, h1, w1, c},
                    ArrayRef<int64_t>{1, w.strides[0], w.strides[1], 1})
              : SliceOp::create(
                    b, loc, padded, ArrayRef<int64_t>{0, 0, h0, w0},
                    ArrayRef<int64_t>{n, c, h1, w1},
                    ArrayRef<int64_t>{1, 1, w.strides[0], w.strides[1]});
      Value next = term(window, kh, kw);
      result = result ? combine(result, next) : next;
    }
  }
  return result;
}

/// `values` as `groups` matrices of (rows x cols), each transposed: a
/// constant of (groups * cols, rows), group by group (one group: the
/// matrix's transpose, (cols, rows)).
static Value transposedGroupConstants(OpBuilder &b, Location loc,
                                      DenseElementsAttr values, int64_t groups,
                                      int64_t rows, int64_t cols) {
  auto type =
      RankedTensorType::get({groups * cols, rows}, values.getElementType());
  if (values.isSplat())
    return ConstantOp::create(b, loc, values.resizeSplat(type));
  int64_t bytes = values.getElementType().getIntOrFloatBitWidth() / 8;
  ArrayRef<char> raw = values.getRawData();
  std::vector<char> transposed(raw.size());
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        std::memcpy(&transposed[((g * cols + c) * rows + r) * bytes],
                    &raw[((g * rows + r) * cols + c) * bytes], bytes);
  return ConstantOp::create(
      b, loc, DenseElementsAttr::getFromRawBuffer(type, transposed));
}

/// A depthwise convolution (one input and one output channel per group,
/// f32) as the sum over the kernel's offsets of the padded input's strided
/// window at that offset, (N, C, OH, OW), times the filter's tap, (C, 1, 1):
/// elementwise work over views of the padded input (jeet-fuse reads each
/// slice in place), where the grouped matmul of gatherWindows' windows
/// multiplied rows of KH * KW values, one group at a time.
static Value decomposeDepthwise(OpBuilder &b, Location loc, Value x,
                                Value filter, const Window &w) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t c = type.getDimSize(1);
  Value padded = padForWindows(
      b, loc, x, w, cast<TypedAttr>(b.getZeroAttr(type.getElementType())));
  // Each tap is a view of the filter, a constant one (ONNX initialisers)
  // included (isViewSlice): the sum's kernel reads the taps of a channel
  // from one buffer, KH * KW values apart, through one base pointer.
  auto term = [&](Value window, int64_t kh, int64_t kw) -> Value {
    Value tap =
        reshape(b, loc,
                SliceOp::create(b, loc, filter, ArrayRef<int64_t>{0, 0, kh, kw},
                                ArrayRef<int64_t>{c, 1, kh + 1, kw + 1},
                                ArrayRef<int64_t>{1, 1, 1, 1}),
                {c, 1, 1});
    return MulOp::create(b, loc, window, tap);
  };
  return foldWindows(b, loc, padded, w, term, [&](Value sum, Value next) {
    return AddOp::create(b, loc, sum, next).getResult();
  });
}

/// A depthwise convolution as decomposeDepthwise's sum, channels last:
/// transpose(sum over the kernel's offsets of the strided window of the
/// padded transpose(x) (N, H, W, C) at that offset, (N, OH, OW, C), times
/// that offset's taps (1, C)). Each vector runs along the channels, where
/// an NCHW row of 3 positions fills 3 of a vector's lanes: the transposes'
/// cost is paid back where the output positions are few and the taps many
/// (isDepthwiseChannelsLast). The taps are rows of the filter transposed,
/// (KH * KW, C): a constant one at compile time.
static Value decomposeDepthwiseChannelsLast(OpBuilder &b, Location loc, Value x,
                                            Value filter, const Window &w) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t c = type.getDimSize(1);
  int64_t taps = w.kernel[0] * w.kernel[1];
  Value rows;
  if (DenseElementsAttr values = constantValues(filter))
    rows = transposedGroupConstants(b, loc, values, /*groups=*/1, c, taps);
  else
    rows = TransposeOp::create(b, loc, reshape(b, loc, filter, {c, taps}),
                               ArrayRef<int64_t>{1, 0});
  Value last = TransposeOp::create(b, loc, x, ArrayRef<int64_t>{0, 2, 3, 1});
  Value padded = padForWindows(
      b, loc, last, w, cast<TypedAttr>(b.getZeroAttr(type.getElementType())),
      /*channelsLast=*/true);
  auto term = [&](Value window, int64_t kh, int64_t kw) -> Value {
    int64_t tap = kh * w.kernel[1] + kw;
    Value row =
        SliceOp::create(b, loc, rows, ArrayRef<int64_t>{tap, 0},
                        ArrayRef<int64_t>{tap + 1, c}, ArrayRef<int64_t>{1, 1});
    return MulOp::create(b, loc, window, row);
  };
  Value sum = foldWindows(
      b, loc, padded, w, term,
      [&](Value sum, Value next) {
        return AddOp::create(b, loc, sum, next).getResult();
      },
      /*channelsLast=*/true);
  return TransposeOp::create(b, loc, sum, ArrayRef<int64_t>{0, 3, 1, 2});
}

/// y = reshape(matmul(filter as (g, O/g, C/g * KH * KW), windows as
/// (N, g, C/g * KH * KW, OH * OW))), with g = groups (no g dimension when it
/// is 1); a depthwise convolution of f32 as decomposeDepthwise's sum. One
/// without groups, with few output positions or positions that fill their
/// vectors' lanes poorly, and a constant filter, transposed:
/// y = reshape(transpose(matmul(transpose(windows) as (N, OH * OW, K),
/// filter^T (K, O), computed at compile time)) as (N, O, OH, OW)): the
/// matmul's rows are the positions and its vectors run along O; the windows'
/// transpose folds into the matmul (it reads them in place: the input
/// itself for a pointwise one), and the result's transpose, of its two
/// innermost dimensions, into the matmul's epilogue on the CPU.
FailureOr<Value> Conv2dOp::decompose(OpBuilder &builder, ValueRange operands) {
  Location loc = getLoc();
  Value x = operands[0], filter = operands[1];
  auto inputType = cast<RankedTensorType>(x.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  Window window;
  if (failed(getWindow(getOperationName(), std::nullopt, inputType,
                       filterType.getShape().drop_front(2), getStridesAttr(),
                       getPaddingAttr(), getDilationsAttr(), window)))
    return failure();
  int64_t n = inputType.getDimSize(0), c = inputType.getDimSize(1);
  int64_t o = filterType.getDimSize(0), g = getGroups();
  if (g == c && o == c && c > 1 && inputType.getElementType().isF32() &&
      window.kernel[0] * window.kernel[1] <= kMaxWindowTaps) {
    if (isDepthwiseChannelsLast(window.out[0] * window.out[1],
                                window.kernel[0] * window.kernel[1], c))
      return decomposeDepthwiseChannelsLast(builder, loc, x, filter, window);
    return decomposeDepthwise(builder, loc, x, filter, window);
  }
  int64_t k = (c / g) * window.kernel[0] * window.kernel[1];
  int64_t positions = window.out[0] * window.out[1];
  Value windows = gatherWindows(
      builder, loc, x, window,
      cast<TypedAttr>(builder.getZeroAttr(inputType.getElementType())));
  DenseElementsAttr values = constantValues(filter);
  if (g == 1 && values && isComputedTransposed(positions, o)) {
    Value rows = TransposeOp::create(
        builder, loc, reshape(builder, loc, windows, {n, k, positions}),
        ArrayRef<int64_t>{0, 2, 1});
    Value product = MatmulOp::create(
        builder, loc, rows,
        transposedGroupConstants(builder, loc, values, /*groups=*/1, o, k));
    Value transposed =
        TransposeOp::create(builder, loc, product, ArrayRef<int64_t>{0, 2, 1});
    return reshape(builder, loc, transposed, getType().getShape());
  }
  // Groups likewise, each group's filter transposed: (N, g, OH * OW, K) x
  // (g, K, O / g), the positions as each group's rows (ResNeXt's and
  // RegNet's last stages: 9 positions, 16 or 32 channels a group).
  if (g != 1 && values && isComputedTransposed(positions, o / g)) {
    Value rows = TransposeOp::create(
        builder, loc, reshape(builder, loc, windows, {n, g, k, positions}),
        ArrayRef<int64_t>{0, 1, 3, 2});
    Value filters =
        reshape(builder, loc,
                transposedGroupConstants(builder, loc, values, g, o / g, k),
                {g, k, o / g});
    Value product = MatmulOp::create(builder, loc, rows, filters);
    Value transposed = TransposeOp::create(builder, loc, product,
                                           ArrayRef<int64_t>{0, 1, 3, 2});
    return reshape(builder, loc, transposed, getType().getShape());
  }
  // Without groups, no group dimension: (O, K) x (N, K, OH * OW).
  SmallVector<int64_t> filterShape = {o, k}, windowsShape = {n, k, positions};
  if (g != 1) {
    filterShape = {g, o / g, k};
    windowsShape = {n, g, k, positions};
  }
  Value lhs = reshape(builder, loc, filter, filterShape);
  Value rhs = reshape(builder, loc, windows, windowsShape);
  Value product = MatmulOp::create(builder, loc, lhs, rhs);
  return reshape(builder, loc, product, getType().getShape());
}

//===----------------------------------------------------------------------===//
// Im2colOp
//===----------------------------------------------------------------------===//

LogicalResult Im2colOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> checked = windowedInput(
      name, loc, adaptor.getInput().getType(), adaptor.getKernelShapeAttr());
  if (failed(checked))
    return failure();
  RankedTensorType input = *checked;
  // The input is padded already.
  auto noPadding =
      DenseI64ArrayAttr::get(context, SmallVector<int64_t>(kPaddingEntries, 0));
  Window window;
  if (failed(getWindow(name, loc, input, adaptor.getKernelShape(),
                       adaptor.getStridesAttr(), noPadding,
                       adaptor.getDilationsAttr(), window)))
    return failure();
  results.push_back(
      input.clone({input.getDimSize(0), input.getDimSize(1), window.kernel[0],
                   window.kernel[1], window.out[0], window.out[1]}));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult MaxPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  Window window;
  return inferPool<MaxPool2dOp>(loc, adaptor, results, window);
}

LogicalResult AvgPool2dOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  Window window;
  return inferPool<AvgPool2dOp>(loc, adaptor, results, window);
}

/// The windows of a pooling op: its input, its attributes, its result type.
template <typename PoolOp>
static FailureOr<Window> poolWindow(PoolOp op, Value input) {
  Window window;
  if (failed(getWindow(PoolOp::getOperationName(), std::nullopt,
                       cast<RankedTensorType>(input.getType()),
                       op.getKernelShape(), op.getStridesAttr(),
                       op.getPaddingAttr(), op.getDilationsAttr(), window)))
    return failure();
  return window;
}

/// Whether the windows tile the input exactly: strides equal to the kernel,
/// no dilation, no padding, and sizes that the kernel divides. Each input
/// element is then in one window, and the windows are a view of the input.
static bool windowsTileInput(const Window &w) {
  for (int64_t d = 0; d < kSpatialDims; ++d)
    if (w.strides[d] != w.kernel[d] || w.dilations[d] != 1 ||
        w.padding[d] != 0 || w.padding[d + kSpatialDims] != 0 ||
        w.in[d] % w.kernel[d] != 0)
      return false;
  return true;
}

/// The input of a pooling whose windows tile it (windowsTileInput) as
/// (N, C, OH, KH, OW, KW): a reshape, no copy. A pooling reduces its axes 3
/// and 5 straight from the input, where the windows of gatherWindows would
/// be a copy of the whole input first.
static Value tiledWindows(OpBuilder &b, Location loc, Value x,
                          const Window &w) {
  auto type = cast<RankedTensorType>(x.getType());
  return reshape(b, loc, x,
                 {type.getDimSize(0), type.getDimSize(1), w.out[0], w.kernel[0],
                  w.out[1], w.kernel[1]});
}

/// The window axes of tiledWindows' result and of gatherWindows' result.
static SmallVector<int64_t> windowAxes(bool tiled) {
  if (tiled)
    return {3, 5};
  return {2, 3};
}

/// Up to kMaxWindowTaps taps, the elementwise maximum of the input padded
/// with -inf viewed at each of the kernel's offsets (decomposeDepthwise's
/// views: one kernel over the output that reads the padded input in place,
/// where gatherWindows' windows were a copy of KH * KW times the output
/// first), windows that tile the input included: their reduce_max over a
/// reshape of the input reduces dimensions of 2 innermost, slower than the
/// views on the CPU (2x2/2 of 832 x 6 x 6: 37 against 4.2 us, still 13 once
/// jeet-cpu-vectorize-window-reductions took rows that no vector width
/// divides). Past that, reduce_max over the input itself where the windows
/// tile it, else over gathered windows.
FailureOr<Value> MaxPool2dOp::decompose(OpBuilder &builder,
                                        ValueRange operands) {
  FailureOr<Window> window = poolWindow(*this, operands[0]);
  if (failed(window))
    return failure();
  Location loc = getLoc();
  if (windowsTileInput(*window) &&
      window->kernel[0] * window->kernel[1] > kMaxWindowTaps)
    return ReduceMaxOp::create(builder, loc,
                               tiledWindows(builder, loc, operands[0], *window),
                               windowAxes(/*tiled=*/true), /*keepdims=*/false)
        .getResult();
  auto type = cast<FloatType>(getType().getElementType());
  auto negativeInfinity = builder.getFloatAttr(
      type, APFloat::getInf(type.getFloatSemantics(), /*Negative=*/true));
  if (window->kernel[0] * window->kernel[1] <= kMaxWindowTaps) {
    Value padded =
        padForWindows(builder, loc, operands[0], *window, negativeInfinity);
    return foldWindows(
        builder, loc, padded, *window,
        [](Value window, int64_t, int64_t) { return window; },
        [&](Value max, Value next) {
          return MaxOp::create(builder, loc, max, next).getResult();
        });
  }
  Value windows =
      gatherWindows(builder, loc, operands[0], *window, negativeInfinity);
  return ReduceMaxOp::create(builder, loc, windows, windowAxes(/*tiled=*/false),
                             /*keepdims=*/false)
      .getResult();
}

/// The sum over each window (up to kMaxWindowTaps taps the sum of the padded
/// input's views at the kernel's offsets, windows that tile the input
/// included: their reduce_sum over a reshape of the input is slower on the
/// CPU (2x2/2 of 832 x 6 x 6: 8.2 against 5.4 us, of 128 x 56 x 56: 34
/// against 25; level at 256 x 28 x 28, 152 before the window reductions
/// took rows that no vector width divides); past it reduce_sum of the input
/// itself where the windows tile it, else of the gathered windows), divided
/// by the window size (with count_include_pad, or without padding) or by
/// the number of input elements in each window (a constant per output
/// position).
FailureOr<Value> AvgPool2dOp::decompose(OpBuilder &builder,
                                        ValueRange operands) {
  FailureOr<Window> window = poolWindow(*this, operands[0]);
  if (failed(window))
    return failure();
  const Window &w = *window;
  Location loc = getLoc();
  Type elementType = getType().getElementType();
  // Up to kMaxWindowTaps taps, the sum of the input padded with 0 viewed at
  // each of the kernel's offsets (as MaxPool2dOp's maximum), windows that
  // tile the input included; past that, reduce_sum over a reshape of the
  // input where the windows tile it (no window holds padding), else over
  // gatherWindows' windows.
  bool taps = w.kernel[0] * w.kernel[1] <= kMaxWindowTaps;
  bool tiled = !taps && windowsTileInput(w);
  auto zero = cast<TypedAttr>(builder.getZeroAttr(elementType));
  Value windows = tiled  ? tiledWindows(builder, loc, operands[0], w)
                  : taps ? padForWindows(builder, loc, operands[0], w, zero)
                         : gatherWindows(builder, loc, operands[0], w, zero);
  // f16 and bf16 windows are summed and divided in f32: a window of nine
  // values of 30000 sums past f16's 65504 (the average was infinite).
  Type sumType = detail::widenLowPrecisionFloat(elementType);
  Value divisor;
  // Without padding, every window lies in the input whole.
  bool unpadded = llvm::all_of(w.padding, [](int64_t p) { return p == 0; });
  if (getCountIncludePad() || unpadded) {
    divisor = scalarConstant(
        builder, loc,
        builder.getFloatAttr(sumType,
                             static_cast<double>(w.kernel[0] * w.kernel[1])));
  } else {
    // How many of a window's rows (columns) lie in the input.
    auto inside = [&](int64_t d, int64_t position) {
      int64_t count = 0;
      for (int64_t k = 0; k < w.kernel[d]; ++k) {
        int64_t at =
            position * w.strides[d] + k * w.dilations[d] - w.padding[d];
        count += at >= 0 && at < w.in[d];
      }
      return count;
    };
    SmallVector<Attribute> counts;
    for (int64_t oh = 0; oh < w.out[0]; ++oh)
      for (int64_t ow = 0; ow < w.out[1]; ++ow)
        counts.push_back(builder.getFloatAttr(
            sumType, static_cast<double>(inside(0, oh) * inside(1, ow))));
    auto countType = RankedTensorType::get({w.out[0], w.out[1]}, sumType);
    divisor = ConstantOp::create(builder, loc,
                                 DenseElementsAttr::get(countType, counts));
  }
  return detail::buildInWideFloat(builder, loc, windows, [&](Value wide) {
    Value sum =
        taps ? foldWindows(
                   builder, loc, wide, w,
                   [](Value window, int64_t, int64_t) { return window; },
                   [&](Value sum, Value next) {
                     return AddOp::create(builder, loc, sum, next).getResult();
                   })
             : ReduceSumOp::create(builder, loc, wide, windowAxes(tiled),
                                   /*keepdims=*/false)
                   .getResult();
    return DivOp::create(builder, loc, sum, divisor).getResult();
  });
}
