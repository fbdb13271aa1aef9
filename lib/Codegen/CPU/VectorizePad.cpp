//===- VectorizePad.cpp - A pad as a fill and a copy ----------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-vectorize-pad: the generic of a jeet.pad (marked kPadLowAttr)
// computes every result element with clamped indices and a select, which
// stays scalar. As a fill of the padding value followed by a copy of the
// input into the interior, both are plain elementwise generics that
// jeet-cpu-vectorize-elementwise turns into parallel vector loops.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"
#include "jeet/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUVECTORIZEPADPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// What the generic of a pad reads: its input buffer and its padding value
/// (a scalar defined outside the body, or a load of a 0-d buffer).
struct PadOperands {
  Value input;
  Value padding;
  /// The 0-d buffer the padding value is loaded from, when it is one.
  Value paddingBuffer;
};

/// A value of `op`'s body that is computed outside it.
static bool isDefinedOutside(Value value, linalg::GenericOp op) {
  return !op.getRegion().isAncestor(value.getParentRegion());
}

/// The input and padding value of a marked pad generic whose body yields
/// `select(inside, load(input, ...), padding)`, or nothing when it is
/// another shape (an epilogue in the same loop nest) or not on buffers.
static std::optional<PadOperands> matchPad(linalg::GenericOp op) {
  auto low = op->getAttrOfType<DenseI64ArrayAttr>(jeet::kPadLowAttr);
  if (!low || !op.hasPureBufferSemantics() || op.getNumDpsInputs() != 0 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  auto output = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  auto select = yield.getValues()[0].getDefiningOp<arith::SelectOp>();
  if (!output || !output.hasStaticShape() || low.size() != output.getRank() ||
      !select)
    return std::nullopt;
  auto load = select.getTrueValue().getDefiningOp<memref::LoadOp>();
  if (!load || !isDefinedOutside(load.getMemRef(), op))
    return std::nullopt;
  auto inputType = cast<MemRefType>(load.getMemRef().getType());
  if (!inputType.hasStaticShape() || inputType.getRank() != output.getRank())
    return std::nullopt;
  for (int64_t d = 0; d < output.getRank(); ++d)
    if (low[d] < 0 || low[d] + inputType.getDimSize(d) > output.getDimSize(d))
      return std::nullopt;
  PadOperands pad{load.getMemRef(), select.getFalseValue(), Value()};
  if (isDefinedOutside(pad.padding, op))
    return pad;
  auto paddingLoad = pad.padding.getDefiningOp<memref::LoadOp>();
  if (!paddingLoad || !paddingLoad.getIndices().empty() ||
      !isDefinedOutside(paddingLoad.getMemRef(), op))
    return std::nullopt;
  pad.paddingBuffer = paddingLoad.getMemRef();
  return pad;
}

/// A generic of identity maps and parallel loops over `output` that yields
/// what `body` returns of the block arguments.
static void emitElementwise(OpBuilder &b, Location loc, ValueRange inputs,
                            Value output,
                            function_ref<Value(ValueRange)> body) {
  int64_t rank = cast<MemRefType>(output.getType()).getRank();
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  linalg::GenericOp::create(
      b, loc, TypeRange(), inputs, output, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc, body(args));
      });
}

/// Replaces the pad generic `op` by a fill of its output with the padding
/// value and a copy of the input into the output's interior.
static void rewritePad(linalg::GenericOp op, const PadOperands &pad) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value output = op.getDpsInits()[0];
  Value padding = pad.padding;
  if (pad.paddingBuffer)
    padding = memref::LoadOp::create(b, loc, pad.paddingBuffer, ValueRange());
  emitElementwise(b, loc, {}, output, [&](ValueRange) { return padding; });
  auto inputType = cast<MemRefType>(pad.input.getType());
  if (inputType.getNumElements() != 0) {
    ArrayRef<int64_t> low =
        op->getAttrOfType<DenseI64ArrayAttr>(jeet::kPadLowAttr).asArrayRef();
    SmallVector<int64_t> strides(inputType.getRank(), 1);
    Value interior = memref::SubViewOp::create(b, loc, output, low,
                                               inputType.getShape(), strides);
    emitElementwise(b, loc, pad.input, interior,
                    [](ValueRange args) { return args[0]; });
  }
  op.erase();
}

struct JeetCpuVectorizePadPass
    : public jeet::impl::JeetCpuVectorizePadPassBase<JeetCpuVectorizePadPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, PadOperands>> pads;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<PadOperands> pad = matchPad(op))
        pads.emplace_back(op, *pad);
    });
    for (auto &[op, pad] : pads)
      rewritePad(op, pad);
  }
};

} // namespace
