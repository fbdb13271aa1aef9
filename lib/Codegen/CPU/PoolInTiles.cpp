//===- PoolInTiles.cpp - A pooling of a convolution's output in its tiles -===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-pool-in-tiles: a convolution's matmul with its epilogue is a loop
// of tiles, each writing one image's T output pixels (whole output rows) for
// every channel into the (N, C, OH * OW) result; a pooling whose windows tile
// that result (jeet.max_pool2d, jeet.avg_pool2d of 2x2 windows, say) reduces
// it seen as (N, C, PH, KH, PW, KW) in a loop of its own after the tiles. The
// whole result goes out to memory and comes back, and on several threads the
// pooling's loop is one more start and join of the threads.
//
// When a tile's rows are whole rows of windows (T a multiple of KH * OW) and
// the pooling is the only reader of the result, the pooling moves into the
// tiles: each tile's epilogue writes its pixels into a small buffer of its
// own, which the tile then pools into its rows of the pooling's output. The
// fill of that output just before the pooling and an elementwise generic
// just after it that rewrites it in place (the average pooling's division)
// come along, each applied to the tile's rows. The convolution's result is
// never written out whole (1 MiB for the example CNN's first convolution).
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "VectorizeUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUPOOLINTILESPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// The pooling's loops: (n, c, ph, kh, pw, kw).
enum Loop : unsigned { kN, kC, kPh, kKh, kPw, kKw, kNumLoops };
/// The largest buffer of one tile's pixels: what jeet-cpu-hoist-tile-buffers
/// puts on the stack by default.
constexpr int64_t kMaxTileBytes = 64 * 1024;
/// Buffers start on a cache line.
constexpr int64_t kAlignment = 64;

/// A pooling of the tiles' result and what comes with it.
struct PoolInTiles {
  /// The fill of the pooling's output before it, or null; the pooling; the
  /// in-place elementwise generic after it, or null.
  linalg::FillOp fill;
  linalg::GenericOp pool;
  linalg::GenericOp epilogue;
  /// The convolution's (N, C, P) result, its (N, C, PH, KH, PW, KW) view
  /// that the pooling reads, and the pooling's (N, C, PH, PW) output.
  memref::AllocOp result;
  memref::ExpandShapeOp windows;
  Value output;
  /// The tile loop, the slice of the result a tile writes and the op that
  /// writes it.
  scf::ForallOp loop;
  memref::SubViewOp slice;
  Operation *writer;
  /// The tile's pixels (T) and its first pixel's loop index.
  int64_t pixels;
  Value pixel;
};

/// Whether `op` is a pooling of windows that tile its input: a generic over
/// (n, c, ph, kh, pw, kw), parallel but kh and kw, reading an identity
/// indexed input into an output at (n, c, ph, pw), without linalg.index.
bool isPooling(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != kNumLoops ||
      op.hasIndexSemantics())
    return false;
  auto iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < kNumLoops; ++d)
    if ((iterators[d] == utils::IteratorType::reduction) !=
        (d == kKh || d == kKw))
      return false;
  MLIRContext *context = op.getContext();
  SmallVector<AffineExpr> outputExprs;
  for (unsigned d : {kN, kC, kPh, kPw})
    outputExprs.push_back(getAffineDimExpr(d, context));
  return op.getMatchingIndexingMap(op.getDpsInputOperand(0)).isIdentity() &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults() ==
             ArrayRef(outputExprs);
}

/// The generic just after `op` (frees of other buffers aside) that rewrites
/// `output` in place elementwise: one input and one init, both `output`,
/// identity maps, all loops parallel, no linalg.index.
linalg::GenericOp inPlaceAfter(Operation *op, Value output) {
  Operation *after = op->getNextNode();
  while (isa_and_present<memref::DeallocOp>(after) &&
         after->getOperand(0) != output)
    after = after->getNextNode();
  auto next = dyn_cast_or_null<linalg::GenericOp>(after);
  if (!next || !jeet::cpu::isInPlaceElementwise(next, output))
    return nullptr;
  return next;
}

/// Whether the pooling's ops can run earlier, at the end of the tile loop's
/// body: every op between the loop and them touches no memory (views,
/// constants) or allocates or frees other buffers than `output`.
bool canHoist(scf::ForallOp loop, Operation *first, Value output) {
  for (Operation *op = loop->getNextNode(); op && op != first;
       op = op->getNextNode()) {
    if (llvm::is_contained(op->getOperands(), output))
      return false;
    if (isa<memref::AllocOp, memref::DeallocOp>(op) || isMemoryEffectFree(op))
      continue;
    return false;
  }
  return true;
}

std::optional<PoolInTiles> match(linalg::GenericOp pool) {
  if (!isPooling(pool))
    return std::nullopt;
  PoolInTiles p;
  p.pool = pool;
  p.output = pool.getDpsInitOperand(0)->get();
  auto outputType = dyn_cast<MemRefType>(p.output.getType());
  if (!outputType || !outputType.hasStaticShape() ||
      !outputType.getLayout().isIdentity())
    return std::nullopt;
  // The pooling reads the result as windows, and nothing else but the tiles
  // touches the result.
  p.windows =
      pool.getDpsInputOperand(0)->get().getDefiningOp<memref::ExpandShapeOp>();
  if (!p.windows || !p.windows->hasOneUse())
    return std::nullopt;
  SmallVector<ReassociationIndices> pixelsAsWindows = {
      {kN}, {kC}, {kPh, kKh, kPw, kKw}};
  if (p.windows.getReassociationIndices() != pixelsAsWindows)
    return std::nullopt;
  p.result = p.windows.getSrc().getDefiningOp<memref::AllocOp>();
  if (!p.result || !p.result.getType().hasStaticShape() ||
      !p.result.getType().getLayout().isIdentity())
    return std::nullopt;
  for (Operation *user : p.result->getUsers()) {
    if (user == p.windows.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    auto slice = dyn_cast<memref::SubViewOp>(user);
    if (!slice || p.slice)
      return std::nullopt;
    p.slice = slice;
  }
  if (!p.slice)
    return std::nullopt;
  p.loop = dyn_cast<scf::ForallOp>(p.slice->getParentOp());
  if (!p.loop || p.loop->getBlock() != pool->getBlock() ||
      !p.loop->isBeforeInBlock(pool))
    return std::nullopt;
  // The slice is [n, 0, p] [1, C, T] at a loop index p that steps by T from
  // 0, T a multiple of a row of windows.
  auto windowsType = cast<MemRefType>(p.windows.getType());
  ArrayRef<int64_t> shape = windowsType.getShape();
  SmallVector<OpFoldResult> offsets = p.slice.getMixedOffsets();
  ArrayRef<int64_t> sizes = p.slice.getStaticSizes();
  if (sizes.size() != 3 || sizes[0] != 1 || sizes[1] != shape[kC] ||
      ShapedType::isDynamic(sizes[2]) || !isConstantIntValue(offsets[1], 0) ||
      !llvm::all_of(p.slice.getStaticStrides(),
                    [](int64_t stride) { return stride == 1; }))
    return std::nullopt;
  p.pixels = sizes[2];
  int64_t windowRow = shape[kKh] * shape[kPw] * shape[kKw];
  int64_t elementBytes = p.result.getType().getElementTypeBitWidth() / 8;
  if (p.pixels % windowRow != 0 ||
      shape[kC] * p.pixels * elementBytes > kMaxTileBytes)
    return std::nullopt;
  p.pixel = dyn_cast_if_present<Value>(offsets[2]);
  auto iv = dyn_cast_or_null<BlockArgument>(p.pixel);
  if (!iv || iv.getOwner() != p.loop.getBody())
    return std::nullopt;
  unsigned dim = iv.getArgNumber();
  if (dim >= p.loop.getRank() ||
      !isConstantIntValue(p.loop.getMixedLowerBound()[dim], 0) ||
      getConstantIntValue(p.loop.getMixedStep()[dim]) != p.pixels)
    return std::nullopt;
  // One op of the tile writes the slice, and only writes it.
  if (!p.slice->hasOneUse())
    return std::nullopt;
  OpOperand &use = *p.slice->getUses().begin();
  auto writer = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!writer || writer->getBlock() != p.slice->getBlock() ||
      !writer.isDpsInit(&use) || writer.getNumDpsInits() != 1 ||
      writer.payloadUsesValueFromOperand(&use))
    return std::nullopt;
  p.writer = writer;
  // The pooling's output is filled just before it (or not at all), and
  // maybe rewritten in place just after.
  Operation *first = pool;
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(pool->getPrevNode());
      fill && fill.getDpsInitOperand(0)->get() == p.output) {
    p.fill = fill;
    first = fill;
  }
  p.epilogue = inPlaceAfter(pool, p.output);
  // Nothing else between the tiles and the pooling writes or reads memory,
  // and the output is allocated before the tiles or there.
  if (!canHoist(p.loop, first, p.output))
    return std::nullopt;
  Operation *outputDef = p.output.getDefiningOp();
  if (outputDef && (!isa<memref::AllocOp>(outputDef) ||
                    outputDef->getBlock() != pool->getBlock()))
    return std::nullopt;
  return p;
}

/// Moves the pooling into the tiles (see the file's comment).
void rewrite(PoolInTiles &p) {
  Location loc = p.pool.getLoc();
  // The output must be there before the tiles.
  if (Operation *outputDef = p.output.getDefiningOp();
      outputDef && p.loop->isBeforeInBlock(outputDef))
    outputDef->moveBefore(p.loop);

  OpBuilder b(p.slice);
  MemRefType resultType = p.result.getType();
  auto tileType = MemRefType::get({1, resultType.getDimSize(1), p.pixels},
                                  resultType.getElementType());
  Value tile = memref::AllocOp::create(b, loc, tileType,
                                       b.getI64IntegerAttr(kAlignment));
  p.slice.getResult().replaceAllUsesWith(tile);
  Value image =
      getValueOrCreateConstantIndexOp(b, loc, p.slice.getMixedOffsets()[0]);

  b.setInsertionPointAfter(p.writer);
  auto windowsType = cast<MemRefType>(p.windows.getType());
  ArrayRef<int64_t> shape = windowsType.getShape();
  int64_t rows = p.pixels / (shape[kKh] * shape[kPw] * shape[kKw]);
  Value tileWindows = memref::ExpandShapeOp::create(
      b, loc,
      MemRefType::get({1, shape[kC], rows, shape[kKh], shape[kPw], shape[kKw]},
                      resultType.getElementType()),
      tile, p.windows.getReassociationIndices());
  // The tile's rows of the output: [n, 0, p / (KH * PW * KW), 0]
  // [1, C, rows, PW].
  Value firstRow =
      arith::DivUIOp::create(b, loc, p.pixel,
                             arith::ConstantIndexOp::create(
                                 b, loc, shape[kKh] * shape[kPw] * shape[kKw]));
  Value outputRows = memref::SubViewOp::create(
      b, loc, p.output,
      SmallVector<OpFoldResult>{image, b.getIndexAttr(0), firstRow,
                                b.getIndexAttr(0)},
      SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(shape[kC]),
                                b.getIndexAttr(rows),
                                b.getIndexAttr(shape[kPw])},
      SmallVector<OpFoldResult>(4, b.getIndexAttr(1)));
  IRMapping mapping;
  mapping.map(p.output, outputRows);
  mapping.map(p.windows.getResult(), tileWindows);
  for (Operation *op : {p.fill.getOperation(), p.pool.getOperation(),
                        p.epilogue.getOperation()})
    if (op)
      b.clone(*op, mapping);
  memref::DeallocOp::create(b, loc, tile);

  for (Operation *op : {p.epilogue.getOperation(), p.pool.getOperation(),
                        p.fill.getOperation()})
    if (op)
      op->erase();
  p.slice.erase();
  p.windows.erase();
  for (Operation *user : llvm::to_vector(p.result->getUsers()))
    user->erase();
  p.result.erase();
}

struct JeetCpuPoolInTilesPass
    : public jeet::impl::JeetCpuPoolInTilesPassBase<JeetCpuPoolInTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    // Poolings only: a rewrite erases the generic after a pooling.
    getOperation().walk([&](linalg::GenericOp op) {
      if (isPooling(op))
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics)
      if (std::optional<PoolInTiles> p = match(op))
        rewrite(*p);
  }
};

} // namespace
