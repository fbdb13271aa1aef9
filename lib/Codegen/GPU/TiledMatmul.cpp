//===- TiledMatmul.cpp - Register-tiled matmuls in workgroup memory -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A matmul tile (a contraction with one K dimension, after the fill of its
// accumulator, an output tile of at most kTileM x kTileN) is computed by a
// block of kMatmulThreads threads, each with a kRegM x kRegN register tile:
//
//   for each batch (and outer M, N) index:            the batch loop
//     for k0 in 0..K step kTileK:                     the K-tile loop
//       stage A[0:kTileM, k0:k0+kTileK] and            staging: coalesced,
//             B[k0:k0+kTileK, 0:kTileN] in workgroup   clamped loads, zero
//             memory; gpu.barrier                      outside the operands
//       acc[i][j] += A[ty + kThreadsM i][kk] *         the register tile
//                    B[kk][kRegN tx + j]; barrier        (B's row by vectors)
//     store acc in bounds, through the epilogue        the epilogue
//
// f16/bf16 operands accumulate in f32. The elementwise op that is the only
// reader of a temporary accumulator (the epilogue) is applied to the register
// tile before the store, and the accumulator buffer disappears.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;

namespace jeet::gpu_codegen {

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

bool isContraction(Operation *op) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
         linalg::isaContractionOpInterface(linalgOp);
}

/// Whether dimension `dim` of the loops of `op` is at most `limit`, read on
/// the operand `value` whose indexing map is `map`.
static bool isBoundedBy(Value value, AffineMap map, unsigned dim,
                        int64_t limit) {
  std::optional<unsigned> pos =
      map.getResultPosition(getAffineDimExpr(dim, map.getContext()));
  if (!pos)
    return false;
  FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB,
      ValueBoundsConstraintSet::Variable(value, *pos),
      /*stopCondition=*/nullptr, /*closedUB=*/true);
  return succeeded(ub) && *ub <= limit;
}

/// The plan for `op` when it is a matmul that one block can compute with
/// register tiles: one M, N and K dimension (any batch dimensions), an
/// output tile of at most kTileM x kTileN, a fill of its accumulator before
/// it, and multiply-add of floats (accumulated in f32 at least) or of one
/// integer type.
std::optional<TiledMatmul> planTiledMatmul(linalg::LinalgOp op) {
  if (!isContraction(op) || !op.hasPureBufferSemantics() ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() || dims->k.size() != 1)
    return std::nullopt;
  OpOperand &init = op.getDpsInitsMutable()[0];
  Value acc = init.get();
  Type aType = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type bType = getElementTypeOrSelf(op.getDpsInputs()[1].getType());
  Type cType = getElementTypeOrSelf(acc.getType());
  TiledMatmul plan;
  plan.matmul = op;
  plan.mDim = dims->m.back();
  plan.nDim = dims->n.back();
  plan.kDim = dims->k.front();
  llvm::append_range(plan.outerDims, dims->batch);
  llvm::append_range(plan.outerDims, ArrayRef(dims->m).drop_back());
  llvm::append_range(plan.outerDims, ArrayRef(dims->n).drop_back());
  if (isa<FloatType>(aType) && isa<FloatType>(bType) && isa<FloatType>(cType)) {
    plan.accType = cType.getIntOrFloatBitWidth() < 32
                       ? Float32Type::get(op.getContext())
                       : cType;
    unsigned width = plan.accType.getIntOrFloatBitWidth();
    if (aType.getIntOrFloatBitWidth() > width ||
        bType.getIntOrFloatBitWidth() > width)
      return std::nullopt;
  } else if (isa<IntegerType>(cType) && aType == cType && bType == cType) {
    plan.accType = cType;
  } else {
    return std::nullopt;
  }
  AffineMap accMap = op.getMatchingIndexingMap(&init);
  if (!isBoundedBy(acc, accMap, plan.mDim, kTileM) ||
      !isBoundedBy(acc, accMap, plan.nDim, kTileN))
    return std::nullopt;

  // The fill of the accumulator: the last linalg op before the matmul.
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (!isa<linalg::LinalgOp>(prev))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.getOutputs().front() == acc)
      plan.fill = fill;
    break;
  }
  if (!plan.fill)
    return std::nullopt;

  // The epilogue: the next linalg op, elementwise, the only other reader of
  // a temporary accumulator, which it reads through a permutation.
  linalg::GenericOp epilogue;
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    if (!isa<linalg::LinalgOp>(next))
      continue;
    epilogue = dyn_cast<linalg::GenericOp>(next);
    break;
  }
  if (!epilogue || !acc.getDefiningOp<memref::AllocOp>() ||
      !epilogue.hasPureBufferSemantics() ||
      epilogue.getNumParallelLoops() != epilogue.getNumLoops())
    return plan;
  for (Operation *user : acc.getUsers())
    if (user != op && user != plan.fill && user != epilogue &&
        !isa<memref::DeallocOp>(user))
      return plan;
  for (Value out : epilogue.getDpsInits())
    if (out == acc)
      return plan;
  AffineMap readMap;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    if (input->get() != acc)
      continue;
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    if (!map.isPermutation() || (readMap && map != readMap))
      return plan;
    readMap = map;
  }
  if (readMap)
    plan.epilogue = epilogue;
  return plan;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

namespace {
/// Emits one plan's register-tiled matmul, phase by phase; holds what the
/// phases share (the loop sizes, the thread's coordinates, the workgroup
/// tiles).
class TiledMatmulEmitter {
public:
  TiledMatmulEmitter(RewriterBase &rewriter, gpu::LaunchOp launch,
                     const TiledMatmul &plan)
      : rewriter(rewriter), launch(launch), plan(plan), op(plan.matmul),
        loc(op.getLoc()), accType(plan.accType) {}

  /// Emits the matmul in place of the plan's ops, which it erases. Returns
  /// the op that holds the loops.
  Operation *emit();

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  }
  Value toAcc(Value value) {
    if (value.getType() == accType)
      return value;
    return arith::ExtFOp::create(rewriter, loc, accType, value);
  }
  Value lessThan(Value lhs, Value rhs) {
    return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, lhs,
                                 rhs);
  }
  Value clamp(Value value, Value last) {
    return arith::MinUIOp::create(rewriter, loc, value, last);
  }

  void addWorkgroupTiles();
  void emitThreadCoordinates();
  scf::ForOp emitBatchLoop();
  scf::ForOp emitKTileLoop();
  void stage(OpOperand *operand, Value tile, Value row, Value col, Value m,
             Value n, Value k);
  void emitStaging(Value k0);
  void emitRegisterTile(SmallVectorImpl<Value> &acc);
  void emitStores(scf::ForOp kLoop);
  void emitEpilogue(Value value, ArrayRef<Value> accIndices);
  void eraseReplacedOps();

  RewriterBase &rewriter;
  gpu::LaunchOp launch;
  /// A copy: op handles are used through non-const methods.
  TiledMatmul plan;
  linalg::LinalgOp op;
  Location loc;
  Type accType;
  /// The K-tiles of A and B in workgroup memory.
  Value tileA, tileB;
  /// The loop sizes of the matmul, and the last index of M, N and K.
  SmallVector<Value> sizes;
  Value zero, one;
  Value sizeM, sizeN, sizeK, lastM, lastN, lastK;
  /// The thread's coordinates: (ty, tx) in the kThreadsM x kThreadsN grid of
  /// register tiles, (by, bx) in the rows of kTileN threads that stage B.
  Value ty, tx, by, bx;
  /// The rows and columns of the thread's register tile.
  SmallVector<Value> rows, cols;
  Value accZero, initValue;
  /// The loop indices of the current batch; M, N and K at zero.
  SmallVector<Value> ivs;
};
} // namespace

/// The kTileM x kTileK tile of A and the kTileK x kTileN tile of B, in the
/// accumulator's type.
void TiledMatmulEmitter::addWorkgroupTiles() {
  auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                              gpu::AddressSpace::Workgroup);
  tileA = launch.addWorkgroupAttribution(
      MemRefType::get({kTileM, kTileK}, accType, MemRefLayoutAttrInterface(),
                      workgroup),
      loc);
  tileB = launch.addWorkgroupAttribution(
      MemRefType::get({kTileK, kTileN}, accType, MemRefLayoutAttrInterface(),
                      workgroup),
      loc);
}

/// The sizes of the loops, the thread's coordinates and the rows and columns
/// of its register tile, and the accumulator's initial value.
void TiledMatmulEmitter::emitThreadCoordinates() {
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  zero = index(0);
  one = index(1);
  sizeM = sizes[plan.mDim];
  sizeN = sizes[plan.nDim];
  sizeK = sizes[plan.kDim];
  lastM = arith::SubIOp::create(rewriter, loc, sizeM, one);
  lastN = arith::SubIOp::create(rewriter, loc, sizeN, one);
  lastK = arith::SubIOp::create(rewriter, loc, sizeK, one);

  Value thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  ty = arith::DivUIOp::create(rewriter, loc, thread, index(kThreadsN));
  tx = arith::RemUIOp::create(rewriter, loc, thread, index(kThreadsN));
  by = arith::DivUIOp::create(rewriter, loc, thread, index(kTileN));
  bx = arith::RemUIOp::create(rewriter, loc, thread, index(kTileN));
  for (int64_t i = 0; i < kRegM; ++i)
    rows.push_back(
        arith::AddIOp::create(rewriter, loc, ty, index(i * kThreadsM)));
  Value firstCol = arith::MulIOp::create(rewriter, loc, tx, index(kRegN));
  for (int64_t j = 0; j < kRegN; ++j)
    cols.push_back(arith::AddIOp::create(rewriter, loc, firstCol, index(j)));

  accZero = arith::ConstantOp::create(rewriter, loc, accType,
                                      rewriter.getZeroAttr(accType));
  initValue = toAcc(plan.fill.getInputs().front());
}

/// The loop over the batch (and outer M and N) dimensions, linearized; sets
/// `ivs` to its indices and the insertion point into its body.
scf::ForOp TiledMatmulEmitter::emitBatchLoop() {
  SmallVector<Value> batchSizes;
  for (unsigned dim : plan.outerDims)
    batchSizes.push_back(sizes[dim]);
  Value batchCount = product(rewriter, loc, batchSizes);
  auto batchLoop = scf::ForOp::create(rewriter, loc, zero, batchCount, one);
  rewriter.setInsertionPoint(batchLoop.getBody()->getTerminator());
  ivs.assign(sizes.size(), zero);
  if (!batchSizes.empty()) {
    SmallVector<OpFoldResult> zeros(batchSizes.size(),
                                    rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(batchSizes.size(), rewriter.getIndexAttr(1));
    SmallVector<Value> batchIvs = delinearize(
        rewriter, loc, batchLoop.getInductionVar(), batchSizes, zeros, ones);
    for (auto [dim, iv] : llvm::zip_equal(plan.outerDims, batchIvs))
      ivs[dim] = iv;
  }
  return batchLoop;
}

/// Stages element (row, col) of `tile` from `operand` at (m, n, k), zero
/// outside the operand (the load itself is clamped into it).
void TiledMatmulEmitter::stage(OpOperand *operand, Value tile, Value row,
                               Value col, Value m, Value n, Value k) {
  Value inBounds = arith::AndIOp::create(
      rewriter, loc,
      arith::AndIOp::create(rewriter, loc, lessThan(m, sizeM),
                            lessThan(n, sizeN)),
      lessThan(k, sizeK));
  SmallVector<Value> at(ivs);
  at[plan.mDim] = clamp(m, lastM);
  at[plan.nDim] = clamp(n, lastN);
  at[plan.kDim] = clamp(k, lastK);
  Value value = memref::LoadOp::create(
      rewriter, loc, operand->get(),
      applyIndexingMap(rewriter, loc, op.getMatchingIndexingMap(operand), at));
  value =
      arith::SelectOp::create(rewriter, loc, inBounds, toAcc(value), accZero);
  memref::StoreOp::create(rewriter, loc, value, tile, ValueRange{row, col});
}

/// The block's threads stage the K-tiles of A and B that start at `k0`, in
/// rounds: thread (ty, tx) the A elements (ty + kThreadsM r, tx), thread
/// (by, bx) the B elements (by + rowsPerRound r, bx); consecutive threads
/// read consecutive elements of the tiles' rows.
void TiledMatmulEmitter::emitStaging(Value k0) {
  OpOperand *operandA = op.getDpsInputOperand(0);
  OpOperand *operandB = op.getDpsInputOperand(1);
  Value kA = arith::AddIOp::create(rewriter, loc, k0, tx);
  static_assert(kTileK == kThreadsN && kTileM % kThreadsM == 0,
                "a round of threads stages kThreadsM rows of the A tile");
  for (int64_t r = 0; r < kTileM / kThreadsM; ++r) {
    Value row = arith::AddIOp::create(rewriter, loc, ty, index(r * kThreadsM));
    stage(operandA, tileA, row, tx, row, zero, kA);
  }
  constexpr int64_t rowsPerRound = kMatmulThreads / kTileN;
  static_assert(kTileK % rowsPerRound == 0,
                "rounds of threads cover the B tile");
  for (int64_t r = 0; r < kTileK / rowsPerRound; ++r) {
    Value row =
        arith::AddIOp::create(rewriter, loc, by, index(r * rowsPerRound));
    Value kB = arith::AddIOp::create(rewriter, loc, k0, row);
    stage(operandB, tileB, row, bx, zero, bx, kB);
  }
}

/// Accumulates the staged K-tiles into the thread's register tile `acc`
/// (kRegM x kRegN values, row-major): an FMA (or multiply-add of integers)
/// per element and step of K. The thread's kRegN columns of B are
/// consecutive: one vector load a step (`ld.shared.v4` of f32, the 16
/// threads of a warp's row reading 256 consecutive bytes); its rows of A are
/// consecutive steps of K in the A tile's rows (the NVPTX back end merges
/// four steps' loads into one).
void TiledMatmulEmitter::emitRegisterTile(SmallVectorImpl<Value> &acc) {
  auto rowType = VectorType::get({kRegN}, accType);
  // Rows of B in workgroup memory (16-byte aligned, kTileN elements) and the
  // first column are multiples of the vector.
  static_assert(kTileN % kRegN == 0, "vectors of kRegN columns stay aligned");
  llvm::Align alignment(
      std::min<int64_t>(kVectorBytes, getElementBytes(accType) * kRegN));
  for (int64_t kk = 0; kk < kTileK; ++kk) {
    Value kkIndex = index(kk);
    SmallVector<Value> a, b;
    for (Value row : rows)
      a.push_back(memref::LoadOp::create(rewriter, loc, tileA,
                                         ValueRange{row, kkIndex}));
    Value rowOfB = vector::LoadOp::create(rewriter, loc, rowType, tileB,
                                          ValueRange{kkIndex, cols.front()},
                                          /*nontemporal=*/false, alignment);
    for (int64_t j = 0; j < kRegN; ++j)
      b.push_back(vector::ExtractOp::create(rewriter, loc, rowOfB, j));
    for (int64_t i = 0; i < kRegM; ++i) {
      for (int64_t j = 0; j < kRegN; ++j) {
        Value &sum = acc[i * kRegN + j];
        if (isa<FloatType>(accType)) {
          sum = math::FmaOp::create(rewriter, loc, a[i], b[j], sum);
        } else {
          Value product = arith::MulIOp::create(rewriter, loc, a[i], b[j]);
          sum = arith::AddIOp::create(rewriter, loc, sum, product);
        }
      }
    }
  }
}

/// The loop over the K-tiles, carrying the register tile: staging, a
/// barrier, the register tile's update, a barrier (before the next staging
/// overwrites the tiles).
scf::ForOp TiledMatmulEmitter::emitKTileLoop() {
  SmallVector<Value> inits(kRegM * kRegN, initValue);
  auto kLoop =
      scf::ForOp::create(rewriter, loc, zero, sizeK, index(kTileK), inits);
  rewriter.setInsertionPointToStart(kLoop.getBody());
  emitStaging(kLoop.getInductionVar());
  gpu::BarrierOp::create(rewriter, loc);
  SmallVector<Value> acc(kLoop.getRegionIterArgs());
  emitRegisterTile(acc);
  gpu::BarrierOp::create(rewriter, loc);
  scf::YieldOp::create(rewriter, loc, acc);
  return kLoop;
}

/// Applies the epilogue to `value`, the accumulator's element at
/// `accIndices`, and stores its results.
void TiledMatmulEmitter::emitEpilogue(Value value, ArrayRef<Value> accIndices) {
  Value accBuffer = op.getDpsInitsMutable()[0].get();
  linalg::GenericOp epilogue = plan.epilogue;
  AffineMap readMap;
  for (OpOperand *input : epilogue.getDpsInputOperands())
    if (input->get() == accBuffer)
      readMap = epilogue.getMatchingIndexingMap(input);
  SmallVector<Value> epilogueIvs(epilogue.getNumLoops(), zero);
  for (auto [pos, index] : llvm::enumerate(accIndices))
    epilogueIvs[readMap.getDimPosition(pos)] = index;
  SmallVector<SmallVector<Value>> outIndices;
  SmallVector<Value> outs;
  for (OpOperand &out : epilogue.getDpsInitsMutable()) {
    outIndices.push_back(applyIndexingMap(
        rewriter, loc, epilogue.getMatchingIndexingMap(&out), epilogueIvs));
    Type elementType = getElementTypeOrSelf(out.get().getType());
    if (epilogue.payloadUsesValueFromOperand(&out))
      outs.push_back(
          memref::LoadOp::create(rewriter, loc, out.get(), outIndices.back()));
    else
      outs.push_back(ub::PoisonOp::create(rewriter, loc, elementType));
  }
  SmallVector<Value> results =
      emitPayload(rewriter, loc, epilogue, epilogueIvs, outs, accBuffer, value);
  for (auto [out, result, indices] :
       llvm::zip_equal(epilogue.getDpsInitsMutable(), results, outIndices))
    memref::StoreOp::create(rewriter, loc, result, out.get(), indices);
}

/// The register tile, in bounds, through the epilogue or to the
/// accumulator.
void TiledMatmulEmitter::emitStores(scf::ForOp kLoop) {
  OpOperand &init = op.getDpsInitsMutable()[0];
  Value accBuffer = init.get();
  Type cType = getElementTypeOrSelf(accBuffer.getType());
  AffineMap accMap = op.getMatchingIndexingMap(&init);
  for (int64_t i = 0; i < kRegM; ++i) {
    for (int64_t j = 0; j < kRegN; ++j) {
      Value inBounds = arith::AndIOp::create(
          rewriter, loc, lessThan(rows[i], sizeM), lessThan(cols[j], sizeN));
      auto ifOp = scf::IfOp::create(rewriter, loc, inBounds,
                                    /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      Value value = kLoop.getResult(i * kRegN + j);
      if (cType != accType)
        value = arith::TruncFOp::create(rewriter, loc, cType, value);
      SmallVector<Value> at(ivs);
      at[plan.mDim] = rows[i];
      at[plan.nDim] = cols[j];
      SmallVector<Value> accIndices =
          applyIndexingMap(rewriter, loc, accMap, at);
      if (!plan.epilogue) {
        memref::StoreOp::create(rewriter, loc, value, accBuffer, accIndices);
        continue;
      }
      emitEpilogue(value, accIndices);
    }
  }
}

/// Erases the matmul, its fill and its epilogue, and a temporary
/// accumulator that nothing reads any more (in the tile, or on the host when
/// the tile is the whole result).
void TiledMatmulEmitter::eraseReplacedOps() {
  Value accBuffer = op.getDpsInitsMutable()[0].get();
  if (plan.epilogue)
    rewriter.eraseOp(plan.epilogue);
  rewriter.eraseOp(op);
  rewriter.eraseOp(plan.fill);
  auto alloc = accBuffer.getDefiningOp<memref::AllocOp>();
  if (plan.epilogue && alloc &&
      llvm::all_of(alloc->getUsers(), llvm::IsaPred<memref::DeallocOp>)) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(alloc);
  }
}

Operation *TiledMatmulEmitter::emit() {
  addWorkgroupTiles();
  // At the epilogue when there is one: what it reads besides the
  // accumulator is defined before it.
  rewriter.setInsertionPoint(plan.epilogue ? plan.epilogue.getOperation()
                                           : op.getOperation());
  emitThreadCoordinates();
  scf::ForOp batchLoop = emitBatchLoop();
  scf::ForOp kLoop = emitKTileLoop();
  rewriter.setInsertionPointAfter(kLoop);
  emitStores(kLoop);
  eraseReplacedOps();
  return batchLoop;
}

/// Emits `plan` as one block's register-tiled matmul: for each K-tile, the
/// block's threads stage the kTileM x kTileK tile of A and the kTileK x
/// kTileN tile of B in workgroup memory (coalesced, zero outside the
/// operands), a barrier, each thread accumulates its register tile from
/// them, a barrier. Batch dimensions are a loop around it. The results, in
/// bounds, go through the epilogue (when fused) or to the accumulator.
/// Returns the op that holds the loops.
Operation *emitTiledMatmul(RewriterBase &rewriter, gpu::LaunchOp launch,
                           const TiledMatmul &plan) {
  return TiledMatmulEmitter(rewriter, launch, plan).emit();
}

} // namespace jeet::gpu_codegen
