//===- VectorizeTranspose.cpp - Transposes in register blocks -------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-vectorize-transpose: a transpose that moves the innermost
// dimension reads each row of its output down a column of its input, and so
// does an elementwise op that reads a transpose in place (`x.T + y`).
// Gathered element by element (jeet-cpu-vectorize-elementwise), a 1024 x
// 1024 f32 transpose took 3.9 ms on the Zen 4 host, numpy's time, where torch
// took 0.67 and XLA 0.19. This pass rewrites such a generic into square
// blocks: each block of the transposed input is read as contiguous rows,
// transposed in registers by rounds of shuffles, and the body computed on
// the block's columns, written as contiguous rows of the output. Output rows
// shorter than a block (a 1 x 1 convolution's 3 x 3 positions written back
// channel by channel) are folded with the loops around them first, where
// every operand reads those loops as one run.
//
//===----------------------------------------------------------------------===//

#include "VectorizeUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/Host.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUVECTORIZETRANSPOSEPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet::cpu;

namespace {

/// The smallest block's side: below it the shuffles cost more than the
/// gathers they replace.
constexpr int64_t kMinBlock = 4;
/// Bytes of a block's row at which the block is halved: a row of 8-byte
/// elements in a 16-element block would take two registers, and the block
/// all of AVX-512's.
constexpr int64_t kMaxRowBytes = 64;
/// Bytes of a tile's side: blocks go in square tiles of 128 f32 (64 KiB of
/// the transposed input, its rows in 128 pages at most, and as much of the
/// output), the tiles in parallel. Blocks taken one after the other along a
/// row of blocks touched a new page for each of their 16 rows: a 4096 x 4096
/// f32 transpose ran in 7.9 ms, in tiles of 32, 64, 128 and 256 elements
/// 8.0, 5.1, 4.6 and 4.9 ms (a copy 2.6), on the 2-core Zen 4 host.
constexpr int64_t kTileBytes = 512;

/// The block's side when the option leaves it at 0: this host's.
int64_t hostBlock() {
  static const int64_t block = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    return jeet::getTransposeBlock(jeet::getMatmulRegisterCols(
        [&](llvm::StringRef name) { return features.lookup(name); }));
  }();
  return block;
}

bool hasUnitInnermostStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         !strides.empty() && strides.back() == 1;
}

/// One round of the transpose in registers: the masks of the two shuffles
/// that combine a pair of vectors (the first's lanes numbered from 0, the
/// second's from `block`).
struct Round {
  SmallVector<int64_t> masks[2];
};

/// The shuffles that transpose a block of `block` vectors of `block`
/// elements of `elementBytes` bytes, as x86's unpack and lane shuffles do it
/// (LLVM selects those instructions for these masks): the rounds first
/// interleave elements within each 16-byte lane (cheap shuffles), then move
/// whole 16-byte lanes across the vector. Round t combines the vectors whose
/// numbers differ in bit t; each shuffle takes the lanes of both whose lane
/// number has bit k equal to its half (0 or 1), and packs them with the
/// source (first or second vector) as bit m of the new lane number, the
/// other bits in their order. With 4-byte elements and a block of 16: k = 1
/// and m = 0 is vunpcklps/vunpckhps, k = 1 and m = 1 a shuffle of 8-byte
/// pairs, k = 2 and m = 3 vshuff32x4 (twice). Returns the rounds and, in
/// `columnOf`, the column of the block that each vector holds at the end
/// (row r in lane r), checked by following every element through the
/// rounds; nothing when they do not transpose (they always should).
std::optional<SmallVector<Round>>
transposeRounds(int64_t block, int64_t elementBytes,
                SmallVector<int64_t> &columnOf) {
  constexpr int64_t kLaneBytes = 16;
  unsigned bits = llvm::Log2_64(block);
  unsigned laneBits = std::min<unsigned>(
      bits, llvm::Log2_64(std::max<int64_t>(1, kLaneBytes / elementBytes)));
  auto maskFor = [&](unsigned k, unsigned m, int64_t half) {
    SmallVector<int64_t> mask;
    for (int64_t position = 0; position < block; ++position) {
      int64_t source = (position >> m) & 1;
      int64_t rest =
          ((position >> (m + 1)) << m) | (position & ((int64_t(1) << m) - 1));
      int64_t lane = ((rest >> k) << (k + 1)) | (half << k) |
                     (rest & ((int64_t(1) << k) - 1));
      mask.push_back(source * block + lane);
    }
    return mask;
  };
  SmallVector<Round> rounds;
  // The block's element (row, column) in each vector's lanes, followed
  // through the rounds.
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> held(block);
  for (int64_t row = 0; row < block; ++row)
    for (int64_t column = 0; column < block; ++column)
      held[row].push_back({row, column});
  for (unsigned t = 0; t < bits; ++t) {
    bool inLane = t < laneBits;
    unsigned k = inLane ? laneBits - 1 : laneBits;
    unsigned m = inLane ? t : bits - 1;
    Round round{{maskFor(k, m, 0), maskFor(k, m, 1)}};
    SmallVector<SmallVector<std::pair<int64_t, int64_t>>> next(block);
    for (int64_t v = 0; v < block; ++v) {
      if (v & (int64_t(1) << t))
        continue;
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t from : round.masks[half])
          next[v | (half << t)].push_back(
              from < block ? held[v][from]
                           : held[v | (int64_t(1) << t)][from - block]);
    }
    held = std::move(next);
    rounds.push_back(std::move(round));
  }
  columnOf.clear();
  for (const auto &lanes : held) {
    int64_t column = lanes.front().second;
    for (auto [lane, element] : llvm::enumerate(lanes))
      if (element.first != int64_t(lane) || element.second != column)
        return std::nullopt;
    columnOf.push_back(column);
  }
  return rounds;
}

/// How a generic reads some of its inputs in blocks transposed in
/// registers: loop `rows` is the one those inputs' innermost dimension
/// follows, the generic's innermost loop the one their rows follow.
struct Plan {
  unsigned rows;
  int64_t block;
  /// Bytes of the widest element of the inputs read in blocks.
  int64_t widestBytes;
  /// The inputs read in blocks (operand numbers), with their rounds of
  /// shuffles and the column of the block each vector holds after them.
  struct Blocked {
    unsigned operand;
    SmallVector<Round> rounds;
    SmallVector<int64_t> columnOf;
  };
  SmallVector<Blocked> blocked;
};

/// The bits of `type`'s elements where they are whole bytes of a power of
/// two (what vector shuffles move as they are), else 0.
unsigned elementBits(MemRefType type) {
  Type element = type.getElementType();
  if (!element.isIntOrFloat())
    return 0;
  unsigned bits = element.getIntOrFloatBitWidth();
  return bits >= 8 && llvm::isPowerOf2_32(bits) ? bits : 0;
}

/// The loop that `operand` (an input that varies along the innermost loop)
/// reads its innermost dimension along, where that is another loop and the
/// innermost loop steps one of its other dimensions: a transposed read.
std::optional<unsigned> transposedRowsLoop(linalg::GenericOp op,
                                           OpOperand &operand) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  unsigned inner = op.getNumLoops() - 1;
  auto type = cast<MemRefType>(operand.get().getType());
  if (map.getNumResults() < 2 || !hasUnitInnermostStride(type) ||
      !elementBits(type))
    return std::nullopt;
  // A window's read (d4 * 2 + d2) follows no one loop.
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!last || last.getPosition() == inner)
    return std::nullopt;
  return last.getPosition();
}

std::optional<Plan> planGeneric(linalg::GenericOp op,
                                const llvm::DenseSet<Value> &uniform,
                                int64_t maxBlock) {
  if (op.getNumParallelLoops() != op.getNumLoops() || op.getNumLoops() < 2 ||
      !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return std::nullopt;
  Plan plan;
  std::optional<unsigned> rows;
  unsigned widest = 0;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    if (uniform.contains(op.getMatchingBlockArgument(operand)) ||
        op.getMatchingBlockArgument(operand).use_empty())
      continue;
    std::optional<unsigned> loop = transposedRowsLoop(op, *operand);
    if (!loop || (rows && *loop != *rows))
      continue;
    rows = loop;
    plan.blocked.push_back({operand->getOperandNumber(), {}, {}});
    widest = std::max(widest,
                      elementBits(cast<MemRefType>(operand->get().getType())));
  }
  if (!rows)
    return std::nullopt;
  plan.rows = *rows;
  plan.widestBytes = widest / 8;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rowRange = ranges[plan.rows], colRange = ranges.back();
  plan.block = maxBlock;
  while (plan.block > kMinBlock &&
         (plan.block * widest / 8 > kMaxRowBytes || rowRange < plan.block ||
          colRange < plan.block))
    plan.block /= 2;
  if (rowRange < plan.block || colRange < plan.block)
    return std::nullopt;
  for (Plan::Blocked &blocked : plan.blocked) {
    int64_t bytes = elementBits(cast<MemRefType>(
                        op->getOperand(blocked.operand).getType())) /
                    8;
    auto rounds = transposeRounds(plan.block, bytes, blocked.columnOf);
    if (!rounds)
      return std::nullopt;
    blocked.rounds = std::move(*rounds);
  }
  return plan;
}

/// A generic whose output rows are shorter than a block but whose trailing
/// loops every operand reads as one contiguous run (a 1 x 1 convolution's
/// positions, 3 x 3 or 6 x 6, computed as the rows of a matmul and written
/// back channel by channel): those loops folded into one, so that its rows
/// of 9 or 36 go in blocks. Null where there is nothing to fold, where an
/// operand's buffer does not collapse, or where the folded loop would still
/// be shorter than the smallest block; `op` is then unchanged.
linalg::GenericOp foldShortRows(linalg::GenericOp op, int64_t maxBlock) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned inner = ranges.size() - 1;
  if (ranges.size() < 3 || ranges[inner] >= maxBlock ||
      op.getNumParallelLoops() != op.getNumLoops())
    return nullptr;
  // The loop the transposed reads follow stays out of the fold.
  std::optional<unsigned> rows;
  for (OpOperand *operand : op.getDpsInputOperands())
    if (auto loop = transposedRowsLoop(op, *operand))
      rows = loop;
  if (!rows)
    return nullptr;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // linalg::areDimSequencesPreserved takes projected permutations only.
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return nullptr;
  // The longest run of trailing loops, down to the one after the rows,
  // that every operand reads as one run.
  ReassociationIndices run = {int64_t(inner)};
  int64_t folded = ranges[inner];
  for (unsigned dim = inner; dim-- > 0 && dim != *rows;) {
    ReassociationIndices longer = {int64_t(dim)};
    llvm::append_range(longer, run);
    if (!linalg::areDimSequencesPreserved(maps, {longer}))
      break;
    run = std::move(longer);
    folded *= ranges[dim];
  }
  if (run.size() < 2 || folded < kMinBlock)
    return nullptr;
  return foldTrailingLoops(op, run.front());
}

/// Rewrites a generic whose inputs in `plan.blocked` read transposed into
/// blocks of `plan.block` x `plan.block` iterations of its rows loop and
/// innermost loop, and generics on subviews for what the blocks leave.
class BlockedEmitter {
public:
  BlockedEmitter(OpBuilder &b, linalg::GenericOp op,
                 const llvm::DenseSet<Value> &uniform, const Plan &plan)
      : b(b), op(op), loc(op.getLoc()), uniform(uniform), plan(plan),
        ranges(op.getStaticLoopRanges()) {}

  void emit(bool parallel) {
    int64_t block = plan.block;
    unsigned inner = ranges.size() - 1;
    int64_t fullRows = ranges[plan.rows] / block * block;
    int64_t fullCols = ranges[inner] / block * block;
    // Tiles of blocks in parallel with the other loops; in a tile, its
    // blocks in order.
    int64_t tile =
        std::max<int64_t>(1, kTileBytes / (block * plan.widestBytes)) * block;
    SmallVector<Value> lbs, ubs, steps;
    for (unsigned dim = 0; dim <= inner; ++dim) {
      bool tiled = dim == plan.rows || dim == inner;
      lbs.push_back(cst(0));
      ubs.push_back(cst(dim == plan.rows ? fullRows
                        : dim == inner   ? fullCols
                                         : ranges[dim]));
      steps.push_back(cst(tiled ? tile : 1));
    }
    buildLoops(b, loc, lbs, ubs, steps, parallel,
               [&](OpBuilder &nested, ValueRange ivs) {
                 OpBuilder::InsertionGuard guard(b);
                 b.setInsertionPoint(nested.getInsertionBlock(),
                                     nested.getInsertionPoint());
                 SmallVector<Value> at(ivs);
                 for (auto [dim, full] :
                      {std::pair<unsigned, int64_t>{plan.rows, fullRows},
                       {inner, fullCols}}) {
                   Value end = arith::MinSIOp::create(
                       b, loc, plus(ivs[dim], tile), cst(full));
                   auto loop =
                       scf::ForOp::create(b, loc, ivs[dim], end, cst(block));
                   b.setInsertionPoint(loop.getBody()->getTerminator());
                   at[dim] = loop.getInductionVar();
                 }
                 emitBlock(at);
               });

    // The ends the blocks leave: the columns past the last block beside the
    // blocks of rows, then the rows past the last block whole.
    if (fullCols < ranges[inner])
      emitEdge(0, fullRows, fullCols, ranges[inner] - fullCols);
    if (fullRows < ranges[plan.rows])
      emitEdge(fullRows, ranges[plan.rows] - fullRows, 0, ranges[inner]);
  }

private:
  Value cst(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  Value plus(Value value, int64_t offset) {
    return offset == 0
               ? value
               : arith::AddIOp::create(b, loc, value, cst(offset)).getResult();
  }

  /// The block at loop indices `at` (its first iteration): the blocked
  /// inputs read as rows along the rows loop, one per step of the innermost
  /// loop, and transposed; then the body cloned for each step of the rows
  /// loop on vectors along the innermost loop, with those columns for the
  /// blocked inputs, and the outputs stored.
  void emitBlock(ArrayRef<Value> at) {
    int64_t block = plan.block;
    unsigned inner = ranges.size() - 1;
    // Per blocked input, the vector of each step of the rows loop.
    llvm::SmallDenseMap<unsigned, SmallVector<Value>> columns;
    for (const Plan::Blocked &blocked : plan.blocked) {
      OpOperand &operand = op->getOpOperand(blocked.operand);
      auto type = cast<MemRefType>(operand.get().getType());
      auto vectorType = VectorType::get({block}, type.getElementType());
      SmallVector<Value> vectors;
      SmallVector<Value> ivs(at);
      for (int64_t r = 0; r < block; ++r) {
        ivs[inner] = plus(at[inner], r);
        vectors.push_back(vector::LoadOp::create(
            b, loc, vectorType, operand.get(), indicesAt(op, operand, ivs)));
      }
      // log2(block) rounds, each combining the vectors whose numbers differ
      // in one bit (transposeRounds).
      for (auto [bit, round] : llvm::enumerate(blocked.rounds)) {
        SmallVector<Value> next(block);
        for (int64_t v = 0; v < block; ++v) {
          if (v & (int64_t(1) << bit))
            continue;
          Value first = vectors[v], second = vectors[v | (int64_t(1) << bit)];
          for (int64_t half = 0; half < 2; ++half)
            next[v | (half << bit)] = vector::ShuffleOp::create(
                b, loc, first, second, round.masks[half]);
        }
        vectors = std::move(next);
      }
      SmallVector<Value> &byStep = columns[blocked.operand];
      byStep.resize(block);
      for (auto [v, column] : llvm::enumerate(blocked.columnOf))
        byStep[column] = vectors[v];
    }
    SmallVector<Value> ivs(at);
    for (int64_t step = 0; step < block; ++step) {
      ivs[plan.rows] = plus(at[plan.rows], step);
      IRMapping mapping =
          cloneBodyAt(b, loc, op, uniform, ivs, block, /*skip=*/nullptr,
                      /*onLoad=*/{}, [&](OpOperand &operand) -> Value {
                        auto it = columns.find(operand.getOperandNumber());
                        return it == columns.end() ? Value() : it->second[step];
                      });
      auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
      for (auto [value, init] :
           llvm::zip_equal(yield.getValues(), op.getDpsInitsMutable()))
        vector::StoreOp::create(
            b, loc, splatTo(b, loc, mapping.lookupOrDefault(value), block),
            init.get(), indicesAt(op, init, ivs));
    }
  }

  /// The generic on subviews of its operands for the rows loop's iterations
  /// [rowOffset, rowOffset + rowSize) and the innermost loop's [colOffset,
  /// colOffset + colSize) (every iteration of the others).
  void emitEdge(int64_t rowOffset, int64_t rowSize, int64_t colOffset,
                int64_t colSize) {
    if (rowSize == 0 || colSize == 0)
      return;
    unsigned inner = ranges.size() - 1;
    SmallVector<int64_t> offsets(ranges.size(), 0), sizes(ranges);
    offsets[plan.rows] = rowOffset;
    sizes[plan.rows] = rowSize;
    offsets[inner] = colOffset;
    sizes[inner] = colSize;
    SmallVector<Value> operands;
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      SmallVector<OpFoldResult> subOffsets, subSizes;
      for (AffineExpr expr : map.getResults()) {
        unsigned dim = cast<AffineDimExpr>(expr).getPosition();
        subOffsets.push_back(b.getIndexAttr(offsets[dim]));
        subSizes.push_back(b.getIndexAttr(sizes[dim]));
      }
      SmallVector<OpFoldResult> strides(map.getNumResults(), b.getIndexAttr(1));
      operands.push_back(memref::SubViewOp::create(
          b, loc, operand.get(), subOffsets, subSizes, strides));
    }
    Operation *edge = b.clone(*op);
    edge->setOperands(operands);
  }

  OpBuilder &b;
  linalg::GenericOp op;
  Location loc;
  const llvm::DenseSet<Value> &uniform;
  const Plan &plan;
  SmallVector<int64_t> ranges;
};

struct JeetCpuVectorizeTransposePass
    : public jeet::impl::JeetCpuVectorizeTransposePassBase<
          JeetCpuVectorizeTransposePass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (block != 0 && (block < kMinBlock || !llvm::isPowerOf2_64(block)))
      return emitError(UnknownLoc::get(context))
             << "jeet-cpu-vectorize-transpose: block must be 0 or a power of "
                "two of at least "
             << kMinBlock << ", not " << int64_t(block);
    return success();
  }

  void runOnOperation() override {
    int64_t maxBlock = block != 0 ? int64_t(block) : hostBlock();
    generalizeStaticTransposes(getOperation());
    forEachGeneric(getOperation(), [&](linalg::GenericOp op, bool nested) {
      llvm::DenseSet<Value> uniform;
      auto analyzed = [&](linalg::GenericOp generic) {
        uniform.clear();
        return analyzeOperands(generic, uniform,
                               /*outputsMayBeUniform=*/false) &&
               analyzeBody(generic, uniform);
      };
      if (!analyzed(op))
        return;
      std::optional<Plan> plan = planGeneric(op, uniform, maxBlock);
      if (!plan) {
        // Rows too short for a block: folded, then planned again (the
        // folded generic stays where that fails too).
        linalg::GenericOp folded = foldShortRows(op, maxBlock);
        if (!folded)
          return;
        op->erase();
        op = folded;
        if (!analyzed(op) || !(plan = planGeneric(op, uniform, maxBlock)))
          return;
      }
      OpBuilder b(op);
      BlockedEmitter(b, op, uniform, *plan).emit(parallel && !nested);
      op->erase();
    });
  }
};

} // namespace

int64_t jeet::getTransposeBlock(int64_t matmulRegisterCols) {
  return matmulRegisterCols >= 64 ? 16 : 8;
}
