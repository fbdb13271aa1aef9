//===- DataMovement.cpp - concat, slice, gather and pad as linalg ---------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The ops that move elements without arithmetic are each one parallel
// linalg.generic over the result that computes, in its body, which input
// element to read and reads it with tensor.extract: a slice at
// start + i * step; concat, gather and pad at indices clamped into each
// input, so that every read is in bounds, choosing with arith.select. Each
// result element is computed by one iteration, which the CPU and the GPU
// code generators parallelise like any other elementwise kernel.
//
//===----------------------------------------------------------------------===//

#include "DataMovement.h"

#include "jeet/Conversion/Passes.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace jeet;

namespace {

/// Builds index arithmetic in a loop body.
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value loop(int64_t dim) { return linalg::IndexOp::create(b, loc, dim); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value lessThan(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  /// `x` clamped into [0, size).
  Value clamp(Value x, int64_t size) {
    Value low = arith::MaxSIOp::create(b, loc, x, constant(0));
    return arith::MinSIOp::create(b, loc, low, constant(size - 1));
  }
  /// Whether 0 <= x < size.
  Value inRange(Value x, int64_t size) {
    Value notNegative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                              x, constant(0));
    return both(notNegative, lessThan(x, constant(size)));
  }
};

/// One parallel generic over `type` that reads `inputs` through `maps` (the
/// output's identity map is added) and yields what `body` builds.
Value emitParallel(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    ArrayRef<AffineMap> maps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = type.getRank();
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  // Nothing to compute (and no loop the GPU could distribute).
  if (type.getNumElements() == 0)
    return init;
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, inputs, init, allMaps, iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(nested, nestedLoc,
                                       body(nested, nestedLoc, args));
             })
      .getResult(0);
}

/// The loop indices of a body over `rank` loops.
SmallVector<Value> loopIndices(IndexMath &math, int64_t rank) {
  SmallVector<Value> indices;
  for (int64_t d = 0; d < rank; ++d)
    indices.push_back(math.loop(d));
  return indices;
}

} // namespace

Value jeet::emitSlice(OpBuilder &b, SliceOp op, Value input) {
  // The element `start + i * step` is read with tensor.extract rather than
  // through an affine map `d * step + start`: the GPU's tiling of a generic
  // assumes that its maps are projected permutations.
  RankedTensorType inputType = op.getInput().getType();
  RankedTensorType type = op.getType();
  return emitParallel(
      b, op.getLoc(), type, {}, {},
      [&](OpBuilder &body, Location loc, ValueRange) -> Value {
        IndexMath math{body, loc};
        SmallVector<Value> at;
        for (int64_t d = 0; d < inputType.getRank(); ++d) {
          int64_t step = op.getSteps()[d];
          SliceBounds bounds =
              getSliceBounds(inputType.getDimSize(d), op.getStarts()[d],
                             op.getStops()[d], step);
          Value offset = arith::MulIOp::create(body, loc, math.loop(d),
                                               math.constant(step));
          at.push_back(math.add(offset, math.constant(bounds.start)));
        }
        return tensor::ExtractOp::create(body, loc, input, at);
      });
}

Value jeet::emitSliceView(OpBuilder &b, SliceOp op, Value input,
                          RankedTensorType type) {
  RankedTensorType inputType = op.getInput().getType();
  SmallVector<int64_t> offsets, sizes, strides;
  for (int64_t d = 0; d < inputType.getRank(); ++d) {
    SliceBounds bounds =
        getSliceBounds(inputType.getDimSize(d), op.getStarts()[d],
                       op.getStops()[d], op.getSteps()[d]);
    offsets.push_back(bounds.start);
    sizes.push_back(bounds.count);
    strides.push_back(op.getSteps()[d]);
  }
  if (!type || type == op.getType())
    return tensor::ExtractSliceOp::create(
        b, op.getLoc(), op.getType(), input, ValueRange{}, ValueRange{},
        ValueRange{}, offsets, sizes, strides);
  // The slice's dimensions of size 1 dropped, then each of the others split
  // into the type's dimensions of the same product: each of the type's
  // dimensions joins the group of the slice's dimension it is part of, one
  // of size 1 the next group (the trailing ones the last group).
  Type element = op.getType().getElementType();
  SmallVector<int64_t> kept;
  llvm::copy_if(op.getType().getShape(), std::back_inserter(kept),
                [](int64_t d) { return d != 1; });
  auto reducedType = RankedTensorType::get(kept, element);
  Value reduced = tensor::ExtractSliceOp::create(
      b, op.getLoc(), reducedType, input, ValueRange{}, ValueRange{},
      ValueRange{}, offsets, sizes, strides);
  if (reducedType == type)
    return reduced;
  SmallVector<ReassociationIndices> groups(kept.size());
  size_t group = 0;
  int64_t product = 1;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    groups[group].push_back(d);
    product *= type.getDimSize(d);
    if (type.getDimSize(d) != 1 && product == kept[group] &&
        group + 1 < kept.size()) {
      ++group;
      product = 1;
    }
  }
  return tensor::ExpandShapeOp::create(b, op.getLoc(), type, reduced, groups);
}

Value jeet::emitConcat(OpBuilder &b, ConcatOp op, ValueRange inputs) {
  RankedTensorType type = op.getType();
  int64_t axis = op.getAxis();
  return emitParallel(
      b, op.getLoc(), type, {}, {},
      [&](OpBuilder &body, Location loc, ValueRange) -> Value {
        IndexMath math{body, loc};
        SmallVector<Value> indices = loopIndices(math, type.getRank());
        Value position = indices[axis];
        // The element of each non-empty input at the clamped position; the
        // last input whose offset is not past `position` gives the result.
        Value result;
        int64_t offset = 0;
        for (Value input : inputs) {
          int64_t size =
              cast<RankedTensorType>(input.getType()).getDimSize(axis);
          if (size == 0)
            continue;
          SmallVector<Value> at(indices);
          at[axis] =
              math.clamp(math.sub(position, math.constant(offset)), size);
          Value element = tensor::ExtractOp::create(body, loc, input, at);
          result = result ? arith::SelectOp::create(
                                body, loc,
                                math.lessThan(position, math.constant(offset)),
                                result, element)
                                .getResult()
                          : element;
          offset += size;
        }
        if (!result) // Every input is empty along the axis, so is the result.
          return arith::ConstantOp::create(
              body, loc, body.getZeroAttr(type.getElementType()));
        return result;
      });
}

Value jeet::emitConcatAsCopies(OpBuilder &b, ConcatOp op, ValueRange inputs) {
  RankedTensorType type = op.getType();
  int64_t axis = op.getAxis();
  Location loc = op.getLoc();
  Value result =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
  for (Value input : inputs) {
    auto inputType = cast<RankedTensorType>(input.getType());
    if (inputType.getNumElements() == 0)
      continue;
    result = tensor::InsertSliceOp::create(b, loc, input, result, ValueRange{},
                                           ValueRange{}, ValueRange{}, offsets,
                                           inputType.getShape(), strides);
    offsets[axis] += inputType.getDimSize(axis);
  }
  return result;
}

Value jeet::emitGather(OpBuilder &b, GatherOp op, Value data, Value indices) {
  RankedTensorType type = op.getType();
  RankedTensorType dataType = op.getData().getType();
  int64_t axis = op.getAxis();
  int64_t indexRank = op.getIndices().getType().getRank();
  int64_t size = dataType.getDimSize(axis);
  // The indices tensor is read at the loops of its dimensions.
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < indexRank; ++d)
    exprs.push_back(b.getAffineDimExpr(axis + d));
  AffineMap map = AffineMap::get(type.getRank(), 0, exprs, b.getContext());
  return emitParallel(
      b, op.getLoc(), type, indices, map,
      [&](OpBuilder &body, Location loc, ValueRange args) -> Value {
        IndexMath math{body, loc};
        if (size == 0) // No index to take: the result is empty.
          return arith::ConstantOp::create(
              body, loc, body.getZeroAttr(type.getElementType()));
        Value index =
            arith::IndexCastOp::create(body, loc, body.getIndexType(), args[0]);
        // [-n, 0) counts from the end; the rest is clamped into [0, n).
        Value wrapped = math.add(index, math.constant(size));
        index = arith::SelectOp::create(
            body, loc, math.lessThan(index, math.constant(0)), wrapped, index);
        SmallVector<Value> at;
        for (int64_t d = 0; d < axis; ++d)
          at.push_back(math.loop(d));
        at.push_back(math.clamp(index, size));
        for (int64_t d = axis + 1; d < dataType.getRank(); ++d)
          at.push_back(math.loop(d - 1 + indexRank));
        return tensor::ExtractOp::create(body, loc, data, at);
      });
}

/// A copy whose input map is affine in the loops (n, c, kh, kw, oh, ow):
/// input (n, c, oh * sh + kh * dh, ow * sw + kw * dw). With stride 1 along
/// W the innermost loop reads consecutive elements, which the CPU code
/// generator turns into vector loads; no index is loaded from memory.
Value jeet::emitIm2col(OpBuilder &b, Im2colOp op, Value input) {
  constexpr unsigned kN = 0, kC = 1, kKh = 2, kKw = 3, kOh = 4, kOw = 5;
  RankedTensorType type = op.getType();
  ArrayRef<int64_t> strides = op.getStrides(), dilations = op.getDilations();
  auto dim = [&](unsigned d) { return b.getAffineDimExpr(d); };
  AffineMap map = AffineMap::get(
      type.getRank(), 0,
      {dim(kN), dim(kC), dim(kOh) * strides[0] + dim(kKh) * dilations[0],
       dim(kOw) * strides[1] + dim(kKw) * dilations[1]},
      b.getContext());
  return emitParallel(
      b, op.getLoc(), type, input, map,
      [](OpBuilder &, Location, ValueRange args) -> Value { return args[0]; });
}

Value jeet::emitPad(OpBuilder &b, PadOp op, Value input, Value value) {
  RankedTensorType type = op.getType();
  RankedTensorType inputType = op.getInput().getType();
  Value padded = emitParallel(
      b, op.getLoc(), type, {}, {},
      [&](OpBuilder &body, Location loc, ValueRange) -> Value {
        IndexMath math{body, loc};
        // Read inside the loop, where the value's buffer is (on the GPU, in
        // device memory).
        Value padding = tensor::ExtractOp::create(body, loc, value);
        if (inputType.getNumElements() == 0)
          return padding;
        SmallVector<Value> at;
        Value inside;
        for (int64_t d = 0; d < type.getRank(); ++d) {
          int64_t size = inputType.getDimSize(d);
          Value j = math.sub(math.loop(d), math.constant(op.getLow()[d]));
          Value inRange = math.inRange(j, size);
          inside = inside ? math.both(inside, inRange) : inRange;
          at.push_back(math.clamp(j, size));
        }
        Value element = tensor::ExtractOp::create(body, loc, input, at);
        if (!inside) // A 0-d input.
          return element;
        return arith::SelectOp::create(body, loc, inside, element, padding);
      });
  // Where the code generator copies the interior instead (kPadLowAttr).
  if (auto generic = padded.getDefiningOp<linalg::GenericOp>())
    generic->setAttr(kPadLowAttr, b.getDenseI64ArrayAttr(op.getLow()));
  return padded;
}
