//===- JoinedRows.cpp - Vectors across rows shorter than a vector ---------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-vectorize-elementwise's strategy for generics whose innermost
// loop is shorter than a vector (a depthwise convolution's rows of 6 or 3
// at the end of a mobile network): the two innermost loops are read as one
// grid, each vector a run of consecutive grid positions across rows.
//
// An operand whose rows are `stride` elements apart in memory (a window of
// a padded input: rows of the padded width) holds its (rows, width) elements
// at grid positions `h * stride + w` of one contiguous run of `(rows - 1) *
// stride + width` elements; positions with `w >= width` are between its
// rows. A vector of consecutive positions is one load of such an operand
// (the lanes between rows read elements of the run, never used), and one
// load and a shuffle of an operand whose rows are packed (`stride ==
// width`: the lanes between rows take no element). A vector that would run
// past the end of its operand's run is the vector that ends there, its
// lanes moved up by a shuffle (a masked load only where the run is shorter
// than a vector): on Zen 1 a masked load costs ~13 cycles where it is not
// aligned, a load ~1 (a masked store ~4 ns more than a store). A packed
// output takes whole vectors of its positions, each gathered by shuffles
// from the vectors that computed its lanes and stored as soon as they are
// all computed (no later vector of the iteration reads those positions,
// also where the output is an input too), the last the vector that ends at
// the output's last position; a masked store only where the output's rows
// together are shorter than a vector. An output with rows apart (elements
// between them it does not write) keeps a masked store of the lanes on
// rows. An input whose elements are `spacing` (2 to 4) apart
// along a row (a stride-2 window) holds them at every `spacing`-th element
// of its run: a load of each vector's span and a shuffle. The positions of
// each vector, and so its masks and shuffles, are known at compile time:
// the vectors are unrolled (kMaxSteps at most).
//
//===----------------------------------------------------------------------===//

#include "VectorizeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace jeet::cpu;

namespace {

/// Vectors per outer iteration at most: their loads, bodies and stores are
/// unrolled.
constexpr int64_t kMaxSteps = 32;

/// A sum of dimensions times constants (a pure affine expression) at the
/// given dimension values.
int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> dims) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dims[dim.getPosition()];
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t lhs = evaluate(binary.getLHS(), dims);
  int64_t rhs = evaluate(binary.getRHS(), dims);
  return expr.getKind() == AffineExprKind::Add ? lhs + rhs : lhs * rhs;
}

/// The elements between consecutive values of loop `loop` for `operand`, if
/// its memref's strides are static.
std::optional<int64_t> loopStride(linalg::GenericOp op, OpOperand &operand,
                                  unsigned loop) {
  auto type = cast<MemRefType>(operand.get().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  SmallVector<int64_t> zero(map.getNumDims(), 0), one(zero);
  one[loop] = 1;
  int64_t total = 0;
  for (auto [expr, stride] : llvm::zip_equal(map.getResults(), strides))
    total += (evaluate(expr, one) - evaluate(expr, zero)) * stride;
  return total;
}

/// Whether an op of the body may fault on a lane off the rows (whose inputs
/// are whatever the masked loads put there): integer division.
bool mayFault(Operation &inst) {
  return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
             arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(inst);
}

/// The cost of one instruction on `lanes` lanes of `bits` each: one per
/// `datapathBits` slice (two for 512 bits on a core that executes them as
/// two halves); a narrower vector or a scalar costs one.
int64_t costOf(int64_t lanes, int64_t bits, int64_t datapathBits) {
  return std::max<int64_t>(1, llvm::divideCeil(lanes * bits, datapathBits));
}

} // namespace

/// Whether the strategy applies to `op` and pays.
std::optional<JoinedRows>
JoinedRows::plan(linalg::GenericOp op, const llvm::DenseSet<Value> &uniform,
                 int64_t vectorWidth, int64_t datapathBits, Operation *skip) {
  unsigned loops = op.getNumLoops();
  if (loops < 2)
    return std::nullopt;
  // The outer loops parallel; the two innermost too, or reductions whose
  // output the caller combines (`skip`).
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [dim, iterator] : llvm::enumerate(iterators)) {
    bool reduces = skip && dim + 2 >= loops;
    if (iterator != (reduces ? utils::IteratorType::reduction
                             : utils::IteratorType::parallel))
      return std::nullopt;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  JoinedRows grid(op, uniform, skip);
  grid.rows = ranges[loops - 2];
  grid.width = ranges[loops - 1];
  if (grid.rows < 2 || grid.width >= vectorWidth || grid.width < 1)
    return std::nullopt;
  if (llvm::any_of(op.getBlock()->without_terminator(), mayFault))
    return std::nullopt;
  // The distance between rows, in positions, of the operands that are not
  // packed (all the same).
  std::optional<int64_t> gridStride;
  int64_t bits = 8;
  for (OpOperand &operand : op->getOpOperands()) {
    bits = std::max<int64_t>(
        bits,
        cast<MemRefType>(operand.get().getType()).getElementTypeBitWidth());
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    bool isInit = op.isDpsInit(&operand);
    // A reduction's output is the caller's.
    if ((isInit && skip) || (!isInit && arg.use_empty()))
      continue;
    std::optional<int64_t> alongRows = loopStride(op, operand, loops - 2);
    std::optional<int64_t> alongRow = loopStride(op, operand, loops - 1);
    if (!alongRows || !alongRow)
      return std::nullopt;
    unsigned number = operand.getOperandNumber();
    if (!isInit && uniform.contains(arg)) {
      // Read once per outer iteration.
      if (*alongRows != 0 || *alongRow != 0)
        return std::nullopt;
      grid.layouts[number] = Layout::Uniform;
      continue;
    }
    // Elements consecutive along a row, or a few apart (a strided window:
    // a grid over every `spacing`-th element) for an input.
    int64_t spacing = *alongRow;
    if (spacing < 1 || spacing > kMaxReadStride || (isInit && spacing != 1))
      return std::nullopt;
    if (spacing == 1 && *alongRows == grid.width) {
      grid.layouts[number] = Layout::Packed;
      continue;
    }
    if (*alongRows % spacing != 0)
      return std::nullopt;
    int64_t distance = *alongRows / spacing;
    if (distance < grid.width || (gridStride && *gridStride != distance))
      return std::nullopt;
    gridStride = distance;
    grid.layouts[number] = Layout::Grid;
    grid.spacings[number] = spacing;
  }
  grid.stride = gridStride.value_or(grid.width);
  grid.positions = (grid.rows - 1) * grid.stride + grid.width;
  // The row by row loop: each row as vectors of power-of-two widths.
  int64_t rowCost = 0;
  for (int64_t piece = llvm::PowerOf2Ceil(grid.width), left = grid.width;
       left > 0; piece /= 2)
    for (; piece <= left; left -= piece)
      rowCost += costOf(piece, bits, datapathBits);
  int64_t best = grid.rows * rowCost;
  // The least cost below the rows', then the widest vectors within a
  // seventh of it: fewer, wider vectors are less code to compile (and one
  // instruction each on a core with 512-bit units).
  SmallVector<std::pair<int64_t, int64_t>> candidates; // (lanes, cost)
  for (int64_t lanes = llvm::PowerOf2Ceil(vectorWidth + 1) / 2; lanes >= 2;
       lanes /= 2) {
    int64_t steps = llvm::divideCeil(grid.positions, lanes);
    int64_t cost = steps * costOf(lanes, bits, datapathBits);
    if (steps <= kMaxSteps && cost < best)
      candidates.push_back({lanes, cost});
  }
  if (candidates.empty())
    return std::nullopt;
  int64_t least = llvm::min_element(candidates, [](auto a, auto b) {
                    return a.second < b.second;
                  })->second;
  for (auto [lanes, cost] : candidates)
    if (cost * 7 <= least * 8) {
      grid.lanes = lanes;
      break;
    }
  return grid;
}

/// The elements of `operand` at loop indices `ivs` (the two innermost at 0)
/// on: a one-dimensional view of `size` elements.
static Value viewAt(OpBuilder &b, Location loc, linalg::GenericOp op,
                    OpOperand &operand, ArrayRef<Value> ivs, int64_t size) {
  Value memref = operand.get();
  SmallVector<int64_t> strides;
  int64_t staticOffset;
  (void)cast<MemRefType>(memref.getType())
      .getStridesAndOffset(strides, staticOffset);
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value offset = metadata.getOffset();
  for (auto [index, stride] :
       llvm::zip_equal(inputIndicesAt(b, loc, op, operand, ivs), strides)) {
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, index,
                              arith::ConstantIndexOp::create(b, loc, stride)));
  }
  return memref::ReinterpretCastOp::create(
      b, loc, metadata.getBaseBuffer(), getAsOpFoldResult(offset),
      ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

bool JoinedRows::onRow(int64_t position) const {
  return position < positions && position % stride < width;
}

int64_t JoinedRows::packedBefore(int64_t position) const {
  int64_t row = position / stride;
  return row * width + std::min(position - row * stride, width);
}

void JoinedRows::emit(OpBuilder &b, ValueRange outer,
                      function_ref<void(IRMapping &, Value)> onStep) {
  Location loc = op.getLoc();
  auto cst = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  // The first position's loop indices.
  SmallVector<Value> ivs(outer);
  ivs.append({cst(0), cst(0)});
  // The views and the uniform inputs, once per outer iteration.
  llvm::SmallDenseMap<unsigned, Value> views, scalars;
  // The elements of each view: a load may read any of them, on a row or
  // not (its lanes off rows are never stored or reduced).
  llvm::SmallDenseMap<unsigned, int64_t> viewSizes;
  for (OpOperand &operand : op->getOpOperands()) {
    unsigned number = operand.getOperandNumber();
    auto it = layouts.find(number);
    if (it == layouts.end())
      continue;
    Layout layout = it->second;
    if (layout != Layout::Uniform) {
      int64_t spacing = spacings.lookup(number);
      int64_t size =
          layout == Layout::Grid ? spacing * (positions - 1) + 1 : rows * width;
      views[number] = viewAt(b, loc, op, operand, ivs, size);
      viewSizes[number] = size;
      continue;
    }
    scalars[number] = memref::LoadOp::create(
        b, loc, operand.get(), inputIndicesAt(b, loc, op, operand, ivs));
  }
  auto maskType = VectorType::get({lanes}, b.getI1Type());
  // A packed output's positions so far, each the (vector, lane) holding it,
  // and how many of them are stored. Whole vectors of positions are stored
  // as soon as they are computed: no later vector of this iteration reads
  // them (their inputs' elements are read), also where the output is an
  // input too. A masked store costs several stores on some cores.
  struct PackedOutput {
    SmallVector<std::pair<Value, int64_t>> sources;
    int64_t stored = 0;
  };
  llvm::SmallDenseMap<unsigned, PackedOutput> packedOutputs;
  // The vector of `sources`' lanes (fewer: the rest any lane), by shuffles
  // of the vectors that hold them in turn.
  auto gather = [&](ArrayRef<std::pair<Value, int64_t>> sources) -> Value {
    Value gathered;
    SmallVector<Value> vectors;
    for (auto [vector, lane] : sources)
      if (!llvm::is_contained(vectors, vector))
        vectors.push_back(vector);
    for (Value vector : vectors) {
      SmallVector<int64_t> lanesFrom;
      for (int64_t lane = 0; lane < lanes; ++lane) {
        bool here = lane < static_cast<int64_t>(sources.size()) &&
                    sources[lane].first == vector;
        if (!gathered)
          lanesFrom.push_back(here ? sources[lane].second : 0);
        else
          lanesFrom.push_back(here ? lanes + sources[lane].second : lane);
      }
      gathered = vector::ShuffleOp::create(b, loc, gathered ? gathered : vector,
                                           vector, lanesFrom);
    }
    return gathered;
  };
  for (int64_t start = 0; start < positions; start += lanes) {
    SmallVector<bool> mask;
    // Each lane on a row: its place among them; the lanes on rows.
    SmallVector<int64_t> rank, packed;
    for (int64_t lane = 0; lane < lanes; ++lane) {
      bool on = onRow(start + lane);
      mask.push_back(on);
      rank.push_back(on ? static_cast<int64_t>(packed.size()) : 0);
      if (on)
        packed.push_back(lane);
    }
    int64_t count = packed.size();
    int64_t first = packedBefore(start);
    Value gridMask = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(maskType, ArrayRef<bool>(mask)));

    auto load = [&](OpOperand &operand) -> Value {
      unsigned number = operand.getOperandNumber();
      auto it = layouts.find(number);
      if (it == layouts.end())
        return Value();
      if (it->second == Layout::Uniform)
        return scalars.lookup(number);
      auto type = VectorType::get(
          {lanes}, getElementTypeOrSelf(operand.get().getType()));
      Value view = views.lookup(number);
      int64_t viewSize = viewSizes.lookup(number);
      // `width` elements of the view from `at` on: a load where they are
      // all in it; else the vector that ends at the view's last element,
      // its lanes moved up to their places (the lanes past the view take
      // any element); a masked load of those in the view only where the
      // view is shorter than the vector. Nothing past the view is touched.
      // (A masked load costs several loads on some cores: Zen 1 ~13 cycles
      // unaligned.)
      auto read = [&](VectorType vectorType, int64_t at) -> Value {
        int64_t width = vectorType.getNumElements();
        if (at + width <= viewSize)
          return vector::LoadOp::create(b, loc, vectorType, view,
                                        ValueRange{cst(at)});
        if (width <= viewSize) {
          Value loaded = vector::LoadOp::create(
              b, loc, vectorType, view, ValueRange{cst(viewSize - width)});
          int64_t shift = at + width - viewSize;
          SmallVector<int64_t> moved;
          for (int64_t lane = 0; lane < width; ++lane)
            moved.push_back(std::min(lane + shift, width - 1));
          return vector::ShuffleOp::create(b, loc, loaded, loaded, moved);
        }
        Value inView = vector::ConstantMaskOp::create(
            b, loc, VectorType::get({width}, b.getI1Type()),
            ArrayRef<int64_t>{viewSize - at});
        return vector::MaskedLoadOp::create(
            b, loc, vectorType, view, ValueRange{cst(at)}, inView,
            arith::ConstantOp::create(b, loc, b.getZeroAttr(vectorType)));
      };
      // Every `spacing`-th element of the span: a load of the span and a
      // shuffle.
      if (int64_t spacing = spacings.lookup(number); spacing > 1) {
        auto wide = VectorType::get({spacing * lanes}, type.getElementType());
        SmallVector<int64_t> keep;
        for (int64_t lane = 0; lane < lanes; ++lane)
          keep.push_back(lane * spacing);
        Value loaded = read(wide, spacing * start);
        return vector::ShuffleOp::create(b, loc, loaded, loaded, keep);
      }
      if (it->second == Layout::Grid)
        return read(type, start);
      // A vector on rows only is a load.
      if (count == lanes)
        return vector::LoadOp::create(b, loc, type, view,
                                      ValueRange{cst(first)});
      Value loaded = read(type, first);
      return vector::ShuffleOp::create(b, loc, loaded, loaded, rank);
    };
    IRMapping mapping = cloneBodyAt(b, loc, op, *uniform, ivs, lanes, skip,
                                    /*onLoad=*/{}, load);
    if (onStep)
      onStep(mapping, gridMask);
    if (skip)
      continue;
    auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
    for (auto [value, init] :
         llvm::zip_equal(yield.getValues(), op.getDpsInitsMutable())) {
      Value result = splatTo(b, loc, mapping.lookupOrDefault(value), lanes);
      unsigned number = init.getOperandNumber();
      Value view = views.lookup(number);
      if (layouts.lookup(number) == Layout::Grid) {
        // Between its rows lie elements this op does not write.
        if (count == lanes)
          vector::StoreOp::create(b, loc, result, view, ValueRange{cst(start)});
        else
          vector::MaskedStoreOp::create(b, loc, view, ValueRange{cst(start)},
                                        gridMask, result);
        continue;
      }
      PackedOutput &out = packedOutputs[number];
      assert(static_cast<int64_t>(out.sources.size()) == first &&
             "positions computed in order");
      for (int64_t lane : packed)
        out.sources.push_back({result, lane});
      while (static_cast<int64_t>(out.sources.size()) - out.stored >= lanes) {
        vector::StoreOp::create(
            b, loc, gather(ArrayRef(out.sources).slice(out.stored, lanes)),
            view, ValueRange{cst(out.stored)});
        out.stored += lanes;
      }
    }
  }
  // The positions left: the vector that ends at the last (its first lanes
  // stored again, the same values), or a masked store where the rows
  // together are shorter than a vector.
  for (auto &[number, out] : packedOutputs) {
    int64_t total = out.sources.size();
    if (out.stored == total)
      continue;
    Value view = views.lookup(number);
    if (total >= lanes) {
      vector::StoreOp::create(b, loc,
                              gather(ArrayRef(out.sources).take_back(lanes)),
                              view, ValueRange{cst(total - lanes)});
      continue;
    }
    vector::MaskedStoreOp::create(
        b, loc, view, ValueRange{cst(out.stored)},
        vector::ConstantMaskOp::create(b, loc, maskType,
                                       ArrayRef<int64_t>{total - out.stored}),
        gather(ArrayRef(out.sources).drop_front(out.stored)));
  }
}

bool jeet::cpu::vectorizeJoinedRows(OpBuilder &b, linalg::GenericOp op,
                                    const llvm::DenseSet<Value> &uniform,
                                    int64_t vectorWidth, int64_t datapathBits,
                                    bool parallel) {
  std::optional<JoinedRows> grid =
      JoinedRows::plan(op, uniform, vectorWidth, datapathBits);
  if (!grid)
    return false;
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t range : ArrayRef(ranges).drop_back(2)) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, range));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  if (lbs.empty()) {
    grid->emit(b, {});
    return true;
  }
  buildLoops(b, loc, lbs, ubs, steps, parallel,
             [&](OpBuilder &nested, ValueRange ivs) {
               OpBuilder::InsertionGuard guard(b);
               b.setInsertionPoint(nested.getInsertionBlock(),
                                   nested.getInsertionPoint());
               grid->emit(b, ivs);
             });
  return true;
}

int64_t jeet::cpu::hostVectorDatapathBits() {
  static const int64_t bits = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    return jeet::getVectorDatapathBits(
        llvm::sys::getHostCPUName(),
        [&](llvm::StringRef name) { return features.lookup(name); });
  }();
  return bits;
}

int64_t jeet::getVectorDatapathBits(
    llvm::StringRef cpu, llvm::function_ref<bool(llvm::StringRef)> hasFeature) {
  // Zen 4 executes 512-bit instructions as two 256-bit halves; Zen 5 and
  // Intel's AVX-512 cores whole.
  if (!hasFeature("avx512f") || cpu == "znver4")
    return 256;
  return 512;
}
