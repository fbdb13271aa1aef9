//===- Im2col.cpp - An im2col and its pad as one pass of row copies -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-im2col: the generic of a jeet.im2col copies the windows of a
// padded (N, C, H, W) input into (N, C, KH, KW, OH, OW), element
// (n, c, kh, kw, oh, ow) being the input at (oh * sh + kh * dh,
// ow * sw + kw * dw). Before a convolution its input is a jeet.pad's result:
// the pad's fill, the pad's copy and the im2col were three parallel regions
// (each a wake-up of the OpenMP threads) and two copies, and the im2col's
// generic computed its indices element by element.
//
// This pass rewrites the im2col generic into one parallel loop over (n, c)
// that, for each kernel offset (kh, kw) (unrolled: kernels are small),
// writes each output row of OW elements at once: rows whose input row lies
// in the padding get the padding value, the others a copy of the unpadded
// input's row, with the padding value in the columns that fall outside it.
// Which rows and columns those are depends on kh and kw alone, so every
// bound is static; with sw = 1 a row's copy is one contiguous run of the
// input, done with vector loads and stores. The pad's generic goes when the
// im2col was the only reader of its result.
//
// When the only reader of the im2col's result is the tile loop of the
// convolution's matmul, each tile whole output rows, the same copies go into
// the tiles instead, each copying the windows of its own rows into a small
// buffer of its own: the windows are never written to memory whole and read
// back (1.8 MiB for the example CNN's first convolution), and the loop of
// copies before the tiles, with its barrier, goes.
//
//===----------------------------------------------------------------------===//

#include "VectorizeUtils.h"

#include "jeet/Codegen/CPU/Passes.h"
#include "jeet/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUIM2COLPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// The loops of an im2col generic, in the order of its output dimensions.
enum Loop : unsigned { kN, kC, kKh, kKw, kOh, kOw, kNumLoops };
/// The input's dimensions (N, C, H, W).
constexpr unsigned kInputRank = 4;
/// The spatial dimensions.
constexpr unsigned kSpatial = 2;
/// Bytes of the widest vector the rows are copied with (a zmm register).
constexpr int64_t kVectorBytes = 64;
/// Full vectors of a row's run copied without a loop; longer runs loop.
constexpr int64_t kMaxUnrolledVectors = 4;
/// The largest stride along W whose rows are copied by vectors (a run's
/// stride x width elements loaded, every stride-th kept); larger strides
/// (a vision transformer's 16x16/16 patches) one element at a time.
constexpr int64_t kMaxVectorStride = 4;
/// Kernel offsets (KH * KW) up to which the offsets are unrolled; larger
/// kernels keep the generic.
constexpr int64_t kMaxKernelOffsets = 64;
/// The largest buffer of one tile's windows: what
/// jeet-cpu-hoist-tile-buffers puts on the stack by default. A larger one
/// would be allocated per tile, so those windows are copied before the
/// tiles instead.
constexpr int64_t kMaxTileWindowsBytes = 64 * 1024;

/// An im2col generic, the pad it may absorb, and their geometry.
struct Im2col {
  linalg::GenericOp op;
  /// The buffer the rows are copied from: the pad's input where the pad is
  /// absorbed, else the im2col's input.
  Value source;
  Value output;
  int64_t stride[kSpatial], dilation[kSpatial];
  /// The padding before H and W that the source lacks (0 without a pad).
  int64_t low[kSpatial] = {0, 0};
  /// The absorbed pad's generic and value, or null.
  linalg::GenericOp pad;
  Value padding, paddingBuffer;
};

/// The coefficients of the loop dimensions in `expr`, a sum of dimensions
/// times constants with no constant term, or nothing for any other form.
std::optional<SmallVector<int64_t>> linearCoefficients(AffineExpr expr,
                                                       unsigned numDims) {
  SmallVector<int64_t> coefficients(numDims, 0);
  std::function<bool(AffineExpr, int64_t)> add = [&](AffineExpr e,
                                                     int64_t scale) -> bool {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      coefficients[dim.getPosition()] += scale;
      return true;
    }
    if (auto constant = dyn_cast<AffineConstantExpr>(e))
      return constant.getValue() == 0;
    auto binary = dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary)
      return false;
    if (e.getKind() == AffineExprKind::Add)
      return add(binary.getLHS(), scale) && add(binary.getRHS(), scale);
    if (e.getKind() != AffineExprKind::Mul)
      return false;
    auto factor = dyn_cast<AffineConstantExpr>(binary.getRHS());
    return factor && add(binary.getLHS(), scale * factor.getValue());
  };
  if (!add(expr, 1))
    return std::nullopt;
  return coefficients;
}

/// Whether `type` is a static memref whose rows can be read and written as
/// vectors.
bool isRowAccessible(Type type, unsigned rank) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || memref.getRank() != rank ||
      !memref.isLastDimUnitStride())
    return false;
  Type element = memref.getElementType();
  return element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 == 0;
}

/// The generic of a jeet.im2col on buffers (see jeet::emitIm2col): a copy
/// of its input at (n, c, oh * sh + kh * dh, ow * sw + kw * dw) into an
/// identity-indexed (N, C, KH, KW, OH, OW) output.
std::optional<Im2col> matchIm2col(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != kNumLoops ||
      op.getNumReductionLoops() != 0 || op.hasIndexSemantics())
    return std::nullopt;
  OpOperand *input = op.getDpsInputOperand(0);
  OpOperand *output = op.getDpsInitOperand(0);
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  if (yield.getValues().size() != 1 ||
      yield.getValues()[0] != op.getMatchingBlockArgument(input) ||
      !isRowAccessible(input->get().getType(), kInputRank) ||
      !isRowAccessible(output->get().getType(), kNumLoops) ||
      !op.getMatchingIndexingMap(output).isIdentity())
    return std::nullopt;
  AffineMap map = op.getMatchingIndexingMap(input);
  if (map.getNumResults() != kInputRank || map.getNumSymbols() != 0 ||
      map.getResult(0) != getAffineDimExpr(kN, op.getContext()) ||
      map.getResult(1) != getAffineDimExpr(kC, op.getContext()))
    return std::nullopt;
  Im2col im{op, input->get(), output->get()};
  const unsigned outLoop[kSpatial] = {kOh, kOw},
                 kernelLoop[kSpatial] = {kKh, kKw};
  for (unsigned d = 0; d < kSpatial; ++d) {
    std::optional<SmallVector<int64_t>> coefficients =
        linearCoefficients(map.getResult(kInputRank - kSpatial + d), kNumLoops);
    if (!coefficients)
      return std::nullopt;
    for (unsigned loop = 0; loop < kNumLoops; ++loop)
      if (loop != outLoop[d] && loop != kernelLoop[d] &&
          (*coefficients)[loop] != 0)
        return std::nullopt;
    im.stride[d] = (*coefficients)[outLoop[d]];
    im.dilation[d] = (*coefficients)[kernelLoop[d]];
    if (im.stride[d] < 1 || im.dilation[d] < 1)
      return std::nullopt;
  }
  auto outputType = cast<MemRefType>(im.output.getType());
  if (outputType.getDimSize(kKh) * outputType.getDimSize(kKw) >
      kMaxKernelOffsets)
    return std::nullopt;
  return im;
}

/// The buffer that `value` is a view of.
Value rootOf(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether an op after `from` and before `to` (ops of one block) may write
/// `buffer`: one that writes it or a view of it, one that writes a function
/// argument when `buffer` is one too (two arguments may be one buffer), or
/// one whose effects are unknown. The copies that read `buffer` move from
/// `from` to `to`: they must read what they read there. (Frees of `buffer`
/// are moved after the copies: eraseIm2col.)
bool mayBeWrittenBetween(Value buffer, Operation *from, Operation *to) {
  Value root = rootOf(buffer);
  auto isAllocation = [](Value value) {
    return value.getDefiningOp<memref::AllocOp>() ||
           value.getDefiningOp<memref::AllocaOp>();
  };
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
        getEffectsRecursively(op);
    if (!effects)
      return true;
    for (const MemoryEffects::EffectInstance &effect : *effects) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value written = effect.getValue();
      if (!written)
        return true;
      Value writtenRoot = rootOf(written);
      if (writtenRoot == root ||
          (!isAllocation(root) && !isAllocation(writtenRoot)))
        return true;
    }
  }
  return false;
}

/// Absorbs the pad whose result is the im2col's input when the im2col is
/// its only reader, the pad pads H and W only, and its input's rows can be
/// copied as vectors: the im2col then reads the pad's input. That input
/// must be another buffer than the im2col's output, one of the two a
/// memref.alloc (so the memory plan, which runs later, sees the two live
/// at once; two function arguments might be one buffer), and nothing between
/// the pad and the im2col may write it (the copies read it where the im2col
/// was).
void absorbPad(Im2col &im) {
  Value padded = im.source;
  linalg::GenericOp pad;
  for (Operation *user : padded.getUsers()) {
    if (user == im.op.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (pad || !generic || generic.getNumDpsInits() != 1 ||
        generic.getDpsInits()[0] != padded ||
        generic->getBlock() != im.op->getBlock() ||
        !generic->isBeforeInBlock(im.op))
      return;
    pad = generic;
  }
  std::optional<jeet::cpu::PadOperands> operands;
  if (pad)
    operands = jeet::cpu::matchPad(pad);
  if (!operands || !isRowAccessible(operands->input.getType(), kInputRank))
    return;
  ArrayRef<int64_t> low =
      pad->getAttrOfType<DenseI64ArrayAttr>(jeet::kPadLowAttr).asArrayRef();
  auto inputType = cast<MemRefType>(operands->input.getType());
  auto paddedType = cast<MemRefType>(padded.getType());
  for (unsigned d : {kN, kC})
    if (low[d] != 0 || inputType.getDimSize(d) != paddedType.getDimSize(d))
      return;
  Value sourceRoot = rootOf(operands->input), outputRoot = rootOf(im.output);
  if (sourceRoot == outputRoot ||
      (!sourceRoot.getDefiningOp<memref::AllocOp>() &&
       !outputRoot.getDefiningOp<memref::AllocOp>()) ||
      mayBeWrittenBetween(operands->input, pad, im.op) ||
      (operands->paddingBuffer &&
       mayBeWrittenBetween(operands->paddingBuffer, pad, im.op)))
    return;
  im.source = operands->input;
  im.low[0] = low[kInputRank - kSpatial];
  im.low[1] = low[kInputRank - 1];
  im.pad = pad;
  im.padding = operands->padding;
  im.paddingBuffer = operands->paddingBuffer;
}

/// Where the copies of an im2col go: its output, or the windows of one
/// tile of the convolution's matmul (see TileWindows).
struct Destination {
  /// The (N', C, KH, KW, OH', OW) buffer written, at batch index `n`.
  Value buffer, n;
  /// The first output row written, at row 0 of `buffer`, and how many
  /// rows: null and 0 for all of them.
  Value firstRow;
  int64_t rows = 0;
};

/// Emits the copies of one (n, c) of an im2col.
class RowEmitter {
public:
  RowEmitter(OpBuilder &b, Location loc, const Im2col &im, Value padding,
             Value n, Value c, Destination dest)
      : b(b), loc(loc), im(im), padding(padding), n(n), c(c), dest(dest) {
    auto sourceType = cast<MemRefType>(im.source.getType());
    auto outputType = cast<MemRefType>(im.output.getType());
    for (unsigned d = 0; d < kSpatial; ++d) {
      in[d] = sourceType.getDimSize(kInputRank - kSpatial + d);
      out[d] = outputType.getDimSize(kOh + d);
    }
    element = outputType.getElementType();
    lanes = std::max<int64_t>(1, kVectorBytes /
                                     (element.getIntOrFloatBitWidth() / 8));
  }

  /// The rows of kernel offset (kh, kw).
  void emitOffset(int64_t kh, int64_t kw) {
    int64_t offset[kSpatial] = {kh * im.dilation[0] - im.low[0],
                                kw * im.dilation[1] - im.low[1]};
    // Outputs [first, last) of each dimension read inside the source:
    // 0 <= o * stride + offset < in.
    int64_t first[kSpatial], last[kSpatial];
    for (unsigned d = 0; d < kSpatial; ++d) {
      first[d] = std::clamp<int64_t>(
          llvm::divideCeilSigned(-offset[d], im.stride[d]), 0, out[d]);
      last[d] = std::clamp<int64_t>(
          llvm::divideCeilSigned(in[d] - offset[d], im.stride[d]), first[d],
          out[d]);
    }
    Value khValue = cst(kh), kwValue = cst(kw);
    auto at = [&](Value oh, Value ow) -> SmallVector<Value> {
      Value row =
          dest.firstRow ? arith::SubIOp::create(b, loc, oh, dest.firstRow) : oh;
      return {dest.n, c, khValue, kwValue, row, ow};
    };
    // Rows wholly in the padding, above and below the input.
    for (auto [lo, hi] :
         {std::pair{int64_t(0), first[0]}, std::pair{last[0], out[0]}})
      rowLoop(lo, hi, [&](Value oh) { fill(at, oh, 0, out[1]); });
    rowLoop(first[0], last[0], [&](Value oh) {
      fill(at, oh, 0, first[1]);
      fill(at, oh, last[1], out[1]);
      Value ih = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, oh, cst(im.stride[0])),
          cst(offset[0]));
      copy(at, oh, ih, first[1], last[1], offset[1]);
    });
  }

private:
  using OutputIndices = function_ref<SmallVector<Value>(Value, Value)>;

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// An scf.for over output rows [lo, hi), none when empty; of a tile's
  /// rows, the part of [lo, hi) among them.
  void rowLoop(int64_t lo, int64_t hi, function_ref<void(Value)> body) {
    if (lo >= hi)
      return;
    Value from = cst(lo), to = cst(hi);
    if (dest.firstRow) {
      from = arith::MaxSIOp::create(b, loc, from, dest.firstRow);
      to = arith::MinSIOp::create(
          b, loc, to,
          arith::AddIOp::create(b, loc, dest.firstRow, cst(dest.rows)));
    }
    loop(from, to, body);
  }

  /// An scf.for over output columns [lo, hi), none when empty.
  void columnLoop(int64_t lo, int64_t hi, function_ref<void(Value)> body) {
    if (lo < hi)
      loop(cst(lo), cst(hi), body);
  }

  void loop(Value from, Value to, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, from, to, cst(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar());
  }

  /// Calls `fn(column, width)` for runs covering columns [lo, hi): full
  /// vectors (in a loop when there are many), then ever narrower ones.
  void forEachRun(int64_t lo, int64_t hi,
                  function_ref<void(Value, int64_t)> fn) {
    int64_t vectors = (hi - lo) / lanes;
    if (vectors > kMaxUnrolledVectors) {
      auto loop = scf::ForOp::create(b, loc, cst(lo), cst(lo + vectors * lanes),
                                     cst(lanes));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      fn(loop.getInductionVar(), lanes);
    } else {
      for (int64_t v = 0; v < vectors; ++v)
        fn(cst(lo + v * lanes), lanes);
    }
    for (int64_t at = lo + vectors * lanes, width = lanes / 2; at < hi;
         width /= 2)
      for (; width > 0 && at + width <= hi; at += width)
        fn(cst(at), width);
  }

  /// The padding value in output row `oh`, columns [lo, hi).
  void fill(OutputIndices at, Value oh, int64_t lo, int64_t hi) {
    forEachRun(lo, hi, [&](Value ow, int64_t width) {
      store(width == 1 ? padding : jeet::cpu::splatTo(b, loc, padding, width),
            at(oh, ow), width);
    });
  }

  /// Source row `ih` into output row `oh`, columns [lo, hi): output column
  /// ow reads source column ow * sw + offset.
  void copy(OutputIndices at, Value oh, Value ih, int64_t lo, int64_t hi,
            int64_t offset) {
    if (lo >= hi)
      return;
    if (im.stride[1] == 1) {
      forEachRun(lo, hi, [&](Value ow, int64_t width) {
        Value iw = arith::AddIOp::create(b, loc, ow, cst(offset));
        SmallVector<Value> from = {n, c, ih, iw};
        Value row =
            width == 1
                ? memref::LoadOp::create(b, loc, im.source, from).getResult()
                : vector::LoadOp::create(b, loc,
                                         VectorType::get({width}, element),
                                         im.source, from)
                      .getResult();
        store(row, at(oh, ow), width);
      });
      return;
    }
    // A row of stride s up to kMaxVectorStride (a stem's 7x7/2 or 4x4/4, a
    // downsampling 3x3/2): s times the run's width loaded at once and every
    // s-th element kept (permutations of registers), as far as every
    // element loaded lies in the source row; the rest one element at a
    // time.
    int64_t s = im.stride[1];
    if (s <= kMaxVectorStride) {
      int64_t loaded = std::clamp<int64_t>(
          llvm::divideFloorSigned(in[1] - s - offset, s) + 1, lo, hi);
      forEachRun(lo, loaded, [&](Value ow, int64_t width) {
        Value iw = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, ow, cst(s)), cst(offset));
        SmallVector<Value> from = {n, c, ih, iw};
        if (width == 1) {
          store(memref::LoadOp::create(b, loc, im.source, from).getResult(),
                at(oh, ow), width);
          return;
        }
        Value all = vector::LoadOp::create(
            b, loc, VectorType::get({s * width}, element), im.source, from);
        SmallVector<int64_t> kept;
        for (int64_t lane = 0; lane < width; ++lane)
          kept.push_back(s * lane);
        store(vector::ShuffleOp::create(b, loc, all, all, kept), at(oh, ow),
              width);
      });
      lo = loaded;
    }
    // A strided row: one element at a time.
    columnLoop(lo, hi, [&](Value ow) {
      Value iw = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, ow, cst(im.stride[1])),
          cst(offset));
      Value value =
          memref::LoadOp::create(b, loc, im.source, ValueRange{n, c, ih, iw});
      memref::StoreOp::create(b, loc, value, dest.buffer, at(oh, ow));
    });
  }

  void store(Value value, ArrayRef<Value> indices, int64_t width) {
    if (width == 1) {
      memref::StoreOp::create(b, loc, value, dest.buffer, indices);
      return;
    }
    vector::StoreOp::create(b, loc, value, dest.buffer, indices);
  }

  OpBuilder &b;
  Location loc;
  const Im2col &im;
  Value padding, n, c;
  Destination dest;
  int64_t in[kSpatial], out[kSpatial];
  Type element;
  int64_t lanes;
};

/// The padding value, read where the pad keeps it in a buffer.
Value paddingValue(OpBuilder &b, Location loc, const Im2col &im) {
  if (im.paddingBuffer)
    return memref::LoadOp::create(b, loc, im.paddingBuffer, ValueRange());
  return im.padding;
}

/// Erases the im2col generic, and the pad it absorbed with the padded
/// buffer; the buffers the copies now read (the im2col's input or the pad's,
/// and the padding value's), whose frees followed their last reader (the
/// pad or the im2col), are freed after `lastReader`, the copies or the
/// tiles that hold them.
void eraseIm2col(Im2col &im, Operation *lastReader) {
  for (Value read : {im.source, im.paddingBuffer}) {
    if (!read)
      continue;
    for (Operation *user : llvm::to_vector(rootOf(read).getUsers()))
      if (isa<memref::DeallocOp>(user) &&
          user->getBlock() == lastReader->getBlock() &&
          user->isBeforeInBlock(lastReader))
        user->moveAfter(lastReader);
  }
  Value padded = im.pad ? im.pad.getDpsInits()[0] : Value();
  im.op.erase();
  if (!im.pad)
    return;
  im.pad.erase();
  // The padded buffer, now unread, goes with its frees.
  auto alloc = padded.getDefiningOp<memref::AllocOp>();
  if (!alloc || !llvm::all_of(padded.getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp>(user);
      }))
    return;
  for (Operation *user : llvm::to_vector(padded.getUsers()))
    user->erase();
  alloc.erase();
}

/// Replaces the im2col generic (and the pad it absorbed) by the row copies,
/// in an scf.parallel over (n, c) when `parallel`.
void rewriteIm2col(Im2col im, bool parallel) {
  OpBuilder b(im.op);
  Location loc = im.op.getLoc();
  Value padding = paddingValue(b, loc, im);
  auto outputType = cast<MemRefType>(im.output.getType());
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = cst(0), one = cst(1);
  jeet::cpu::buildLoops(
      b, loc, {zero, zero},
      {cst(outputType.getDimSize(kN)), cst(outputType.getDimSize(kC))},
      {one, one}, parallel, [&](OpBuilder &nested, ValueRange ivs) {
        OpBuilder::InsertionGuard guard(nested);
        RowEmitter emitter(nested, loc, im, padding, ivs[0], ivs[1],
                           Destination{im.output, ivs[0]});
        for (int64_t kh = 0; kh < outputType.getDimSize(kKh); ++kh)
          for (int64_t kw = 0; kw < outputType.getDimSize(kKw); ++kw)
            emitter.emitOffset(kh, kw);
      });
  eraseIm2col(im, im.op);
}

/// The tiles of a convolution's matmul that alone read an im2col's output
/// (N, C, KH, KW, OH, OW), seen as (N, C * KH * KW, OH * OW) by a
/// collapse_shape: each tile of the scf.forall reads its slice
/// [n, 0, p] [1, K, T] at a loop index p that steps by T, a multiple of OW,
/// from 0, so a tile's windows are T / OW whole output rows.
struct TileWindows {
  scf::ForallOp loop;
  memref::CollapseShapeOp collapse;
  memref::SubViewOp slice;
  /// The tile's image and first output pixel.
  OpFoldResult image;
  Value pixel;
  /// The output rows of a tile.
  int64_t rows;
};

std::optional<TileWindows> matchTileWindows(Im2col &im) {
  if (!im.output.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  memref::CollapseShapeOp collapse;
  for (Operation *user : im.output.getUsers()) {
    if (user == im.op.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    auto reshape = dyn_cast<memref::CollapseShapeOp>(user);
    if (!reshape || collapse)
      return std::nullopt;
    collapse = reshape;
  }
  SmallVector<ReassociationIndices> windowsAsMatrices = {
      {kN}, {kC, kKh, kKw}, {kOh, kOw}};
  if (!collapse || collapse.getReassociationIndices() != windowsAsMatrices ||
      !collapse->hasOneUse())
    return std::nullopt;
  auto slice = dyn_cast<memref::SubViewOp>(*collapse->getUsers().begin());
  if (!slice)
    return std::nullopt;
  auto loop = dyn_cast<scf::ForallOp>(slice->getParentOp());
  if (!loop || loop->getBlock() != im.op->getBlock() ||
      !im.op->isBeforeInBlock(loop))
    return std::nullopt;
  auto outputType = cast<MemRefType>(im.output.getType());
  int64_t width = outputType.getDimSize(kOw);
  auto matrices = cast<MemRefType>(collapse.getType());
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  int64_t pixels = sizes.back();
  if (sizes.size() != 3 || sizes[0] != 1 ||
      sizes[1] != matrices.getDimSize(1) || ShapedType::isDynamic(pixels) ||
      pixels % width != 0 || !isConstantIntValue(offsets[1], 0) ||
      !llvm::all_of(slice.getStaticStrides(),
                    [](int64_t stride) { return stride == 1; }))
    return std::nullopt;
  auto pixel = dyn_cast_if_present<Value>(offsets[2]);
  auto iv = dyn_cast_or_null<BlockArgument>(pixel);
  if (!iv || iv.getOwner() != loop.getBody())
    return std::nullopt;
  unsigned dim = iv.getArgNumber();
  if (dim >= loop.getRank() ||
      !isConstantIntValue(loop.getMixedLowerBound()[dim], 0) ||
      getConstantIntValue(loop.getMixedStep()[dim]) != pixels)
    return std::nullopt;
  int64_t elementBytes = outputType.getElementTypeBitWidth() / 8;
  if (matrices.getDimSize(1) * pixels * elementBytes > kMaxTileWindowsBytes)
    return std::nullopt;
  // The tiles read what the im2col read: nothing between may write it (a
  // kernel computing another result in place in the convolution's input).
  if (mayBeWrittenBetween(im.source, im.op, loop) ||
      (im.paddingBuffer && mayBeWrittenBetween(im.paddingBuffer, im.op, loop)))
    return std::nullopt;
  return TileWindows{loop, collapse, slice, offsets[0], pixel, pixels / width};
}

/// Replaces the im2col generic (and the pad it absorbed) by row copies in
/// each tile of `tile.loop`, into a buffer of the tile's own windows: the
/// windows are never written out whole, and the tile reads them from its
/// cache instead of from memory.
void rewriteIntoTiles(Im2col im, TileWindows tile) {
  OpBuilder b(tile.slice);
  Location loc = im.op.getLoc();
  auto outputType = cast<MemRefType>(im.output.getType());
  SmallVector<int64_t> shape(outputType.getShape());
  shape[kN] = 1;
  shape[kOh] = tile.rows;
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value windows = memref::AllocOp::create(
      b, loc, MemRefType::get(shape, outputType.getElementType()),
      b.getI64IntegerAttr(kVectorBytes));
  Value padding = paddingValue(b, loc, im);
  Value image = getValueOrCreateConstantIndexOp(b, loc, tile.image);
  Value firstRow = arith::DivUIOp::create(b, loc, tile.pixel,
                                          cst(outputType.getDimSize(kOw)));
  Destination dest{windows, cst(0), firstRow, tile.rows};
  auto channels = scf::ForOp::create(b, loc, cst(0),
                                     cst(outputType.getDimSize(kC)), cst(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(channels.getBody()->getTerminator());
    RowEmitter emitter(b, loc, im, padding, image, channels.getInductionVar(),
                       dest);
    for (int64_t kh = 0; kh < outputType.getDimSize(kKh); ++kh)
      for (int64_t kw = 0; kw < outputType.getDimSize(kKw); ++kw)
        emitter.emitOffset(kh, kw);
  }
  Value matrices = memref::CollapseShapeOp::create(
      b, loc, windows, tile.collapse.getReassociationIndices());
  tile.slice.getResult().replaceAllUsesWith(matrices);
  b.setInsertionPoint(tile.loop.getBody()->getTerminator());
  memref::DeallocOp::create(b, loc, windows);
  tile.slice.erase();
  tile.collapse.erase();
  Value output = im.output;
  eraseIm2col(im, tile.loop);
  // The whole windows' buffer, now unwritten and unread, goes.
  for (Operation *user : llvm::to_vector(output.getUsers()))
    user->erase();
  output.getDefiningOp()->erase();
}

struct JeetCpuIm2colPass
    : public jeet::impl::JeetCpuIm2colPassBase<JeetCpuIm2colPass> {
  using Base::Base;

  void runOnOperation() override {
    jeet::cpu::forEachGeneric(
        getOperation(), [&](linalg::GenericOp op, bool nested) {
          std::optional<Im2col> im = matchIm2col(op);
          if (!im)
            return;
          absorbPad(*im);
          if (std::optional<TileWindows> tile = matchTileWindows(*im))
            rewriteIntoTiles(*im, *tile);
          else
            rewriteIm2col(*im, parallel && !nested);
        });
  }
};

} // namespace
