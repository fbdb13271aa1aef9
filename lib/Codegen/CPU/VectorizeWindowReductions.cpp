//===- VectorizeWindowReductions.cpp - Vectors along pooled outputs -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-vectorize-window-reductions: a pooling whose windows tile its
// input reduces the input viewed as (..., OW, KW) over a short innermost
// loop (the KW columns of a window). Vectorising along that loop gives
// vectors of 2 or 3 lanes and a horizontal reduction per output; instead,
// each step loads the KW * width contiguous inputs of `width` outputs as one
// vector and splits it into KW vectors of every KW-th lane (vector.shuffle),
// so that the lanes run along the outputs.
//
// The reduction's neighbours on the same output buffer join its loop: a
// `linalg.fill` of the output just before it becomes the accumulator's
// first value (a splat, not a load), and an elementwise generic just after
// it that rewrites the output in place (an average pooling's division by
// the window's size) is applied to the accumulator before its store. Each
// was a pass over the whole output of its own, and, on several threads, a
// parallel loop and a barrier of its own.
//
// A max pooling of values that are all non-negative or NaN (a relu's
// results, written into the pooled buffer just before: a convolution's
// tile with its epilogue and pooling) compares their bits as unsigned
// integers: +0 < subnormals < normals < +inf < NaNs of either sign, the
// order `maximumf` gives such values (a NaN wins, -0 never occurs), in one
// instruction where `maximumf` takes a max, NaN and signed-zero fix-ups.
// The accumulator then starts at +0 (the smallest such value) rather than
// the fill's -inf, whose bits are large unsigned.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "VectorizeUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <functional>

namespace jeet {
#define GEN_PASS_DEF_JEETCPUVECTORIZEWINDOWREDUCTIONSPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// The longest window row reduced this way: a vector of kMaxWindow * width
/// lanes is loaded per step.
constexpr int64_t kMaxWindow = 8;
/// Booleans (i1) are left alone: their vectors are not loaded as bytes.
constexpr unsigned kMinBits = 8;
/// Output vector widths tried, widest first: the widest that divides the
/// output row, else the widest that fits it, the row's last outputs then
/// one narrower step of their own (a 2x2 pooling of 28 columns: 8, 8, 8
/// and 4; of 6: 4 and 2). A row no width divides took the generic's scalar
/// loops, 5-10 times slower (a sum over 2x2 windows of 96 x 28 x 28: 44.7
/// us against 37.7 for 128 x 56 x 56, 5.3 times the elements).
constexpr int64_t kWidths[] = {16, 8, 4};

/// A reduction whose innermost loop reduces a short window row.
struct WindowReduction {
  linalg::GenericOp op;
  /// The op of the body that combines the output with the input.
  Operation *combiner;
  /// Whether the combiner takes the output first.
  bool outputFirst;
  /// The window row (KW) and the output vectors' width.
  int64_t window, width;
  /// A fill of the whole output right before the reduction (its value
  /// starts every accumulator), or null.
  linalg::FillOp fill;
  /// An elementwise generic right after the reduction that rewrites the
  /// output in place from its values alone, or null.
  linalg::GenericOp epilogue;
  /// A `maximumf` reduction, with a fill, of values known non-negative or
  /// NaN: combined as unsigned integers, from +0.
  bool unsignedMax = false;
};

/// The buffer a chain of reshapes (and, with `throughSubviews`, subviews)
/// starts from.
Value viewSource(Value value, bool throughSubviews) {
  while (Operation *op = value.getDefiningOp()) {
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(op))
      value = expand.getSrc();
    else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op))
      value = collapse.getSrc();
    else if (auto subview = dyn_cast<memref::SubViewOp>(op);
             subview && throughSubviews)
      value = subview.getSource();
    else
      break;
  }
  return value;
}

/// Whether every element of `input` (a reshape of a buffer allocated in
/// the function) was last written, before `op` in the same block, by an
/// all-parallel generic with an identity map on the whole buffer whose
/// yielded value is non-negative or NaN: a relu epilogue writing a tile
/// that a pooling then reads. The ops between may only be views and fills
/// of other buffers.
bool readsNonNegativeOrNaN(linalg::GenericOp op, Value input) {
  // Reshapes only: a subview would be part of a buffer that the writer
  // below must have written whole.
  Value buffer = viewSource(input, /*throughSubviews=*/false);
  if (!buffer.getDefiningOp<memref::AllocOp>() &&
      !buffer.getDefiningOp<memref::AllocaOp>())
    return false;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::SubViewOp>(
            prev) ||
        isPure(prev))
      continue;
    // A fill of another buffer (the pooled output's) cannot touch the
    // allocation: only views of the allocation alias it.
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (!fill.hasPureBufferSemantics() ||
          viewSource(fill.getDpsInitOperand(0)->get(),
                     /*throughSubviews=*/true) == buffer)
        return false;
      continue;
    }
    auto writer = dyn_cast<linalg::GenericOp>(prev);
    if (!writer || !writer.hasPureBufferSemantics() ||
        writer.getNumDpsInits() != 1 ||
        writer.getDpsInitOperand(0)->get() != buffer ||
        writer.getNumParallelLoops() != writer.getNumLoops() ||
        !writer.getMatchingIndexingMap(writer.getDpsInitOperand(0))
             .isIdentity())
      return false;
    return jeet::cpu::isNonNegativeOrNaN(
        writer.getBlock()->getTerminator()->getOperand(0));
  }
  return false;
}

/// The generic just after `op` that maps each element of `output` to a
/// function of it alone, written back in place: one input and one init, both
/// `output` with identity maps, all loops parallel, and a body of pure scalar
/// ops on the input and values defined outside it (constants), not reading
/// the init.
linalg::GenericOp epilogueAfter(Operation *op, Value output) {
  auto next = dyn_cast_or_null<linalg::GenericOp>(op->getNextNode());
  if (!next || !jeet::cpu::isInPlaceElementwise(next, output))
    return nullptr;
  Block *body = next.getBlock();
  if (!body->getArgument(1).use_empty())
    return nullptr;
  for (Operation &inner : body->without_terminator()) {
    if (inner.getNumRegions() != 0 || !isPure(&inner) ||
        inner.getNumResults() != 1 ||
        !isa_and_present<arith::ArithDialect>(inner.getDialect()))
      return nullptr;
    for (Type type : inner.getOperandTypes())
      if (!type.isIntOrIndexOrFloat())
        return nullptr;
  }
  return next;
}

/// The epilogue's body applied to the vector `value` (its element type the
/// body's input's) at the builder's insertion point: each op cloned with
/// vector types, values from outside the body splat.
Value applyEpilogue(OpBuilder &b, Location loc, linalg::GenericOp epilogue,
                    Value value) {
  auto type = cast<VectorType>(value.getType());
  Block *body = epilogue.getBlock();
  IRMapping mapping;
  mapping.map(body->getArgument(0), value);
  for (Operation &inner : body->without_terminator()) {
    for (Value operand : inner.getOperands())
      if (!mapping.contains(operand))
        mapping.map(operand,
                    jeet::cpu::splatTo(b, loc, operand, type.getNumElements()));
    Operation *cloned = b.clone(inner, mapping);
    Value result = cloned->getResult(0);
    result.setType(type.clone(inner.getResult(0).getType()));
    mapping.map(inner.getResult(0), result);
  }
  // An epilogue may yield a value from outside its body (x - x folded to a
  // constant): splat it too.
  Value yielded = body->getTerminator()->getOperand(0);
  if (!mapping.contains(yielded))
    return jeet::cpu::splatTo(b, loc, yielded, type.getNumElements());
  return mapping.lookup(yielded);
}

std::optional<WindowReduction> match(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.hasIndexSemantics())
    return std::nullopt;
  int64_t loops = op.getNumLoops();
  auto iterators = op.getIteratorTypesArray();
  if (loops < 2 || iterators[loops - 1] != utils::IteratorType::reduction ||
      iterators[loops - 2] != utils::IteratorType::parallel)
    return std::nullopt;
  OpOperand *input = op.getDpsInputOperand(0);
  OpOperand *output = op.getDpsInitOperand(0);
  auto inputType = dyn_cast<MemRefType>(input->get().getType());
  auto outputType = dyn_cast<MemRefType>(output->get().getType());
  if (!inputType || !outputType || !inputType.hasStaticShape() ||
      !outputType.hasStaticShape() || !inputType.getLayout().isIdentity() ||
      !outputType.isLastDimUnitStride() ||
      !inputType.getElementType().isIntOrFloat() ||
      inputType.getElementType().getIntOrFloatBitWidth() < kMinBits)
    return std::nullopt;
  // The input is read at the loops' indices; the output at the parallel
  // loops', in order.
  if (!op.getMatchingIndexingMap(input).isIdentity())
    return std::nullopt;
  SmallVector<AffineExpr> parallel;
  for (int64_t d = 0; d < loops; ++d)
    if (iterators[d] == utils::IteratorType::parallel)
      parallel.push_back(getAffineDimExpr(d, op.getContext()));
  if (op.getMatchingIndexingMap(output).getResults() != ArrayRef(parallel))
    return std::nullopt;
  // The body is one combining op of the output and the input.
  Block *body = op.getBlock();
  if (body->getOperations().size() != 2)
    return std::nullopt;
  Operation *combiner = &body->front();
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::AddFOp, arith::AddIOp,
           arith::MaxSIOp, arith::MinSIOp>(combiner) ||
      combiner->getResult(0) != body->getTerminator()->getOperand(0))
    return std::nullopt;
  Value in = body->getArgument(0), out = body->getArgument(1);
  bool outputFirst = combiner->getOperand(0) == out;
  if (combiner->getOperand(outputFirst ? 1 : 0) != in ||
      combiner->getOperand(outputFirst ? 0 : 1) != out)
    return std::nullopt;
  int64_t window = inputType.getDimSize(loops - 1);
  int64_t row = inputType.getDimSize(loops - 2);
  if (window < 2 || window > kMaxWindow || row < 2)
    return std::nullopt;
  std::optional<int64_t> chosen;
  for (int64_t width : kWidths)
    if (row % width == 0) {
      chosen = width;
      break;
    }
  if (!chosen)
    for (int64_t width : kWidths)
      if (width <= row) {
        chosen = width;
        break;
      }
  // A row of 2 or 3 outputs: one step of that many.
  int64_t width = chosen.value_or(row);
  WindowReduction w{op,
                    combiner,
                    outputFirst,
                    window,
                    width,
                    jeet::cpu::fillOfBufferBefore(op, output->get()),
                    epilogueAfter(op, output->get())};
  // The fill (every output starts from it) must be -inf or +0, below or
  // at every value combined.
  if (w.fill && isa<arith::MaximumFOp>(combiner)) {
    auto fillValue = w.fill.getDpsInputOperand(0)
                         ->get()
                         .getDefiningOp<arith::ConstantFloatOp>();
    w.unsignedMax =
        fillValue &&
        ((fillValue.value().isInfinity() && fillValue.value().isNegative()) ||
         fillValue.value().isPosZero()) &&
        readsNonNegativeOrNaN(op, input->get());
  }
  return w;
}

/// Emits the loops of `w` in place of its generic.
void rewrite(WindowReduction w) {
  linalg::GenericOp op = w.op;
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t loops = op.getNumLoops();
  auto iterators = op.getIteratorTypesArray();
  Value input = op.getDpsInputOperand(0)->get();
  Value output = op.getDpsInitOperand(0)->get();
  auto inputType = cast<MemRefType>(input.getType());
  Type element = inputType.getElementType();
  // (..., OW, KW) as (..., OW * KW): a window row is contiguous.
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < loops - 2; ++d)
    groups.push_back({d});
  groups.push_back({loops - 2, loops - 1});
  Value rows = memref::CollapseShapeOp::create(b, loc, input, groups);

  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  SmallVector<Value> lbs, ubs, steps;
  SmallVector<int64_t> parallelDims, reductionDims;
  for (int64_t d = 0; d < loops - 2; ++d) {
    if (iterators[d] == utils::IteratorType::parallel) {
      parallelDims.push_back(d);
      lbs.push_back(index(0));
      ubs.push_back(index(inputType.getDimSize(d)));
      steps.push_back(index(1));
    } else {
      reductionDims.push_back(d);
    }
  }
  Value fillValue = w.fill ? w.fill.getDpsInputOperand(0)->get() : Value();
  // One output row: per `width` outputs, the outer reduction loops (in the
  // scalar loop's order) combine the window rows into a vector accumulator;
  // the outputs past the last multiple of `width`, one step of their own.
  auto emitRow = [&](OpBuilder &rb, Location rl, ValueRange outer) {
    Value c0 = arith::ConstantIndexOp::create(rb, rl, 0);
    Value c1 = arith::ConstantIndexOp::create(rb, rl, 1);
    int64_t rowSize = inputType.getDimSize(loops - 2);
    int64_t remainder = rowSize % w.width;
    Value windowSize = arith::ConstantIndexOp::create(rb, rl, w.window);
    // `width` outputs from `column` on.
    auto emitStep = [&](OpBuilder &fb, Location fl, Value column,
                        int64_t width) {
      auto wide = VectorType::get({width * w.window}, element);
      auto narrow = VectorType::get({width}, element);
      SmallVector<Value> outAt(outer);
      outAt.push_back(column);
      Value acc;
      if (w.unsignedMax)
        acc = jeet::cpu::splatTo(
            fb, fl, arith::ConstantOp::create(fb, fl, fb.getZeroAttr(element)),
            width);
      else if (w.fill)
        acc = jeet::cpu::splatTo(fb, fl, fillValue, width);
      else
        acc = vector::LoadOp::create(fb, fl, narrow, output, outAt);
      Value first = arith::MulIOp::create(fb, fl, column, windowSize);
      // The loops over the outer reduction dimensions, recursively.
      std::function<Value(OpBuilder &, Location, SmallVector<Value>, size_t,
                          Value)>
          reduce = [&](OpBuilder &nb, Location nl, SmallVector<Value> ivs,
                       size_t next, Value current) -> Value {
        if (next == reductionDims.size()) {
          // ivs are the indices of every outer dimension, in order.
          SmallVector<Value> at(ivs);
          at.push_back(first);
          Value lanes =
              vector::LoadOp::create(nb, nl, wide, rows, at).getResult();
          for (int64_t k = 0; k < w.window; ++k) {
            SmallVector<int64_t> mask;
            for (int64_t i = 0; i < width; ++i)
              mask.push_back(k + i * w.window);
            Value part = vector::ShuffleOp::create(nb, nl, lanes, lanes, mask);
            if (w.unsignedMax) {
              auto bits = VectorType::get(
                  {width}, nb.getIntegerType(element.getIntOrFloatBitWidth()));
              Value currentBits =
                  arith::BitcastOp::create(nb, nl, bits, current);
              Value partBits = arith::BitcastOp::create(nb, nl, bits, part);
              Value larger =
                  arith::MaxUIOp::create(nb, nl, currentBits, partBits);
              current = arith::BitcastOp::create(nb, nl, narrow, larger);
              continue;
            }
            IRMapping mapping;
            mapping.map(op.getBlock()->getArgument(0), part);
            mapping.map(op.getBlock()->getArgument(1), current);
            Operation *combined = nb.clone(*w.combiner, mapping);
            combined->getResult(0).setType(narrow);
            current = combined->getResult(0);
          }
          return current;
        }
        int64_t dim = reductionDims[next];
        Value size =
            arith::ConstantIndexOp::create(nb, nl, inputType.getDimSize(dim));
        auto loop = scf::ForOp::create(
            nb, nl, c0, size, c1, ValueRange{current},
            [&](OpBuilder &lb, Location ll, Value iv, ValueRange args) {
              SmallVector<Value> inner(ivs);
              inner[dim] = iv;
              scf::YieldOp::create(lb, ll,
                                   reduce(lb, ll, inner, next + 1, args[0]));
            });
        return loop.getResult(0);
      };
      // Outer indices: the parallel ones given, the reduction ones
      // filled in by their loops.
      SmallVector<Value> ivs(loops - 2, c0);
      for (auto [dim, iv] : llvm::zip(parallelDims, outer))
        ivs[dim] = iv;
      Value result = reduce(fb, fl, ivs, 0, acc);
      if (w.epilogue)
        result = applyEpilogue(fb, fl, w.epilogue, result);
      vector::StoreOp::create(fb, fl, result, output, outAt);
    };
    Value mainEnd = arith::ConstantIndexOp::create(rb, rl, rowSize - remainder);
    Value step = arith::ConstantIndexOp::create(rb, rl, w.width);
    scf::ForOp::create(
        rb, rl, c0, mainEnd, step, ValueRange(),
        [&](OpBuilder &fb, Location fl, Value column, ValueRange) {
          emitStep(fb, fl, column, w.width);
          scf::YieldOp::create(fb, fl);
        });
    if (remainder > 0)
      emitStep(rb, rl, mainEnd, remainder);
  };
  if (parallelDims.empty()) {
    emitRow(b, loc, ValueRange());
  } else {
    scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                            [&](OpBuilder &pb, Location pl, ValueRange ivs) {
                              emitRow(pb, pl, ivs);
                            });
  }
  op.erase();
  if (w.fill)
    w.fill.erase();
  if (w.epilogue)
    w.epilogue.erase();
}

struct JeetCpuVectorizeWindowReductionsPass
    : public jeet::impl::JeetCpuVectorizeWindowReductionsPassBase<
          JeetCpuVectorizeWindowReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<WindowReduction> matched;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<WindowReduction> w = match(op))
        matched.push_back(*w);
    });
    for (WindowReduction &w : matched)
      rewrite(w);
  }
};

} // namespace
