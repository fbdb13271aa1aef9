//===- VectorAccess.cpp - 16-byte accesses of elementwise kernels ---------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// An elementwise op whose buffers allow it reads and writes kVectorBytes per
// thread and access (`ld.global.v4.f32`, `st.global.v4.b32` of halves)
// instead of one element: each buffer that the innermost loop indexes as its
// innermost, unit-stride dimension is accessed with an aligned
// `vector.load`/`vector.store`, and the payload runs once per element.
//
// Whether the first element of each vector is 16-byte aligned is proven by a
// small divisor analysis (knownDivisor, knownOffsetDivisor): a number that
// provably divides a loop size, an index or a view's element offset, from
// constants, sums, products, affine maps and subviews of 256-byte aligned
// allocations, and of workgroup attributions (shared memory: the staged rows
// of a multi-reduction kernel), which jeet-gpu-align-workgroup-memory aligns
// to 16 bytes.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include <numeric>

using namespace mlir;

namespace jeet::gpu_codegen {

/// Known divisors are kept as divisors of this power of two, so that they
/// stay small (a divisor of a known divisor is a known divisor too).
static constexpr int64_t kDivisorCap = int64_t(1) << 20;

/// How deep the divisor analysis follows the definitions of a value: index
/// computations of a kernel are a few ops deep; the bound keeps the
/// recursion finite on long chains, where it answers 1 (nothing known).
static constexpr unsigned kMaxDivisorDepth = 16;

static int64_t capDivisor(int64_t divisor) {
  return std::gcd(divisor, kDivisorCap);
}

static int64_t knownDivisor(Value value, unsigned depth = 0);

static int64_t knownDivisor(OpFoldResult ofr, unsigned depth = 0) {
  if (std::optional<int64_t> constant = getConstantIntValue(ofr))
    return capDivisor(std::abs(*constant));
  return knownDivisor(cast<Value>(ofr), depth);
}

/// A divisor of `expr` whose dims and symbols are `operands`.
static int64_t knownDivisor(AffineExpr expr, ValueRange operands,
                            unsigned numDims, unsigned depth) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return capDivisor(std::abs(constant.getValue()));
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return knownDivisor(operands[dim.getPosition()], depth + 1);
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return knownDivisor(operands[numDims + symbol.getPosition()], depth + 1);
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t lhs = knownDivisor(binary.getLHS(), operands, numDims, depth);
  int64_t rhs = knownDivisor(binary.getRHS(), operands, numDims, depth);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return std::gcd(lhs, rhs);
  case AffineExprKind::Mul:
    return capDivisor(lhs * rhs);
  case AffineExprKind::Mod:
    // x mod c = x - c * floor(x / c).
    return std::gcd(lhs, rhs);
  default:
    return 1;
  }
}

/// A number that provably divides the index `value` (1 when nothing is
/// known): constants, sums, products and affine maps of known values.
static int64_t knownDivisor(Value value, unsigned depth) {
  if (depth > kMaxDivisorDepth)
    return 1;
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return capDivisor(std::abs(*constant));
  Operation *def = value.getDefiningOp();
  if (!def)
    return 1;
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::gcd(knownDivisor(def->getOperand(0), depth + 1),
                    knownDivisor(def->getOperand(1), depth + 1));
  if (isa<arith::MulIOp>(def))
    return capDivisor(knownDivisor(def->getOperand(0), depth + 1) *
                      knownDivisor(def->getOperand(1), depth + 1));
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def))
    return knownDivisor(apply.getAffineMap().getResult(0),
                        apply.getMapOperands(),
                        apply.getAffineMap().getNumDims(), depth);
  auto divisorOfResults = [&](AffineMap map, ValueRange operands) {
    int64_t divisor = 0;
    for (AffineExpr expr : map.getResults())
      divisor = std::gcd(divisor,
                         knownDivisor(expr, operands, map.getNumDims(), depth));
    return divisor ? divisor : int64_t(1);
  };
  if (auto min = dyn_cast<affine::AffineMinOp>(def))
    return divisorOfResults(min.getAffineMap(), min.getMapOperands());
  if (auto max = dyn_cast<affine::AffineMaxOp>(def))
    return divisorOfResults(max.getAffineMap(), max.getMapOperands());
  if (auto dim = dyn_cast<memref::DimOp>(def)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    auto subview = dim.getSource().getDefiningOp<memref::SubViewOp>();
    if (index && subview &&
        subview.getSourceType().getRank() == subview.getType().getRank())
      return knownDivisor(subview.getMixedSizes()[*index], depth + 1);
  }
  return 1;
}

/// Whether `value` is a workgroup attribution of a `gpu.launch`: shared
/// memory that jeet-gpu-align-workgroup-memory aligns to kVectorBytes once the
/// kernel is outlined.
static bool isWorkgroupAttribution(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return false;
  auto launch = dyn_cast<gpu::LaunchOp>(arg.getOwner()->getParentOp());
  return launch && &launch.getBody().front() == arg.getOwner() &&
         llvm::is_contained(launch.getWorkgroupAttributions(), arg);
}

/// A number that provably divides the element offset of the buffer view
/// `memref` from a base aligned to kVectorBytes or more (an argument of the
/// function or a host allocation, 256-byte aligned; a workgroup attribution,
/// 16-byte aligned), or 1 when its base is not known to be one.
static int64_t knownOffsetDivisor(Value memref, unsigned depth = 0) {
  if (depth > kMaxDivisorDepth)
    return 1;
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type)
    return 1;
  auto typeOffset = [&]() -> int64_t {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset))
      return 1;
    return capDivisor(offset);
  };
  if (auto arg = dyn_cast<BlockArgument>(memref))
    return isa<func::FuncOp>(arg.getOwner()->getParentOp()) ||
                   isWorkgroupAttribution(arg)
               ? typeOffset()
               : 1;
  Operation *def = memref.getDefiningOp();
  if (isa<memref::AllocOp, gpu::AllocOp>(def))
    return typeOffset();
  // Views that keep their source's offset.
  if (isa<memref::CastOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
          memref::MemorySpaceCastOp>(def))
    return knownOffsetDivisor(def->getOperand(0), depth + 1);
  // A view of a workgroup attribution with its own shape (WorkgroupMemory.cpp):
  // its offset is from the attribution's first element.
  if (auto view = dyn_cast<memref::ReinterpretCastOp>(def)) {
    if (!isWorkgroupAttribution(view.getSource()))
      return 1;
    return knownDivisor(view.getMixedOffsets().front(), depth + 1);
  }
  if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(subview.getSourceType().getStridesAndOffset(strides, offset)))
      return 1;
    int64_t divisor = knownOffsetDivisor(subview.getSource(), depth + 1);
    for (auto [stride, sliceOffset] :
         llvm::zip_equal(strides, subview.getMixedOffsets())) {
      if (ShapedType::isDynamic(stride))
        return 1;
      divisor = std::gcd(divisor, capDivisor(knownDivisor(sliceOffset) *
                                             capDivisor(std::abs(stride))));
    }
    return divisor ? divisor : kDivisorCap;
  }
  return 1;
}

/// The number of elements per access (kVectorBytes) with which `operands` of
/// `op` (on buffers) can be read or written along its loop `dim` of size
/// `size`, with the access of each, or nullopt: each is indexed by `dim` as
/// its innermost, unit-stride dimension (a vector, whose first element is
/// then 16-byte aligned: the other strides and the view's offset are
/// multiples of the vector) or not at all (a broadcast: a scalar, or a
/// buffer read once per vector; never an output); the vectors have elements
/// of 16 or 32 bits, and `size` is a multiple of the vector. A vector is
/// kVectorBytes of the widest element: 4 floats, and 4 halves (8 bytes)
/// beside them, or 8 halves where all are halves.
std::optional<int64_t>
getVectorWidthAlong(linalg::LinalgOp op, ArrayRef<OpOperand *> operands,
                    unsigned dim, Value size,
                    SmallVectorImpl<VectorAccess> &accesses) {
  AffineExpr dimExpr = getAffineDimExpr(dim, op.getContext());
  int64_t bitWidth = 0;
  accesses.clear();
  for (OpOperand *operand : operands) {
    auto type = dyn_cast<MemRefType>(operand->get().getType());
    if (!type) {
      if (op.isDpsInit(operand))
        return std::nullopt;
      accesses.push_back(VectorAccess::Broadcast);
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!map.isProjectedPermutation())
      return std::nullopt;
    if (!map.isFunctionOfDim(dim)) {
      if (op.isDpsInit(operand))
        return std::nullopt;
      accesses.push_back(VectorAccess::Broadcast);
      continue;
    }
    if (map.getResults().back() != dimExpr)
      return std::nullopt;
    Type elementType = type.getElementType();
    if (!elementType.isIntOrFloat())
      return std::nullopt;
    // Halves and words, which one access moves as four 32-bit words
    // (`.v4.f32`, `.v4.b32`) or, for 4 halves, two.
    int64_t width = elementType.getIntOrFloatBitWidth();
    if (width != 16 && width != 32)
      return std::nullopt;
    bitWidth = std::max(bitWidth, width);
    accesses.push_back(VectorAccess::Vector);
  }
  if (!bitWidth)
    return std::nullopt;
  int64_t numElements = kVectorBytes * 8 / bitWidth;
  if (knownDivisor(size) % numElements != 0)
    return std::nullopt;
  for (auto [operand, access] : llvm::zip_equal(operands, accesses)) {
    if (access != VectorAccess::Vector)
      continue;
    auto type = cast<MemRefType>(operand->get().getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return std::nullopt;
    for (auto [size, stride] : llvm::zip_equal(type.getShape().drop_back(),
                                               ArrayRef(strides).drop_back()))
      if (size != 1 &&
          (ShapedType::isDynamic(stride) || stride % numElements != 0))
        return std::nullopt;
    if (knownOffsetDivisor(operand->get()) % numElements != 0)
      return std::nullopt;
  }
  return numElements;
}

/// The number of elements per thread and per access (kVectorBytes) with which
/// the elementwise op `op` (on buffers, loop sizes `sizes`) can be
/// vectorised along its innermost loop (every operand, see
/// getVectorWidthAlong), or nullopt.
std::optional<int64_t> getVectorWidth(linalg::LinalgOp op,
                                      ArrayRef<Value> sizes,
                                      SmallVectorImpl<VectorAccess> &accesses) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops == 0 || op.getNumReductionLoops() != 0 ||
      !op.hasPureBufferSemantics())
    return std::nullopt;
  SmallVector<OpOperand *> operands;
  for (OpOperand &operand : op->getOpOperands())
    operands.push_back(&operand);
  return getVectorWidthAlong(op, operands, numLoops - 1, sizes.back(),
                             accesses);
}

/// Emits the payload of the elementwise `op` for the `numElements`
/// consecutive elements of its innermost loop from loop indices `ivs` (the
/// first one, a multiple of `numElements`): each buffer of a vector access
/// is read or written with one aligned `vector.load`/`vector.store`,
/// each broadcast once, and the payload runs once per element.
void emitVectorPayload(OpBuilder &b, Location loc, linalg::LinalgOp op,
                       ArrayRef<Value> ivs, int64_t numElements,
                       ArrayRef<VectorAccess> accesses) {
  unsigned last = op.getNumLoops() - 1;
  // What each operand holds for the vector: a vector, or one value.
  SmallVector<Value> values;
  for (auto [operand, access] :
       llvm::zip_equal(op->getOpOperands(), accesses)) {
    Value value = operand.get();
    auto type = dyn_cast<MemRefType>(value.getType());
    bool isInit = op.isDpsInit(&operand);
    if (isInit && !op.payloadUsesValueFromOperand(&operand)) {
      values.push_back(ub::PoisonOp::create(b, loc, type.getElementType()));
      continue;
    }
    if (!type) {
      values.push_back(value);
      continue;
    }
    SmallVector<Value> indices =
        applyIndexingMap(b, loc, op.getMatchingIndexingMap(&operand), ivs);
    if (access == VectorAccess::Broadcast) {
      values.push_back(memref::LoadOp::create(b, loc, value, indices));
      continue;
    }
    auto vectorType = VectorType::get({numElements}, type.getElementType());
    values.push_back(vector::LoadOp::create(
        b, loc, vectorType, value, indices, /*nontemporal=*/false,
        getVectorAlignment(type.getElementType(), numElements)));
  }
  bool usesIndex = !op.getBlock()->getOps<linalg::IndexOp>().empty();
  SmallVector<SmallVector<Value>> laneResults;
  for (int64_t lane = 0; lane < numElements; ++lane) {
    IRMapping mapping;
    for (auto [operand, access, value] :
         llvm::zip_equal(op->getOpOperands(), accesses, values)) {
      Value laneValue = value;
      if (isa<VectorType>(value.getType()))
        laneValue = vector::ExtractOp::create(b, loc, value, lane);
      mapping.map(op.getMatchingBlockArgument(&operand), laneValue);
    }
    SmallVector<Value> laneIvs(ivs);
    if (usesIndex)
      laneIvs[last] = b.createOrFold<arith::AddIOp>(
          loc, ivs[last], arith::ConstantIndexOp::create(b, loc, lane));
    for (Operation &payload : op.getBlock()->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(payload)) {
        mapping.map(index.getResult(), laneIvs[index.getDim()]);
        continue;
      }
      b.clone(payload, mapping);
    }
    SmallVector<Value> results;
    for (Value yielded : op.getBlock()->getTerminator()->getOperands())
      results.push_back(mapping.lookupOrDefault(yielded));
    laneResults.push_back(std::move(results));
  }
  for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    SmallVector<Value> elements;
    for (ArrayRef<Value> results : laneResults)
      elements.push_back(results[i]);
    auto type = cast<MemRefType>(init.get().getType());
    auto vectorType = VectorType::get({numElements}, type.getElementType());
    Value vector = vector::FromElementsOp::create(b, loc, vectorType, elements);
    SmallVector<Value> indices =
        applyIndexingMap(b, loc, op.getMatchingIndexingMap(&init), ivs);
    vector::StoreOp::create(
        b, loc, vector, init.get(), indices, /*nontemporal=*/false,
        getVectorAlignment(type.getElementType(), numElements));
  }
}

} // namespace jeet::gpu_codegen
