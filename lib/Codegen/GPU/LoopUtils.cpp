//===- LoopUtils.cpp - Loop and indexing helpers for GPU kernels ----------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The small builders that the GPU passes and strategies share: the block
// mapping of a kernel's forall, trip counts, linearized iterations and their
// delinearization into loop indices, indexing maps applied to loop indices,
// and a linalg op's payload emitted at given loop indices.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;

namespace jeet::gpu_codegen {

ArrayAttr blockMapping(MLIRContext *context, unsigned numDims) {
  SmallVector<Attribute> mapping;
  for (unsigned i = 0; i < numDims; ++i)
    mapping.push_back(gpu::GPUBlockMappingAttr::get(
        context, static_cast<gpu::MappingId>(
                     static_cast<uint64_t>(gpu::MappingId::LinearDim0) + i)));
  return ArrayAttr::get(context, mapping);
}

/// ceil((ub - lb) / step) for each dimension.
SmallVector<Value> tripCounts(OpBuilder &b, Location loc,
                              ArrayRef<OpFoldResult> lbs,
                              ArrayRef<OpFoldResult> ubs,
                              ArrayRef<OpFoldResult> steps) {
  SmallVector<Value> counts;
  for (auto [lb, ub, step] : llvm::zip_equal(lbs, ubs, steps)) {
    std::optional<int64_t> lbConst = getConstantIntValue(lb);
    std::optional<int64_t> ubConst = getConstantIntValue(ub);
    std::optional<int64_t> stepConst = getConstantIntValue(step);
    if (lbConst && ubConst && stepConst) {
      counts.push_back(arith::ConstantIndexOp::create(
          b, loc, llvm::divideCeil(*ubConst - *lbConst, *stepConst)));
      continue;
    }
    Value l = getValueOrCreateConstantIndexOp(b, loc, lb);
    Value u = getValueOrCreateConstantIndexOp(b, loc, ub);
    Value s = getValueOrCreateConstantIndexOp(b, loc, step);
    Value extent = arith::SubIOp::create(b, loc, u, l);
    counts.push_back(arith::CeilDivUIOp::create(b, loc, extent, s));
  }
  return counts;
}

std::optional<int64_t> getConstantSizeBound(OpFoldResult size) {
  if (std::optional<int64_t> constant = getConstantIntValue(size))
    return constant;
  FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(size),
      /*stopCondition=*/nullptr, /*closedUB=*/true);
  if (failed(bound))
    return std::nullopt;
  return *bound;
}

Value product(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value result = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value value : values)
    result = b.createOrFold<arith::MulIOp>(loc, result, value);
  return result;
}

/// The induction variables lb + index * step of the linear iteration
/// `linear` of a loop nest with `counts` iterations per dimension.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<Value> counts,
                               ArrayRef<OpFoldResult> lbs,
                               ArrayRef<OpFoldResult> steps) {
  SmallVector<Value> indices;
  if (counts.size() == 1)
    indices.push_back(linear);
  else
    llvm::append_range(indices, affine::AffineDelinearizeIndexOp::create(
                                    b, loc, linear, counts, true)
                                    .getResults());
  SmallVector<Value> ivs;
  for (auto [index, lb, step] : llvm::zip_equal(indices, lbs, steps)) {
    Value s = getValueOrCreateConstantIndexOp(b, loc, step);
    Value l = getValueOrCreateConstantIndexOp(b, loc, lb);
    ivs.push_back(b.createOrFold<arith::AddIOp>(
        loc, l, b.createOrFold<arith::MulIOp>(loc, index, s)));
  }
  return ivs;
}

/// The indices that `map` gives for the loop indices `ivs`.
SmallVector<Value> applyIndexingMap(OpBuilder &b, Location loc, AffineMap map,
                                    ArrayRef<Value> ivs) {
  SmallVector<OpFoldResult> operands = getAsOpFoldResult(ivs);
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults())
    indices.push_back(getValueOrCreateConstantIndexOp(
        b, loc,
        affine::makeComposedFoldedAffineApply(
            b, loc, AffineMap::get(map.getNumDims(), 0, expr), operands)));
  return indices;
}

/// Emits the payload of `op` at loop indices `ivs`, reading its inputs from
/// memory and its outputs from `outs`; returns the yielded values.
/// Inputs equal to `replaced` (when given) read `replacement` instead.
SmallVector<Value> emitPayload(OpBuilder &b, Location loc, linalg::LinalgOp op,
                               ArrayRef<Value> ivs, ValueRange outs,
                               Value replaced, Value replacement) {
  IRMapping mapping;
  Block *block = op.getBlock();
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(input);
    Value value = input->get();
    if (replaced && value == replaced)
      value = replacement;
    else if (isa<MemRefType>(value.getType()))
      value = memref::LoadOp::create(
          b, loc, value,
          applyIndexingMap(b, loc, op.getMatchingIndexingMap(input), ivs));
    mapping.map(arg, value);
  }
  for (auto [init, out] : llvm::zip_equal(op.getDpsInitsMutable(), outs))
    mapping.map(op.getMatchingBlockArgument(&init), out);
  for (Operation &payload : block->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(payload)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(payload, mapping);
  }
  SmallVector<Value> results;
  for (Value yielded : block->getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(yielded));
  return results;
}

} // namespace jeet::gpu_codegen
