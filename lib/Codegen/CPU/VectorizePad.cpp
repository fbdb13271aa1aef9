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

#include "VectorizeUtils.h"

#include "jeet/Codegen/CPU/Passes.h"
#include "jeet/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUVECTORIZEPADPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using jeet::cpu::matchPad;
using jeet::cpu::PadOperands;

namespace {

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
