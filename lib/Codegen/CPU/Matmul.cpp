//===- CpuMatmul.cpp - Register-tiled vector matmuls for the CPU ----------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites `linalg.matmul` / `linalg.batch_matmul` (and batched contractions
// whose batch dimensions broadcast) with an f32 accumulator on buffers into
// the blocked loop nest of a BLAS kernel (the order of BLIS, with the row
// blocks outermost so that they are the parallel loop):
//
//   pack B into (panel, k, register-cols)          once per matmul
//   for i0 in rows, step row-block                 (scf.parallel)
//     for k0 in 0..K, step k-block
//       (a transposed A: pack A[i0.., k0..] as (tile, k, register-rows))
//                                                   A's block in L2
//       for j in columns, step register-cols       B micro-panel in L1
//         for i in i0.., step register-rows
//           C tile in registers from zeros; for k in k0..: rank-1 update
//           with FMAs; then added to C (prefetched before the loop), or,
//           when k0 == 0 and a fill of C was folded in, started from the
//           fill's value and stored over C; as it runs, the tile fetches
//           its share of the next micro-panel of B into L2
//
// The k-block is sized so that the micro-panels of B (k-block x
// register-cols) and A take three quarters of the L1 data cache, the row
// block so that its block of A fits in a quarter of the L2 cache,
// its rows of C in half of it, and there are a few blocks per thread; a
// matmul's depth is then split into blocks of equal depth. The remainder
// rows are one more tile of the last row block. Where a C is so wide that
// a few register tiles of its rows outgrow half of L2 (and half of L1 holds
// few steps of a panel, as with AVX-512's 64-column panels), the two inner
// loops swap:
//
//       for j0 in columns, step col-block             B's block in L2
//         for i in i0.., step register-rows           A micro-panel in L1
//           for j in j0.., step register-cols         B's rows prefetched
//
// with a k-block of up to 384 steps, so that C's tiles (in L3) are read and
// written less often, and A's block packed as (tile, k, register-rows), so
// that each tile's micro-panel in L1 is contiguous.
//
// A matmul inside a parallel loop whose B is a column slice of a buffer
// defined outside the loop (the tiles of a matmul with an epilogue) reads the
// panels that one copy of the whole buffer, made before the loop, holds (for
// the tiles of a batch_matmul, one copy of the panels of every batch).
// Remainder rows and columns get kernels of their own static size, so that
// every tile is a static vector shape and every shape is exact.
//
// The tiles of a matmul with an epilogue (one matmul per tile, inside a
// parallel loop, reading prepacked panels of B) call one private function
// per combination of operand types and layouts: the MLP's three layers of the
// same shape share one kernel, which the rest of the pipeline and LLVM then
// compile once instead of three times.
// A transposed operand (a linalg.matmul or batch_matmul whose indexing maps
// swap A's or B's matrix dimensions, as jeet-lower-to-linalg emits for a
// folded transpose) costs nothing extra: A is read one element at a time
// anyway, by its packing or its kernels; B is always packed, and its packing
// reads each column of B (a row of the transposed buffer) contiguously. A
// partial last panel is packed too, for the remainder columns.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "ConstantPanels.h"
#include "VectorizeUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/TargetParser/Host.h"

#include <limits>
#include <unistd.h>

namespace jeet {
#define GEN_PASS_DEF_JEETCPUMATMULPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

struct TileSizes {
  int64_t registerRows, registerCols, rowBlock, kBlock;
  /// Columns of B per L2 block in the order where a tile's micro-panel of A
  /// stays in L1 and B's panels stream from L2; 0: the order where a
  /// micro-panel of B stays in L1 (see chooseCacheBlocks).
  int64_t colBlock = 0;
  /// The k-block of the order where B's micro-panel stays in L1: a matmul
  /// no deeper takes that order whatever colBlock says (its C tiles are
  /// visited once either way, and each micro-panel of B serves every row
  /// tile from L1).
  int64_t panelKBlock = 0;
  /// The L2 cache size the blocks are for.
  int64_t l2Bytes = 0;
  /// Whether the module's constants together outgrow L2 (see
  /// streamedPanels).
  bool constantsOutgrowL2 = false;
};

/// The bytes of `module`'s constant globals (a graph's constants).
static int64_t constantBytes(ModuleOp module) {
  int64_t bytes = 0;
  for (auto global : module.getOps<memref::GlobalOp>()) {
    MemRefType type = global.getType();
    if (global.getConstant() && type.hasStaticShape())
      bytes += type.getNumElements() *
               llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  return bytes;
}

/// Packed buffers start on a cache line.
constexpr int64_t kPackAlignment = 64;

/// Data cache sizes assumed where the system does not report them.
constexpr int64_t kDefaultL1Bytes = 32 * 1024;
constexpr int64_t kDefaultL2Bytes = 1024 * 1024;

/// The host's L1 data and L2 cache sizes in bytes (per core).
std::pair<int64_t, int64_t> hostCacheSizes() {
  int64_t l1 = kDefaultL1Bytes, l2 = kDefaultL2Bytes;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  if (long size = sysconf(_SC_LEVEL1_DCACHE_SIZE); size > 0)
    l1 = size;
  if (long size = sysconf(_SC_LEVEL2_CACHE_SIZE); size > 0)
    l2 = size;
#endif
  return {l1, l2};
}

/// The register tile's columns when the options leave them at 0: this
/// host's (jeet-compile sets them from the CPU it compiles for).
int64_t hostRegisterCols() {
  static const int64_t cols = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    return jeet::getMatmulRegisterCols(
        [&](llvm::StringRef name) { return features.lookup(name); });
  }();
  return cols;
}

/// The cache blocks for `registerCols`-wide f32 panels when the options
/// leave them at 0: a k-block whose micro-panels of B and A take at most
/// three quarters of L1 (the most steps that do, rounded down to a power of
/// two: 32 to 512), and row blocks whose block of A (rows x k-block)
/// takes at most a quarter of L2 (the emitter also keeps a row block's rows
/// of C within half of L2). The rest of L1 is for the C tile and the lines
/// on their way in (with a 32 KiB, 8-way L1, a 6 x 16 tile and 336 steps,
/// B's 21 KiB and A's 8 KiB took every way but one, and the kernel lost
/// ~10% to misses); the rest of L2 for the B micro-panels on their way to
/// L1. On a Zen 3 core (32 KiB L1, 512 KiB L2) that is 256 steps and 126
/// rows, BLIS's blocking for the same 6 x 16 tile (256 and 144); on an
/// AVX-512 core with 48 KiB of L1, 128 steps of a 64-column panel (B's 32
/// KiB and A's 3 KiB; 96 steps, B in half of L1, ran the 1024^3 matmul 2%
/// slower, with its C tiles visited 11 times instead of 8).
///
/// Panels too wide for half of L1 (fewer than kMinL1PanelSteps steps of a
/// 64-column panel fit: 96 in a 48 KiB L1) also get the blocks of the other
/// order, which the emitter takes for a C too wide for its row blocks to
/// fit L2 (see MatmulEmitter::emit): each tile's micro-panel of A
/// (register-rows x k-block) stays in L1 while the tile meets the panels of
/// a column block of B, which stays in L2 (half of it) and streams past.
/// The k-block is then the most steps whose A micro-panel takes a quarter
/// of L1, up to kMaxL2PanelSteps: C's tile is read and written once per
/// k-block. `l1Bytes` and `l2Bytes`, where positive, stand for the host's
/// cache sizes.
TileSizes chooseCacheBlocks(TileSizes sizes, int64_t l1Bytes, int64_t l2Bytes) {
  constexpr int64_t kFloatBytes = 4, kKStep = 16, kMinK = 32, kMaxK = 512,
                    kMaxRows = 512, kMinL1PanelSteps = 128,
                    kMaxL2PanelSteps = 384;
  auto [l1, l2] = hostCacheSizes();
  if (l1Bytes > 0)
    l1 = l1Bytes;
  if (l2Bytes > 0)
    l2 = l2Bytes;
  auto steps = [&](int64_t k) {
    return std::clamp(k / kKStep * kKStep, kMinK, kMaxK);
  };
  int64_t panelSteps = std::clamp<int64_t>(
      llvm::bit_floor(static_cast<uint64_t>(std::max<int64_t>(
          1, l1 * 3 / 4 /
                 ((sizes.registerCols + sizes.registerRows) * kFloatBytes)))),
      kMinK, kMaxK);
  int64_t halfL1Steps = l1 / 2 / (sizes.registerCols * kFloatBytes);
  if (sizes.kBlock <= 0) {
    bool aInL1 = sizes.colBlock > 0 || halfL1Steps < kMinL1PanelSteps;
    sizes.kBlock =
        aInL1 ? steps(std::min(l1 / 4 / (sizes.registerRows * kFloatBytes),
                               kMaxL2PanelSteps))
              : panelSteps;
    if (aInL1 && sizes.colBlock <= 0) {
      int64_t panels =
          l2 / 2 / (sizes.kBlock * sizes.registerCols * kFloatBytes);
      sizes.colBlock = std::max<int64_t>(1, panels) * sizes.registerCols;
    }
  }
  sizes.panelKBlock = sizes.colBlock > 0 ? panelSteps : sizes.kBlock;
  sizes.l2Bytes = l2;
  if (sizes.rowBlock <= 0) {
    int64_t rows = l2 / 4 / (sizes.kBlock * kFloatBytes);
    sizes.rowBlock = std::clamp(rows, sizes.registerRows, kMaxRows);
  }
  return sizes;
}

/// The k-block of a matmul of depth `k`: as many blocks as `kBlock` needs,
/// of equal depth (the last one shorter by less than the number of blocks:
/// K = 100 in blocks of at most 48 is 34 + 34 + 32). K = 1024 in blocks
/// of at most 336 is 4 blocks of 256, not 3 of 336 and one of 16, whose
/// kernels would load and store their C tile for 16 steps.
int64_t balancedKBlock(int64_t k, int64_t kBlock) {
  kBlock = std::max<int64_t>(1, kBlock);
  if (k <= kBlock)
    return std::max<int64_t>(1, k);
  return llvm::divideCeil(k, llvm::divideCeil(k, kBlock));
}

/// B's full panels, packed before the matmul's loops: a
/// (panel, k, register-cols) buffer, and the index of the matmul's first
/// column panel in it.
struct PackedPanels {
  Value buffer;
  Value firstPanel;
  /// The panels of a constant B, packed by the compiler (see
  /// constantPanels) rather than copied at run time.
  bool compiled = false;
};

/// Which operands hold their matrix transposed: A as (k, m), B as (n, k).
struct Layout {
  bool lhsTransposed = false;
  bool rhsTransposed = false;
};

/// A matmul's full register tiles of rows in blocks of nearly equal size:
/// `longer` blocks have `tiles + 1` tiles, the others `tiles`. The blocks are
/// `groups` runs of equal length (one run, or kRowBlocksToBalance where the
/// count is a multiple of it), each run holding its share of the longer
/// blocks (to within one) first. A thread that takes its iterations
/// dynamically then meets the longer blocks before the shorter ones of its
/// run, and a static schedule, which gives each thread a contiguous range
/// of blocks (a whole number of runs with 2, 4 or 8 threads), gives each
/// the same number of tiles to within one. (With every longer block first,
/// 341 tiles in 72 blocks of 4 or 5 gave the first of two threads 180 tiles
/// and the second 161: the 2048^3 matmul on an AVX2 host, whose 72 blocks
/// are past merge-parallel-regions' dynamic schedule, spent ~10% of the
/// second thread's time waiting.)
struct RowBlocks {
  int64_t tiles, longer, rowsPerTile, groups = 1, blocks = 0;

  int64_t largestRows() const {
    return (tiles + (longer > 0 ? 1 : 0)) * rowsPerTile;
  }

  /// The first row of block `index` and the one past its last.
  std::pair<Value, Value> bounds(OpBuilder &b, Location loc,
                                 Value index) const {
    auto cst = [&](int64_t value) {
      return arith::ConstantIndexOp::create(b, loc, value);
    };
    auto mul = [&](Value x, Value y) {
      return arith::MulIOp::create(b, loc, x, y).getResult();
    };
    auto add = [&](Value x, Value y) {
      return arith::AddIOp::create(b, loc, x, y).getResult();
    };
    auto div = [&](Value x, Value y) {
      return arith::DivUIOp::create(b, loc, x, y).getResult();
    };
    Value firstTile = mul(index, cst(tiles));
    Value count = cst(tiles);
    if (longer > 0) {
      // Block `index` is block `r` of run `g`; the runs before it hold
      // floor(g * longer / groups) longer blocks, run g its
      // floor((g + 1) * longer / groups) minus those, first.
      Value r = index, before = cst(0), inRun = cst(longer);
      if (groups > 1) {
        Value runLength = cst(blocks / groups);
        Value g = div(index, runLength);
        r = arith::RemUIOp::create(b, loc, index, runLength);
        before = div(mul(g, cst(longer)), cst(groups));
        Value through = div(mul(add(g, cst(1)), cst(longer)), cst(groups));
        inRun = arith::SubIOp::create(b, loc, through, before);
      }
      firstTile =
          add(firstTile, add(before, arith::MinUIOp::create(b, loc, r, inRun)));
      Value isLonger =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, r, inRun);
      count = arith::SelectOp::create(b, loc, isLonger, cst(tiles + 1), count);
    }
    Value first = mul(firstTile, cst(rowsPerTile));
    Value rows = mul(count, cst(rowsPerTile));
    return {first, add(first, rows)};
  }
};

/// Emits `C += A * B` for 2-D f32 memrefs of static shape at the builder's
/// insertion point.
class MatmulEmitter {
public:
  MatmulEmitter(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc,
                const TileSizes &sizes, Layout layout,
                std::optional<PackedPanels> prepacked = std::nullopt)
      : b(b), loc(loc), lhs(lhs), rhs(rhs), acc(acc), layout(layout),
        sizes(sizes) {
    if (prepacked) {
      packed = prepacked->buffer;
      firstPanel = prepacked->firstPanel;
      ownsPacked = false;
      panelsCompiled = prepacked->compiled;
    }
    auto lhsType = cast<MemRefType>(lhs.getType());
    auto accType = cast<MemRefType>(acc.getType());
    m = accType.getDimSize(0);
    n = accType.getDimSize(1);
    k = lhsType.getDimSize(layout.lhsTransposed ? 0 : 1);
    kBlock = balancedKBlock(k, sizes.panelKBlock);
    elementType = accType.getElementType();
  }

  void emit(bool parallel) {
    int64_t mr = sizes.registerRows;
    int64_t nr = sizes.registerCols;
    // Too few rows to share among the threads (a matrix-vector product, a
    // batch of one): the column panels run in parallel instead.
    if (parallel && sharesColumnPanels(m, n, sizes)) {
      emitColumnPanels();
      return;
    }
    int64_t fullRows = m / mr * mr;
    // A constant B's panels are the compiler's (see constantPanels): read
    // from them whatever the rows, since nothing is copied at run time.
    if (!packed) {
      if (Value panels = jeet::cpu::constantPanels(b, loc, rhs, nr,
                                                   layout.rhsTransposed)) {
        packed = panels;
        firstPanel = cst(0);
        ownsPacked = false;
        panelsCompiled = true;
      }
    }
    // B's full column panels are copied once into a contiguous buffer that
    // every row block then reads in order (see packRhs); a transposed B
    // always, with its partial last panel, since no kernel reads it as it
    // is.
    if (!packed && (layout.rhsTransposed ||
                    (mayPackRhs && m >= kPackMinRows && n >= nr))) {
      packed = packRhs(b, loc, rhs, nr, layout.rhsTransposed, parallel);
      firstPanel = cst(0);
    }
    // The rows of C that fit half of L2. A row block's rows stay there
    // across its k-blocks; the order where A's micro-panel stays in L1 (see
    // chooseCacheBlocks) takes a matmul deeper than a k-block whose C is too
    // wide for kMinTilesOfCInL2 tiles of rows to fit. (Its row blocks'
    // rows of C in L3, that order ran 4-13% slower than this one with the
    // row blocks cut to fit: 2048^3, 1536^3, 512 x 1024 x 4096; C in L2,
    // the batched matmul's 256 x 256 blocks ran 5% slower in it.)
    int64_t accBytes = elementType.getIntOrFloatBitWidth() / 8;
    int64_t rowsOfCInL2 =
        sizes.l2Bytes / 2 / std::max<int64_t>(1, n * accBytes);
    aInL1 = sizes.colBlock > 0 && k > sizes.panelKBlock &&
            rowsOfCInL2 < kMinTilesOfCInL2 * mr;
    // Row blocks: whole register tiles, small enough that there are a few
    // blocks per core to balance and (in this order) that their rows of C
    // fit half of L2, and as equal as whole tiles allow (170 tiles in 8
    // blocks are 2 of 22 and 6 of 21, not 7 of 22 and one of 16). More
    // blocks than kRowBlocksToBalance are rounded up to a multiple of it, so
    // that 2, 4 or 8 threads get equal shares (341 tiles in 17 blocks of at
    // most 21 left one of two threads idle 5% of the 2048^3 matmul; 24
    // blocks of 14 or 15 do not).
    int64_t tiles = fullRows / mr;
    int64_t maxTiles = std::max<int64_t>(1, sizes.rowBlock / mr);
    if (!aInL1)
      maxTiles =
          std::min<int64_t>(maxTiles, std::max<int64_t>(1, rowsOfCInL2 / mr));
    maxTiles = std::min<int64_t>(maxTiles,
                                 llvm::divideCeil(tiles, kRowBlocksToBalance));
    int64_t blocks = tiles > 0 ? llvm::divideCeil(tiles, maxTiles) : 0;
    if (blocks > kRowBlocksToBalance)
      blocks =
          std::min<int64_t>(tiles, llvm::alignTo(blocks, kRowBlocksToBalance));
    RowBlocks rowBlocks{
        blocks > 0 ? tiles / blocks : 0, blocks > 0 ? tiles % blocks : 0, mr,
        blocks > kRowBlocksToBalance && blocks % kRowBlocksToBalance == 0
            ? kRowBlocksToBalance
            : 1,
        blocks};
    int64_t rowBlock = rowBlocks.largestRows();
    kBlock = balancedKBlock(k, aInL1 ? sizes.kBlock : sizes.panelKBlock);
    panelsOutgrowL2 =
        k * (n / nr * nr) *
            (getElementTypeOrSelf(rhs.getType()).getIntOrFloatBitWidth() / 8) >
        sizes.l2Bytes / 2;
    // A is packed where each of its tiles meets several panels of B and
    // would otherwise be read a line per step: a transposed A (each step of
    // a tile's rows is a line of its own), or a micro-panel that stays in L1
    // across a column block (aInL1). Each row block (and the remainder rows)
    // packs into a slot of its own. A row-major A is read in place by the
    // kernels where B's micro-panel stays in L1: a tile's rows are `mr`
    // streams that the hardware prefetchers follow, and a row block's rows
    // stay in L2 across the panels as a packed block would. (Packing it cost
    // its own pass over A: the batched 16 x 256 x 512 x 256 matmul ran 3.6%
    // slower with it, 384^3 to 1024^3 1-3%, 1536^3 to 2048^3 the same; a
    // transposed A read in place ran 1024^3 13% slower, the A-in-L1 order
    // 256 x 1024 x 16384 1-2%.)
    // (Where B's panels are the compiler's, A is packed where B would have
    // been packed at run time: a few rows' tiles, each column panel of a
    // matrix-vector product, would pack it again for little.)
    bool rhsPackedAtRunTime =
        !panelsCompiled || layout.rhsTransposed || m >= kPackMinRows;
    if (packed && rhsPackedAtRunTime && n / nr >= kMinPanelsToPackLhs &&
        (layout.lhsTransposed || aInL1)) {
      lhsPacked = memref::AllocOp::create(
          b, loc,
          MemRefType::get({blocks + 1, std::max(rowBlock, mr) / mr, kBlock, mr},
                          getElementTypeOrSelf(lhs.getType())),
          b.getI64IntegerAttr(kPackAlignment));
    }
    int64_t remainder = m - fullRows;
    // Where B's micro-panel stays in L1, the remainder rows (fewer than a
    // tile) are one more tile of the last block, which meets each panel
    // while the block's other tiles have it in L1. (A block of their own
    // met every panel in L2 or L3 for one tile: 1024^3 spent 1.4% of its
    // time on 0.4% of its multiply-adds, the batched 16 x 256 x 512 x 256
    // more.) In the other order they are the last iteration of the same
    // loop, so that a thread does them while the other finishes its last
    // block.
    bool tailInLastBlock = remainder > 0 && blocks > 0 && !aInL1;
    // Block `index`'s rows.
    auto body = [&](OpBuilder &nested, Value index) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nested.getInsertionBlock(),
                          nested.getInsertionPoint());
      auto fullBlock = [&] {
        auto [i0, i1] = rowBlocks.bounds(b, loc, index);
        Tail tail;
        if (tailInLastBlock)
          tail = {remainder, fullRows, cst(blocks),
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index,
                                        cst(blocks - 1))};
        emitRows(mr, i0, i1, index, rowBlocks.tiles, tail);
      };
      if (remainder == 0 || blocks == 0 || tailInLastBlock) {
        fullBlock();
        return;
      }
      Value isFull = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           index, cst(blocks));
      auto branches = scf::IfOp::create(b, loc, isFull, /*withElse=*/true);
      b.setInsertionPointToStart(branches.thenBlock());
      fullBlock();
      b.setInsertionPointToStart(branches.elseBlock());
      emitRows(remainder, cst(fullRows), cst(m), cst(blocks), 1, Tail());
    };
    int64_t iterations =
        blocks + (remainder > 0 && blocks > 0 && !tailInLastBlock ? 1 : 0);
    if (iterations > 0 && parallel) {
      scf::ParallelOp::create(b, loc, ValueRange{cst(0)},
                              ValueRange{cst(iterations)}, ValueRange{cst(1)},
                              [&](OpBuilder &nested, Location, ValueRange ivs) {
                                body(nested, ivs[0]);
                              });
    } else if (iterations > 0) {
      forLoop(cst(0), cst(iterations), 1, [&](Value index) { body(b, index); });
    } else if (remainder > 0) {
      emitRows(remainder, cst(0), cst(m), cst(0), 1, Tail());
    }
    if (packed && ownsPacked)
      memref::DeallocOp::create(b, loc, packed);
    if (lhsPacked)
      memref::DeallocOp::create(b, loc, lhsPacked);
  }

  /// Starts every element of C at `value` instead of reading C: the matmul
  /// then overwrites C (the fill before it folded in; see initialFill).
  MatmulEmitter &withInitialValue(TypedAttr value) {
    initialValue = value;
    return *this;
  }

  /// Reads a B that is not transposed as it is, never packing it (see
  /// JeetCpuMatmulPass::ownsPanels).
  MatmulEmitter &withoutRhsPacking() {
    mayPackRhs = false;
    return *this;
  }

  /// Copies B's full panels of `nr` columns into a new (panel, k, column)
  /// buffer: a kernel then reads its panel of B as one contiguous stream
  /// instead of rows a whole B row apart, which alias in L1 when that stride
  /// is a multiple of 4 KiB and cross pages at every step. The panels are
  /// copied in parallel (an scf.parallel; nested in another parallel loop it
  /// runs in sequence) unless `parallel` is false. The caller frees the
  /// buffer.
  static Value packRhs(OpBuilder &b, Location loc, Value rhs, int64_t nr,
                       bool transposed, bool parallel = true) {
    auto type = cast<MemRefType>(rhs.getType());
    Value packed = memref::AllocOp::create(
        b, loc,
        MemRefType::get({numPanels(type, nr, transposed),
                         type.getDimSize(transposed ? 1 : 0), nr},
                        type.getElementType()),
        b.getI64IntegerAttr(kPackAlignment));
    packRhsInto(b, loc, rhs, nr, transposed, packed, /*first=*/Value(),
                parallel);
    return packed;
  }

  /// How many panels packRhs makes of a B of `type`.
  static int64_t numPanels(MemRefType type, int64_t nr, bool transposed) {
    if (transposed)
      return llvm::divideCeil(type.getDimSize(0), nr);
    return type.getDimSize(1) / nr;
  }

  /// packRhs into `packed`, from its panel `first` on (0 when null).
  static void packRhsInto(OpBuilder &b, Location loc, Value rhs, int64_t nr,
                          bool transposed, Value packed, Value first,
                          bool parallel = true) {
    if (transposed) {
      packTransposedRhs(b, loc, rhs, nr, packed, first, parallel);
      return;
    }
    auto type = cast<MemRefType>(rhs.getType());
    int64_t k = type.getDimSize(0), panels = type.getDimSize(1) / nr;
    Type rhsElement = type.getElementType();
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // The constants first: the body builder below is `b` itself.
    Value zero = cst(0), one = cst(1), count = cst(panels), width = cst(nr),
          depth = cst(k);
    SmallVector<std::pair<Value, VectorType>> segments;
    for (auto [offset, size] : segmentsOf(nr))
      segments.push_back({cst(offset), VectorType::get({size}, rhsElement)});
    // Chunks of rows, each row read whole (the panels' columns in turn):
    // the hardware's prefetchers follow a row, not a panel's 256 bytes of
    // each row a whole row apart (which they lost at every row).
    Value chunk = cst(kPackRowChunk);
    panelLoop(
        b, loc, zero, cst(llvm::divideCeil(k, kPackRowChunk)), one, parallel,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange ivs) {
          Value firstRow =
              arith::MulIOp::create(nested, nestedLoc, ivs[0], chunk);
          Value lastRow = arith::MinSIOp::create(
              nested, nestedLoc,
              arith::AddIOp::create(nested, nestedLoc, firstRow, chunk), depth);
          scf::ForOp::create(
              nested, nestedLoc, firstRow, lastRow, one, ValueRange{},
              [&](OpBuilder &rows, Location rowLoc, Value kk, ValueRange) {
                scf::ForOp::create(
                    rows, rowLoc, zero, count, one, ValueRange{},
                    [&](OpBuilder &body, Location bodyLoc, Value p,
                        ValueRange) {
                      Value j = arith::MulIOp::create(body, bodyLoc, p, width);
                      Value panel =
                          first ? arith::AddIOp::create(body, bodyLoc, p, first)
                                : p;
                      for (auto [offset, type] : segments) {
                        Value col =
                            arith::AddIOp::create(body, bodyLoc, j, offset);
                        Value row = vector::LoadOp::create(
                            body, bodyLoc, type, rhs, ValueRange{kk, col});
                        vector::StoreOp::create(body, bodyLoc, row, packed,
                                                ValueRange{panel, kk, offset});
                      }
                      scf::YieldOp::create(body, bodyLoc);
                    });
                scf::YieldOp::create(rows, rowLoc);
              });
        });
  }

  /// packRhs for a B held transposed, as (n, k): every panel, the partial
  /// last one too (its columns past n are left unset and never read). Each
  /// column of B, a row of the buffer, is read contiguously. In full panels
  /// of f32, blocks of 16 columns by 16 steps of k are read as 16 vectors,
  /// transposed in registers (transposeRows: a quarter of an instruction
  /// an element) and stored as 16 rows of the panel; the steps of k past
  /// the last whole block, and a partial last panel, one element at a time.
  static void packTransposedRhs(OpBuilder &b, Location loc, Value rhs,
                                int64_t nr, Value packed, Value first,
                                bool parallel) {
    auto type = cast<MemRefType>(rhs.getType());
    int64_t n = type.getDimSize(0), k = type.getDimSize(1);
    int64_t panels = llvm::divideCeil(n, nr);
    bool blocked = type.getElementType().isF32() && nr % kTransposeBlock == 0 &&
                   k >= kTransposeBlock && n >= nr;
    int64_t blockedPanels = blocked ? n / nr : 0;
    int64_t blockedDepth = blocked ? k / kTransposeBlock * kTransposeBlock : 0;
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value zero = cst(0), one = cst(1), count = cst(panels), width = cst(nr),
          columns = cst(n), depth = cst(k), fullPanels = cst(blockedPanels),
          fullDepth = cst(blockedDepth), block = cst(kTransposeBlock);
    auto rowType = VectorType::get({kTransposeBlock}, type.getElementType());
    panelLoop(
        b, loc, zero, count, one, parallel,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange ivs) {
          Value j = arith::MulIOp::create(nested, nestedLoc, ivs[0], width);
          Value panel =
              first ? arith::AddIOp::create(nested, nestedLoc, ivs[0], first)
                    : ivs[0];
          Value end = arith::MinSIOp::create(
              nested, nestedLoc,
              arith::AddIOp::create(nested, nestedLoc, j, width), columns);
          Value start = zero;
          if (blocked) {
            Value full = arith::CmpIOp::create(nested, nestedLoc,
                                               arith::CmpIPredicate::slt,
                                               ivs[0], fullPanels);
            start = arith::SelectOp::create(nested, nestedLoc, full, fullDepth,
                                            zero);
            auto ifFull = scf::IfOp::create(nested, nestedLoc, full);
            OpBuilder then = ifFull.getThenBodyBuilder();
            scf::ForOp::create(
                then, nestedLoc, zero, fullDepth, block, ValueRange{},
                [&](OpBuilder &body, Location bodyLoc, Value k0, ValueRange) {
                  emitTransposedBlocks(body, bodyLoc, rhs, packed, panel, j, k0,
                                       nr, rowType);
                  scf::YieldOp::create(body, bodyLoc);
                });
          }
          auto column = scf::ForOp::create(nested, nestedLoc, j, end, one);
          OpBuilder body = OpBuilder::atBlockBegin(column.getBody());
          Value col = column.getInductionVar();
          Value offset = arith::SubIOp::create(body, nestedLoc, col, j);
          scf::ForOp::create(
              body, nestedLoc, start, depth, one, ValueRange{},
              [&](OpBuilder &inner, Location innerLoc, Value kk, ValueRange) {
                Value value = memref::LoadOp::create(inner, innerLoc, rhs,
                                                     ValueRange{col, kk});
                memref::StoreOp::create(inner, innerLoc, value, packed,
                                        ValueRange{panel, kk, offset});
                scf::YieldOp::create(inner, innerLoc);
              });
        });
  }

  /// Steps k0 to k0 + 16 of the `nr` columns of B from column `j` (rows of
  /// the transposed buffer `rhs`) into `panel` of `packed`, 16 columns at a
  /// time: 16 rows of the buffer loaded, transposed, stored as 16 rows. The
  /// blocks are a loop, not unrolled: instruction selection's shuffle
  /// combining grows faster than the block it combines (four blocks of 64
  /// shuffles in one basic block took 4-5x the time of one).
  static void emitTransposedBlocks(OpBuilder &b, Location loc, Value rhs,
                                   Value packed, Value panel, Value j, Value k0,
                                   int64_t nr, VectorType rowType) {
    auto cst = [&](OpBuilder &builder, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, v);
    };
    scf::ForOp::create(
        b, loc, cst(b, 0), cst(b, nr), cst(b, kTransposeBlock), ValueRange{},
        [&](OpBuilder &body, Location bodyLoc, Value c0, ValueRange) {
          Value first = arith::AddIOp::create(body, bodyLoc, j, c0);
          SmallVector<Value> rows;
          for (int64_t i = 0; i < kTransposeBlock; ++i) {
            Value col =
                arith::AddIOp::create(body, bodyLoc, first, cst(body, i));
            rows.push_back(vector::LoadOp::create(body, bodyLoc, rowType, rhs,
                                                  ValueRange{col, k0}));
          }
          transposeRows(body, bodyLoc, rows);
          for (int64_t i = 0; i < kTransposeBlock; ++i) {
            Value kk = arith::AddIOp::create(body, bodyLoc, k0, cst(body, i));
            vector::StoreOp::create(body, bodyLoc, rows[i], packed,
                                    ValueRange{panel, kk, c0});
          }
          scf::YieldOp::create(body, bodyLoc);
        });
  }

  /// Transposes the square block held as `rows` (n vectors of n elements, n
  /// a power of two) in place, in log2(n) rounds of n two-source shuffles:
  /// the round of width h swaps, in every 2h x 2h block, the h x h block
  /// above the diagonal with the one below it (rows i and i + h exchange
  /// halves of each 2h-element group). For 16 x 16 that is 64 shuffles,
  /// each one instruction (an unpack, a lane shuffle or a two-source
  /// permute). (A vector.transpose of the block instead became one move
  /// per element under the canonicalizer: ~960 shuffles per 64-column block
  /// after LLVM's combining, most of instruction selection's time in a
  /// graph that packs a transposed B.)
  static void transposeRows(OpBuilder &b, Location loc,
                            MutableArrayRef<Value> rows) {
    int64_t n = rows.size();
    assert(llvm::isPowerOf2_64(n) && "a block of a power of two rows");
    for (int64_t h = n / 2; h >= 1; h /= 2) {
      SmallVector<int64_t> low, high;
      for (int64_t group = 0; group < n; group += 2 * h) {
        for (int64_t t = 0; t < h; ++t)
          low.push_back(group + t);
        for (int64_t t = 0; t < h; ++t)
          low.push_back(n + group + t);
      }
      for (int64_t group = 0; group < n; group += 2 * h) {
        for (int64_t t = 0; t < h; ++t)
          high.push_back(group + h + t);
        for (int64_t t = 0; t < h; ++t)
          high.push_back(n + group + h + t);
      }
      for (int64_t i = 0; i < n; ++i) {
        if (i & h)
          continue;
        Value upper = rows[i], lower = rows[i + h];
        rows[i] = vector::ShuffleOp::create(b, loc, upper, lower, low);
        rows[i + h] = vector::ShuffleOp::create(b, loc, upper, lower, high);
      }
    }
  }

  /// Whether a parallel matmul of `m` x `n` shares out its column panels
  /// (emitColumnPanels) rather than its row blocks: too few rows for the
  /// threads, enough columns for two panels.
  static bool sharesColumnPanels(int64_t m, int64_t n, const TileSizes &sizes) {
    return m < kFewRowBlocks * sizes.registerRows &&
           n >= 2 * sizes.registerCols;
  }

  /// The width of emitColumnPanels' panels of `n` columns: a multiple of the
  /// register tile, about kPanelsPerMatmul of them.
  static int64_t columnPanelWidth(int64_t n, const TileSizes &sizes) {
    int64_t nr = sizes.registerCols;
    return std::max<int64_t>(
        nr, llvm::divideCeil(llvm::divideCeil(n, kPanelsPerMatmul), nr) * nr);
  }

  /// Columns [j0, j0 + width) of C = A * B (B's rows, for a transposed B) as
  /// a sequential matmul of all rows, at `builder`'s insertion point.
  static void emitColumnPanel(OpBuilder &builder, Location loc, Value lhs,
                              Value rhs, Value acc, Value j0, int64_t width,
                              const TileSizes &sizes, Layout layout,
                              TypedAttr initialValue) {
    auto columns = [&](Value memref, bool transposed) -> Value {
      auto type = cast<MemRefType>(memref.getType());
      unsigned colDim = transposed ? 0 : 1;
      SmallVector<OpFoldResult> offsets(2, builder.getIndexAttr(0));
      SmallVector<OpFoldResult> extents = {
          builder.getIndexAttr(type.getDimSize(0)),
          builder.getIndexAttr(type.getDimSize(1))};
      offsets[colDim] = j0;
      extents[colDim] = builder.getIndexAttr(width);
      SmallVector<OpFoldResult> strides(2, builder.getIndexAttr(1));
      return memref::SubViewOp::create(builder, loc, memref, offsets, extents,
                                       strides);
    };
    // A constant B's panels are the compiler's: the slice's are those from
    // j0 on (j0 is a multiple of the register tile).
    std::optional<PackedPanels> panels;
    if (Value constant = jeet::cpu::constantPanels(
            builder, loc, rhs, sizes.registerCols, layout.rhsTransposed))
      panels = PackedPanels{
          constant,
          arith::DivUIOp::create(
              builder, loc, j0,
              arith::ConstantIndexOp::create(builder, loc, sizes.registerCols)),
          /*compiled=*/true};
    MatmulEmitter(builder, loc, lhs, columns(rhs, layout.rhsTransposed),
                  columns(acc, false), sizes, layout, panels)
        .withInitialValue(initialValue)
        .emit(/*parallel=*/false);
  }

  /// One scf.parallel over the batches (`lbs` to `ubs`, none for a 2-D
  /// matmul) and the column panels of `n` columns (columnPanelWidth each);
  /// then the columns that do not fill a panel, one smaller panel per batch.
  /// `panelAt(builder, batch, j0, width)` emits one panel.
  static void emitPanelLoop(
      OpBuilder &b, Location loc, ValueRange lbs, ValueRange ubs,
      ValueRange steps, int64_t n, const TileSizes &sizes,
      function_ref<void(OpBuilder &, ValueRange, Value, int64_t)> panelAt) {
    int64_t panel = columnPanelWidth(n, sizes);
    int64_t full = n / panel * panel;
    SmallVector<Value> loopLbs(lbs), loopUbs(ubs), loopSteps(steps);
    loopLbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    loopUbs.push_back(arith::ConstantIndexOp::create(b, loc, full));
    loopSteps.push_back(arith::ConstantIndexOp::create(b, loc, panel));
    scf::ParallelOp::create(b, loc, loopLbs, loopUbs, loopSteps,
                            [&](OpBuilder &nested, Location, ValueRange ivs) {
                              panelAt(nested, ivs.drop_back(), ivs.back(),
                                      panel);
                            });
    if (n > full)
      scf::buildLoopNest(
          b, loc, lbs, ubs, steps,
          [&](OpBuilder &nested, Location, ValueRange ivs) {
            panelAt(nested, ivs,
                    arith::ConstantIndexOp::create(nested, loc, full),
                    n - full);
          });
  }

private:
  /// The loop over B's panels of a packing: an scf.parallel, or with
  /// `parallel` false an scf.for.
  static void
  panelLoop(OpBuilder &b, Location loc, Value lb, Value ub, Value step,
            bool parallel,
            function_ref<void(OpBuilder &, Location, ValueRange)> body) {
    if (parallel)
      scf::ParallelOp::create(b, loc, ValueRange{lb}, ValueRange{ub},
                              ValueRange{step}, body);
    else
      scf::buildLoopNest(b, loc, ValueRange{lb}, ValueRange{ub},
                         ValueRange{step}, body);
  }

  static constexpr int64_t kFewRowBlocks = 4;
  static constexpr int64_t kPanelsPerMatmul = 8;
  static constexpr int64_t kPackMinRows = 64;
  /// Rows of B per iteration of its packing's parallel loop.
  static constexpr int64_t kPackRowChunk = 32;
  /// Register tiles of rows whose C must fit half of L2 for the order
  /// where B's micro-panel stays in L1 (see emit).
  static constexpr int64_t kMinTilesOfCInL2 = 4;
  /// Row blocks per matmul at least, so that threads can balance them.
  static constexpr int64_t kRowBlocksToBalance = 8;
  /// Interleaved chains of accumulators of a tile of few rows, at most
  /// (see emitKernel).
  static constexpr int64_t kMaxChains = 6;
  /// Steps of k per chain, at least: a shallow matmul waits little.
  static constexpr int64_t kMinChainSteps = 8;
  /// A tile of A is packed when it meets at least this many panels of B.
  static constexpr int64_t kMinPanelsToPackLhs = 2;
  /// f32 elements in a cache line (of 64 bytes).
  static constexpr int64_t kLineFloats = 16;
  static constexpr int64_t kLineBytes = 64;
  /// How many steps of k ahead a kernel prefetches the rows of a B panel
  /// that streams from L2 (~400 cycles at 12 a step, an L2 hit's latency
  /// many times over; 16 and 32 measured the same).
  static constexpr int64_t kRhsPrefetchSteps = 32;
  /// The widest vector of a tile's row (segmentsOf).
  static constexpr int64_t kWidestSegment = 16;
  /// The register tiles whose remainder columns take a masked vector
  /// (tileSegmentsOf): AVX-512's (64 columns), where masked loads and
  /// stores are single instructions at a plain one's cost.
  static constexpr int64_t kMaskedTailRegisterCols = 64;
  /// The side of the square blocks in which a transposed B is packed.
  static constexpr int64_t kTransposeBlock = 16;

  /// The power-of-two vector segments of `width` columns (28 columns are
  /// 16 + 8 + 4), as (offset, width) pairs.
  static SmallVector<std::pair<int64_t, int64_t>> segmentsOf(int64_t width) {
    SmallVector<std::pair<int64_t, int64_t>> segments;
    for (int64_t offset = 0, size = kWidestSegment; offset < width; size /= 2)
      for (; offset + size <= width; offset += size)
        segments.push_back({offset, size});
    return segments;
  }

  /// The vectors of a register tile's `width` columns, as (offset, width,
  /// lanes) triples: segmentsOf(width), all lanes used; but with
  /// `maskTail`, where the last segments, each narrower than 16 lanes, are
  /// two or more, one vector of their total rounded up to a power of two
  /// instead, its lanes past `width` masked off: 9 columns (the 3x3
  /// positions of a network's last convolutions) are one 16-lane vector of
  /// 9 lanes, one FMA a step where 8 + 1 took two, the second scalar.
  static SmallVector<std::tuple<int64_t, int64_t, int64_t>>
  tileSegmentsOf(int64_t width, bool maskTail) {
    int64_t whole = width / kWidestSegment * kWidestSegment;
    int64_t rest = width - whole;
    bool masked = maskTail && llvm::popcount(uint64_t(rest)) > 1;
    SmallVector<std::tuple<int64_t, int64_t, int64_t>> segments;
    for (auto [offset, size] : segmentsOf(masked ? whole : width))
      segments.push_back({offset, size, size});
    if (masked)
      segments.push_back({whole, int64_t(llvm::PowerOf2Ceil(rest)), rest});
    return segments;
  }

  /// Columns in panels of a multiple of the register tile, a few per
  /// thread, in an scf.parallel; each panel is a sequential matmul of all
  /// rows. Columns that do not fill a panel come last, in one smaller one.
  void emitColumnPanels() {
    emitPanelLoop(b, loc, {}, {}, {}, n, sizes,
                  [&](OpBuilder &builder, ValueRange, Value j0, int64_t width) {
                    emitColumnPanel(builder, loc, lhs, rhs, acc, j0, width,
                                    sizes, layout, initialValue);
                  });
  }

  Value cst(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }

  /// A[row, kk], wherever A's layout holds it.
  Value loadLhs(OpBuilder &builder, Location at, Value row, Value kk) {
    if (layout.lhsTransposed)
      return memref::LoadOp::create(builder, at, lhs, ValueRange{kk, row});
    return memref::LoadOp::create(builder, at, lhs, ValueRange{row, kk});
  }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }

  /// An scf.for from lb to ub by `step` whose body `fn` is built with the
  /// emitter's builder inside the loop.
  void forLoop(Value lb, Value ub, int64_t step,
               llvm::function_ref<void(Value)> fn) {
    auto loop = scf::ForOp::create(b, loc, lb, ub, cst(step));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    fn(loop.getInductionVar());
  }

  /// Whether the k-block that a kernel runs is the matmul's first, which
  /// starts its tiles from the initial value and overwrites C: never
  /// without an initial value, always when the depth is one block, else
  /// when `flag` (k0 == 0) holds. One loop over the k-blocks with the flag
  /// in it, rather than the first block peeled off, leaves one copy of the
  /// kernels (and of A's packing) per matmul instead of two: the register
  /// tile's loop, the largest code of a matmul, is then optimised and
  /// compiled once; the flag costs a select before each tile's loop and a
  /// branch after it.
  struct FirstBlock {
    enum Kind { Never, Always, Dynamic } kind = Never;
    Value flag;
  };

  /// The remainder rows of a matmul (fewer than a register tile) computed
  /// as one more tile of a row block (see emit): `rows` rows from row
  /// `first`, their A packed into `slot` where A is packed, when `when`
  /// holds (the block is the last).
  struct Tail {
    int64_t rows = 0, first = 0;
    Value slot, when;
  };

  /// `fn`'s ops, built where the tail's condition holds.
  void ifTail(const Tail &tail, function_ref<void()> fn) {
    auto branch = scf::IfOp::create(b, loc, tail.when, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    fn();
  }

  /// Rows [i0, i1), a multiple of `mr` rows (at least `tiles` tiles of
  /// them), all columns: per k-block, the block of A is packed where
  /// lhsPacked is set (into the slot of row block `blockIndex`), then each
  /// panel of B meets every register tile of rows while it is in L1, each
  /// tile fetching its share of the next panel into L2 as it runs (see
  /// nextPanelShare).
  void emitRows(int64_t mr, Value i0, Value i1, Value blockIndex, int64_t tiles,
                const Tail &tail) {
    int64_t nr = sizes.registerCols;
    int64_t fullCols = n / nr * nr;
    // Rows of the next panel each tile fetches: the block's tiles share the
    // k-block's rows.
    int64_t shareRows = llvm::divideCeil(kBlock, std::max<int64_t>(1, tiles));
    auto block = [&](Value k0, FirstBlock first) {
      Value k1 = min(add(k0, cst(kBlock)), cst(k));
      Value slot;
      if (lhsPacked) {
        slot = blockIndex;
        packLhs(mr, slot, i0, i1, k0, k1);
        if (tail.rows)
          ifTail(tail, [&] {
            packLhs(tail.rows, tail.slot, cst(tail.first),
                    cst(tail.first + tail.rows), k0, k1);
          });
      }
      // The tail's tile at column `j`, `width` columns.
      auto tailKernel = [&](Value j, int64_t width) {
        if (tail.rows)
          ifTail(tail, [&] {
            Value row = cst(tail.first);
            emitKernel(tail.rows, width, row, j, k0, k1, row,
                       lhsPacked ? tail.slot : Value(), first, L2Share());
          });
      };
      int64_t colBlock = std::max(nr, sizes.colBlock / nr * nr);
      if (fullCols > 0 && aInL1) {
        // A's micro-panel in L1, B's column block in L2 (see
        // chooseCacheBlocks).
        forLoop(cst(0), cst(fullCols), colBlock, [&](Value j0) {
          Value j1 = fullCols > colBlock
                         ? min(add(j0, cst(colBlock)), cst(fullCols))
                         : cst(fullCols);
          forLoop(i0, i1, mr, [&](Value i) {
            forLoop(j0, j1, nr, [&](Value j) {
              emitKernel(mr, nr, i, j, k0, k1, i0, slot, first, L2Share());
            });
          });
        });
      } else if (fullCols > 0) {
        forLoop(cst(0), cst(fullCols), nr, [&](Value j) {
          forLoop(i0, i1, mr, [&](Value i) {
            emitKernel(mr, nr, i, j, k0, k1, i0, slot, first,
                       nextPanelShare(mr, i, i0, j, k0, k1, shareRows));
          });
          tailKernel(j, nr);
        });
      }
      if (n > fullCols) {
        forLoop(i0, i1, mr, [&](Value i) {
          emitKernel(mr, n - fullCols, i, cst(fullCols), k0, k1, i0, slot,
                     first, L2Share());
        });
        tailKernel(cst(fullCols), n - fullCols);
      }
    };
    if (initialValue && k <= kBlock) {
      block(cst(0), {FirstBlock::Always, Value()});
      return;
    }
    forLoop(cst(0), cst(k), kBlock, [&](Value k0) {
      FirstBlock first;
      if (initialValue)
        first = {FirstBlock::Dynamic,
                 arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, k0,
                                       cst(0))};
      block(k0, first);
    });
  }

  /// Lines of packed B that a kernel fetches into L2 as it runs (see
  /// nextPanelShare): `perStep` lines per step of k, from element `first`
  /// of the panels viewed as one dimension (`flat`), the step's lines
  /// clamped to the share's last line (`lastLine`, from `first`).
  struct L2Share {
    Value flat, first, lastLine;
    int64_t perStep = 0, lineElements = 0;
  };

  /// The share of the next panel of B that the kernel of tile `i` and the
  /// panel at column `j` fetches into L2 as it runs, where B's panels
  /// outgrow half of L2; none otherwise. Every tile of a row block reads
  /// each panel from L2, but the first tile to meet it met it in L3 or
  /// memory (at 1024^3 one meeting in 22, ~4% of the matmul's time). The
  /// next panel's rows of the k-block (past the last full panel, the first
  /// panel's rows of the next k-block) are shared among the row block's
  /// tiles: tile t fetches rows [t * shareRows, (t + 1) * shareRows),
  /// spread over its kernel's steps (all of them at once before the kernel
  /// gave half the gain, the burst presumably waiting for fill buffers). Panels
  /// that fit stay in L2 from one row block to the next, and fetching lines
  /// already there costs more than it saves (the batched 16 x 256 x 512 x 256
  /// matmul ran 2-4% slower). (In the order where A's micro-panel stays in L1,
  /// fetching the next column block filled L2 with two blocks: 5% slower at
  /// 2048^3.)
  L2Share nextPanelShare(int64_t mr, Value i, Value i0, Value j, Value k0,
                         Value k1, int64_t shareRows) {
    int64_t nr = sizes.registerCols, fullPanels = n / nr;
    if (!packed || !panelsOutgrowL2)
      return {};
    auto type = cast<MemRefType>(packed.getType());
    if (!type.getLayout().isIdentity() || type.getRank() != 3)
      return {};
    L2Share share;
    share.lineElements =
        kLineBytes * 8 / type.getElementType().getIntOrFloatBitWidth();
    int64_t rowLines = std::max<int64_t>(1, nr / share.lineElements);
    share.perStep = llvm::divideCeil(shareRows * rowLines, kBlock);
    Value tile = arith::DivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, i, i0), cst(mr));
    Value first = add(k0, arith::MulIOp::create(b, loc, tile, cst(shareRows)));
    Value last = min(add(first, cst(shareRows)), k1);
    // The next panel, relative to this matmul's first one; past the last
    // full panel, the first again with the next k-block's rows (none after
    // the last k-block: the share is then empty).
    Value next = add(arith::DivUIOp::create(b, loc, j, cst(nr)), cst(1));
    Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, next,
                                        cst(fullPanels));
    next = arith::SelectOp::create(
        b, loc, wraps, arith::SubIOp::create(b, loc, next, cst(fullPanels)),
        next);
    Value shift = arith::SelectOp::create(b, loc, wraps, cst(kBlock), cst(0));
    first = add(first, shift);
    last = min(add(last, shift), cst(k));
    next = add(firstPanel, next);
    // An empty share fetches one line of the buffer, in bounds.
    Value lines = arith::MulIOp::create(
        b, loc, arith::SubIOp::create(b, loc, last, first), cst(rowLines));
    share.lastLine = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, lines, cst(1)), cst(0));
    // Element (next, first, 0) of the (panel, k, column) buffer.
    Value element = arith::MulIOp::create(
        b, loc,
        add(arith::MulIOp::create(b, loc, next, cst(type.getDimSize(1))),
            first),
        cst(type.getDimSize(2)));
    share.first = min(element, cst(type.getNumElements() - share.lineElements));
    share.flat = memref::CollapseShapeOp::create(
        b, loc, packed, ArrayRef<ReassociationIndices>{{0, 1, 2}});
    return share;
  }

  /// The compiler's panels of a constant B as one dimension (`flat`), where
  /// the module's constants outgrow L2 so that each kernel's panel streams
  /// from L3 or memory: `first` is element (panel, 0, 0), `rowElements` a
  /// step of k's, `lastRow` the first of the buffer's last row.
  struct Streamed {
    Value flat, first;
    int64_t rowElements = 0, lastRow = 0;
  };

  /// The panels that kernels read where B is a constant whose panels the
  /// compiler laid out (constantPanels) and the module's constants together
  /// outgrow L2: a call reads every one of them, so each matmul meets its
  /// panels in L3 or memory (a network's weights; a 1x1 convolution of 320
  /// -> 1280 channels at 3x3 is 9 rows by 1.6 MB of B, each panel read by
  /// one tile of 6 rows and one of 3). The hardware's prefetchers lag on
  /// such a panel's rows (256 bytes a step of k, one panel after another);
  /// the kernel fetches the row kRhsPrefetchSteps ahead itself, and so the
  /// next panel's first rows near its own end: mnasnet1_0 at 96x96 ran
  /// ~17% faster. Where the constants fit, their panels stay in L2 from
  /// call to call and the fetches cost more than they save (the 192 ->
  /// 1152 channels at 3x3 alone, 885 KB of weights, 14% slower with them).
  /// None where the panels are packed at run time.
  Streamed streamedPanels(Value panel) {
    if (!panelsCompiled || !packed)
      return {};
    auto type = cast<MemRefType>(packed.getType());
    if (!type.getLayout().isIdentity() || type.getRank() != 3 ||
        !type.hasStaticShape())
      return {};
    if (!sizes.constantsOutgrowL2)
      return {};
    Streamed stream;
    stream.rowElements = type.getDimSize(2);
    stream.lastRow = type.getNumElements() - stream.rowElements;
    stream.first = arith::MulIOp::create(
        b, loc, panel, cst(type.getDimSize(1) * type.getDimSize(2)));
    stream.flat = memref::CollapseShapeOp::create(
        b, loc, packed, ArrayRef<ReassociationIndices>{{0, 1, 2}});
    return stream;
  }

  /// Copies A[i0:i1, k0:k1] into lhsPacked[slot] as (tile, k, row): the
  /// kernel of each `mr`-row tile then reads its A values for one step of k
  /// from one cache line instead of `mr` rows a whole A row apart.
  void packLhs(int64_t mr, Value slot, Value i0, Value i1, Value k0, Value k1) {
    forLoop(i0, i1, mr, [&](Value i) {
      Value tile = arith::DivUIOp::create(
          b, loc, arith::SubIOp::create(b, loc, i, i0), cst(mr));
      forLoop(k0, k1, 1, [&](Value kk) {
        Value kRel = arith::SubIOp::create(b, loc, kk, k0);
        for (int64_t r = 0; r < mr; ++r) {
          Value value = loadLhs(b, loc, r == 0 ? i : add(i, cst(r)), kk);
          memref::StoreOp::create(b, loc, value, lhsPacked,
                                  ValueRange{slot, tile, kRel, cst(r)});
        }
      });
    });
  }

  /// C[i:i+mr, j:j+nr] += A[i:i+mr, k0:k1] * B[k0:k1, j:j+nr], with the
  /// C tile in registers: each row as vectors of power-of-two widths (a
  /// remainder of 28 columns is 16 + 8 + 4), which LLVM maps onto whole
  /// registers. The tile accumulates from zeros (or from the initial value,
  /// in the first k-block, which then stores it over C) and is added to C
  /// after the loop over k: C's rows, prefetched before the loop, are then
  /// in L1. Loaded before the loop, C's tile (rows a whole C row apart,
  /// mostly in L3 or memory) stalled every FMA chain of the kernel's first
  /// steps until it arrived.
  void emitKernel(int64_t mr, int64_t nr, Value i, Value j, Value k0, Value k1,
                  Value i0, Value slot, FirstBlock first,
                  const L2Share &share) {
    SmallVector<std::pair<Value, VectorType>> segments;
    SmallVector<int64_t> offsets;
    // The lanes of a masked segment (null: all), and zeros for the lanes
    // its loads leave off.
    SmallVector<Value> masks, offLanes;
    Type rhsElement = getElementTypeOrSelf(rhs.getType());
    bool maskTail = sizes.registerCols >= kMaskedTailRegisterCols &&
                    elementType.isF32() && rhsElement.isF32();
    for (auto [offset, width, lanes] : tileSegmentsOf(nr, maskTail)) {
      auto type = VectorType::get({width}, elementType);
      segments.push_back({offset == 0 ? j : add(j, cst(offset)), type});
      offsets.push_back(offset);
      if (lanes == width) {
        masks.push_back(Value());
        offLanes.push_back(Value());
        continue;
      }
      masks.push_back(jeet::cpu::laneMask(b, loc, width, lanes));
      offLanes.push_back(arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(type, b.getFloatAttr(elementType, 0))));
    }
    // A full panel of B is read from its packed copy (so is a partial one
    // of a transposed B, or of the compiler's panels), and A from its
    // packed block when there is one.
    Value panel;
    if (packed &&
        (nr == sizes.registerCols || layout.rhsTransposed || panelsCompiled))
      panel = add(firstPanel,
                  arith::DivUIOp::create(b, loc, j, cst(sizes.registerCols)));
    Value lhsTile;
    if (slot)
      lhsTile = arith::DivUIOp::create(
          b, loc, arith::SubIOp::create(b, loc, i, i0), cst(mr));
    SmallVector<Value> rows, tile;
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 0.0));
    Value initial = zero;
    if (first.kind == FirstBlock::Always)
      initial = arith::ConstantOp::create(b, loc, initialValue);
    else if (first.kind == FirstBlock::Dynamic)
      initial = arith::SelectOp::create(
          b, loc, first.flag, arith::ConstantOp::create(b, loc, initialValue),
          zero);
    for (int64_t r = 0; r < mr; ++r) {
      rows.push_back(r == 0 ? i : add(i, cst(r)));
      // C is prefetched for the additions after the loop (and, where the
      // first block is a flag, for the first block's stores too).
      if (first.kind != FirstBlock::Always)
        for (int64_t offset = 0; offset < nr; offset += kLineFloats)
          memref::PrefetchOp::create(
              b, loc, acc,
              ValueRange{rows.back(), offset == 0 ? j : add(j, cst(offset))},
              /*isWrite=*/true, /*localityHint=*/3, /*isDataCache=*/true);
      for (auto [col, type] : segments)
        tile.push_back(vector::BroadcastOp::create(b, loc, type, initial));
    }
    Value lastStep;
    if (aInL1 && panel)
      lastStep = arith::SubIOp::create(b, loc, k1, cst(1));
    Streamed stream;
    if (panel && !aInL1 && !share.flat)
      stream = streamedPanels(panel);
    // A tile of fewer rows or vectors than a full one (a matrix-vector
    // product's one row, the remainder rows, the columns past the last full
    // panel) has fewer accumulators than the FMA units' latency needs: each
    // step's FMAs wait for the last step's (a 1 x 16 tile on AVX2: 2 FMAs
    // every 5 cycles where 2 a cycle could run; a 6 x 16 remainder of a
    // 6 x 64 tile on AVX-512: 6 FMAs every 4 cycles where 8 could run). It
    // sums `chains` interleaved steps of k into as many tiles of
    // accumulators, about the registers of a full tile, and adds them
    // after the loop. (The steps past the last multiple of `chains` go to
    // the first; matmuls of fewer than kMinChainSteps steps a chain keep
    // one.)
    int64_t fullTileVectors =
        sizes.registerRows *
        std::max<int64_t>(1, sizes.registerCols / kWidestSegment);
    int64_t tileVectors = mr * static_cast<int64_t>(segments.size());
    int64_t chains =
        (aInL1 && panel) || share.flat
            ? 1
            : std::clamp<int64_t>(std::min(fullTileVectors / tileVectors,
                                           kBlock / kMinChainSteps),
                                  1, kMaxChains);
    SmallVector<Value> results;
    auto step = [&](OpBuilder &nested, Location nestedLoc, Value kk,
                    ValueRange sums) -> SmallVector<Value> {
      // f16/bf16 operands are widened to the f32 accumulator as they
      // are loaded (as linalg.matmul's semantics cast them).
      auto widen = [&](Value value) -> Value {
        if (getElementTypeOrSelf(value.getType()) == elementType)
          return value;
        Type wide = elementType;
        if (auto vectorType = dyn_cast<VectorType>(value.getType()))
          wide = vectorType.clone(elementType);
        return arith::ExtFOp::create(nested, nestedLoc, wide, value);
      };
      SmallVector<Value> rhsRow;
      for (auto [s, segment] : llvm::enumerate(segments)) {
        auto [col, type] = segment;
        Value base = panel ? packed : rhs;
        SmallVector<Value> indices =
            panel ? SmallVector<Value>{panel, kk, cst(offsets[s])}
                  : SmallVector<Value>{kk, col};
        Value row =
            masks[s]
                ? vector::MaskedLoadOp::create(nested, nestedLoc, type, base,
                                               indices, masks[s], offLanes[s])
                      .getResult()
                : vector::LoadOp::create(nested, nestedLoc,
                                         type.clone(rhsElement), base, indices)
                      .getResult();
        rhsRow.push_back(widen(row));
      }
      // Fetches into L1 the lines of a row of B that the tile's segments
      // read, `at(column)` indexing the row's element at `column`.
      auto prefetchRow = [&](Value memref,
                             function_ref<SmallVector<Value>(Value)> at) {
        int64_t lineElements =
            kLineBytes * 8 /
            getElementTypeOrSelf(memref.getType()).getIntOrFloatBitWidth();
        for (auto [s, segment] : llvm::enumerate(segments))
          for (int64_t line = 0; line < segment.second.getNumElements();
               line += lineElements)
            memref::PrefetchOp::create(
                nested, nestedLoc, memref,
                at(arith::ConstantIndexOp::create(nested, nestedLoc,
                                                  offsets[s] + line)),
                /*isWrite=*/false, /*localityHint=*/3,
                /*isDataCache=*/true);
      };
      auto stepsAhead = [&] {
        return arith::AddIOp::create(nested, nestedLoc, kk,
                                     arith::ConstantIndexOp::create(
                                         nested, nestedLoc, kRhsPrefetchSteps));
      };
      // B's panel streams from L2: its row kRhsPrefetchSteps ahead (the
      // k-block's last, near its end) is fetched into L1.
      if (aInL1 && panel) {
        Value ahead =
            arith::MinSIOp::create(nested, nestedLoc, stepsAhead(), lastStep);
        prefetchRow(packed, [&](Value column) -> SmallVector<Value> {
          return {panel, ahead, column};
        });
      }
      // The compiler's panels streaming from L3 or memory: the row
      // kRhsPrefetchSteps ahead into L1, past the panel's last row the next
      // panel's first (see streamedPanels).
      if (stream.flat) {
        Value ahead =
            arith::MulIOp::create(nested, nestedLoc, stepsAhead(),
                                  arith::ConstantIndexOp::create(
                                      nested, nestedLoc, stream.rowElements));
        ahead = arith::MinSIOp::create(
            nested, nestedLoc,
            arith::AddIOp::create(nested, nestedLoc, stream.first, ahead),
            arith::ConstantIndexOp::create(nested, nestedLoc, stream.lastRow));
        prefetchRow(stream.flat, [&](Value column) -> SmallVector<Value> {
          return {arith::AddIOp::create(nested, nestedLoc, ahead, column)};
        });
      }
      // Its share of the next panel into L2 (see nextPanelShare).
      if (share.flat) {
        Value step = arith::MulIOp::create(
            nested, nestedLoc, arith::SubIOp::create(nested, nestedLoc, kk, k0),
            arith::ConstantIndexOp::create(nested, nestedLoc, share.perStep));
        for (int64_t p = 0; p < share.perStep; ++p) {
          Value line = arith::MinSIOp::create(
              nested, nestedLoc,
              p == 0 ? step
                     : arith::AddIOp::create(nested, nestedLoc, step,
                                             arith::ConstantIndexOp::create(
                                                 nested, nestedLoc, p)),
              share.lastLine);
          Value element = arith::AddIOp::create(
              nested, nestedLoc, share.first,
              arith::MulIOp::create(
                  nested, nestedLoc, line,
                  arith::ConstantIndexOp::create(nested, nestedLoc,
                                                 share.lineElements)));
          memref::PrefetchOp::create(nested, nestedLoc, share.flat,
                                     ValueRange{element},
                                     /*isWrite=*/false, /*localityHint=*/1,
                                     /*isDataCache=*/true);
        }
      }
      SmallVector<Value> next;
      Value kRel;
      if (lhsTile)
        kRel = arith::SubIOp::create(nested, nestedLoc, kk, k0);
      for (int64_t r = 0; r < mr; ++r) {
        Value a = widen(lhsTile ? memref::LoadOp::create(
                                      nested, nestedLoc, lhsPacked,
                                      ValueRange{slot, lhsTile, kRel, cst(r)})
                                : loadLhs(nested, nestedLoc, rows[r], kk));
        for (auto [s, segment] : llvm::enumerate(segments)) {
          Value splat =
              vector::BroadcastOp::create(nested, nestedLoc, segment.second, a);
          next.push_back(vector::FMAOp::create(nested, nestedLoc, splat,
                                               rhsRow[s],
                                               sums[r * segments.size() + s]));
        }
      }
      return next;
    };
    if (chains == 1) {
      auto loop = scf::ForOp::create(b, loc, k0, k1, cst(1), tile,
                                     [&](OpBuilder &nested, Location nestedLoc,
                                         Value kk, ValueRange sums) {
                                       scf::YieldOp::create(
                                           nested, nestedLoc,
                                           step(nested, nestedLoc, kk, sums));
                                     });
      results = SmallVector<Value>(loop.getResults());
    } else {
      // The other chains start from zeros (the first holds C's initial
      // value, where there is one).
      SmallVector<Value> sets(tile);
      size_t tileSize = tile.size();
      for (int64_t c = 1; c < chains; ++c)
        for (size_t index = 0; index < tileSize; ++index)
          sets.push_back(vector::BroadcastOp::create(
              b, loc, segments[index % segments.size()].second, zero));
      Value whole = arith::MulIOp::create(
          b, loc,
          arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, k1, k0),
                                 cst(chains)),
          cst(chains));
      Value split = add(k0, whole);
      auto interleaved = scf::ForOp::create(
          b, loc, k0, split, cst(chains), sets,
          [&](OpBuilder &nested, Location nestedLoc, Value kk,
              ValueRange sums) {
            SmallVector<Value> next;
            for (int64_t c = 0; c < chains; ++c) {
              Value kc =
                  c == 0 ? kk
                         : arith::AddIOp::create(nested, nestedLoc, kk,
                                                 arith::ConstantIndexOp::create(
                                                     nested, nestedLoc, c));
              llvm::append_range(next,
                                 step(nested, nestedLoc, kc,
                                      sums.slice(c * tileSize, tileSize)));
            }
            scf::YieldOp::create(nested, nestedLoc, next);
          });
      auto rest = scf::ForOp::create(
          b, loc, split, k1, cst(1),
          interleaved.getResults().take_front(tileSize),
          [&](OpBuilder &nested, Location nestedLoc, Value kk,
              ValueRange sums) {
            scf::YieldOp::create(nested, nestedLoc,
                                 step(nested, nestedLoc, kk, sums));
          });
      // The chains added pairwise: (0 + 1) + (2 + 3), ...
      SmallVector<SmallVector<Value>> partial;
      partial.push_back(SmallVector<Value>(rest.getResults()));
      for (int64_t c = 1; c < chains; ++c)
        partial.push_back(SmallVector<Value>(
            interleaved.getResults().slice(c * tileSize, tileSize)));
      while (partial.size() > 1) {
        SmallVector<SmallVector<Value>> halved;
        for (size_t p = 0; p + 1 < partial.size(); p += 2) {
          SmallVector<Value> sum;
          for (size_t e = 0; e < tileSize; ++e)
            sum.push_back(arith::AddFOp::create(b, loc, partial[p][e],
                                                partial[p + 1][e]));
          halved.push_back(sum);
        }
        if (partial.size() % 2)
          halved.push_back(partial.back());
        partial = std::move(halved);
      }
      results = partial.front();
    }
    // The tile over C (`overwrite`), or added to it.
    auto storeTile = [&](OpBuilder &builder, Location at, bool overwrite) {
      for (int64_t r = 0; r < mr; ++r)
        for (auto [s, segment] : llvm::enumerate(segments)) {
          auto [col, type] = segment;
          Value sum = results[r * segments.size() + s];
          SmallVector<Value> indices = {rows[r], col};
          if (!overwrite) {
            Value old =
                masks[s]
                    ? vector::MaskedLoadOp::create(builder, at, type, acc,
                                                   indices, masks[s],
                                                   offLanes[s])
                          .getResult()
                    : vector::LoadOp::create(builder, at, type, acc, indices)
                          .getResult();
            sum = arith::AddFOp::create(builder, at, old, sum);
          }
          if (masks[s])
            vector::MaskedStoreOp::create(builder, at, acc, indices, masks[s],
                                          sum);
          else
            vector::StoreOp::create(builder, at, sum, acc, indices);
        }
    };
    if (first.kind != FirstBlock::Dynamic) {
      storeTile(b, loc, first.kind == FirstBlock::Always);
      return;
    }
    scf::IfOp::create(
        b, loc, first.flag,
        [&](OpBuilder &builder, Location at) {
          storeTile(builder, at, /*overwrite=*/true);
          scf::YieldOp::create(builder, at);
        },
        [&](OpBuilder &builder, Location at) {
          storeTile(builder, at, /*overwrite=*/false);
          scf::YieldOp::create(builder, at);
        });
  }

  OpBuilder &b;
  Location loc;
  Value lhs, rhs, acc;
  Layout layout;
  /// B's full column panels, contiguous (see packRhs), or null; the index
  /// of this matmul's first panel in it; whether this emitter frees it.
  Value packed, firstPanel;
  bool ownsPacked = true;
  /// Whether `packed` holds the compiler's panels of a constant B.
  bool panelsCompiled = false;
  bool mayPackRhs = true;
  /// The value C starts from instead of its contents, or null.
  TypedAttr initialValue;
  /// A's blocks, packed per row block (see packLhs), or null.
  Value lhsPacked;
  TileSizes sizes;
  int64_t m, n, k;
  /// The k-block of this matmul (see balancedKBlock).
  int64_t kBlock;
  /// Whether each tile's micro-panel of A stays in L1 while B's panels
  /// stream past it from L2 (see chooseCacheBlocks), B's rows then
  /// prefetched kRhsPrefetchSteps ahead.
  bool aInL1 = false;
  /// Whether B's full panels take more than half of L2 (see
  /// nextPanelShare).
  bool panelsOutgrowL2 = false;
  Type elementType;
};

/// The operands (A, B, C) qualify: memrefs of static shape whose rows are
/// contiguous where vectors are loaded (B and C), C of f32, A and B of f32,
/// f16 or bf16 (widened to f32 as they are loaded).
static bool isSupported(ArrayRef<Value> operands) {
  for (auto [index, value] : llvm::enumerate(operands)) {
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type || !type.hasStaticShape())
      return false;
    Type element = type.getElementType();
    bool isAcc = index == operands.size() - 1;
    if (!element.isF32() && (isAcc || !(element.isF16() || element.isBF16())))
      return false;
    if (index > 0 && !type.isLastDimUnitStride())
      return false;
  }
  return true;
}

/// The 2-D matrix of `batched` (its two innermost dimensions) at batch
/// offsets `batchOffsets`, one per leading dimension.
static Value matrixAt(OpBuilder &b, Location loc, Value batched,
                      ArrayRef<OpFoldResult> batchOffsets) {
  auto type = cast<MemRefType>(batched.getType());
  int64_t rank = type.getRank();
  if (rank == 2)
    return batched;
  SmallVector<OpFoldResult> offsets(batchOffsets);
  SmallVector<OpFoldResult> sizes(rank - 2, b.getIndexAttr(1));
  for (int64_t dim = rank - 2; dim < rank; ++dim) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(type.getDimSize(dim)));
  }
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto sliceType = memref::SubViewOp::inferRankReducedResultType(
      {type.getDimSize(rank - 2), type.getDimSize(rank - 1)}, type, offsets,
      sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(sliceType), batched,
                                   offsets, sizes, strides);
}

/// The 2-D matrix of `batched` at batch indices `indices`.
static Value batchSlice(OpBuilder &b, Location loc, Value batched,
                        ValueRange indices) {
  return matrixAt(b, loc, batched, getAsOpFoldResult(indices));
}

/// The matrix of `batched` whose leading dimensions all have size 1, as a
/// 2-D view (static offsets).
static Value unitBatchMatrix(OpBuilder &b, Location loc, Value batched) {
  int64_t batchRank = cast<MemRefType>(batched.getType()).getRank() - 2;
  return matrixAt(b, loc, batched,
                  SmallVector<OpFoldResult>(std::max<int64_t>(batchRank, 0),
                                            b.getIndexAttr(0)));
}

/// A matmul the kernels take: loops (batch..., m, n, k), C indexed by
/// (batch..., m, n), A by (some batch dims in order..., m, k), B likewise by
/// (..., k, n), where A's or B's two matrix dimensions may be swapped (a
/// transposed operand). That is linalg.matmul and linalg.batch_matmul, with
/// their default indexing maps or transposing ones, and the contraction
/// generic that jeet-lower-to-linalg emits when the operands' batch
/// dimensions broadcast (x[b, m, k] @ w[k, n]). For each operand, the loops
/// that index its batch dimensions, and its layout.
struct Contraction {
  SmallVector<unsigned> lhsBatch, rhsBatch;
  int64_t numBatch;
  Layout layout;
};

/// Whether the body of a contraction generic is `C + A * B` (f16/bf16
/// factors widened first).
static bool isMultiplyAdd(linalg::GenericOp op) {
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || body->getOperations().size() > 5)
    return false;
  Value out = body->getArgument(2);
  Value product = add.getLhs() == out ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != out && add.getRhs() != out))
    return false;
  auto unwiden = [](Value value) {
    if (auto ext = value.getDefiningOp<arith::ExtFOp>())
      return ext.getIn();
    return value;
  };
  llvm::SmallDenseSet<Value> factors = {unwiden(mul.getLhs()),
                                        unwiden(mul.getRhs())};
  return factors ==
         llvm::SmallDenseSet<Value>{body->getArgument(0), body->getArgument(1)};
}

static std::optional<Contraction> matchContraction(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic && !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return std::nullopt;
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics())
    return std::nullopt;
  unsigned numLoops = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (numLoops < 3 || iterators.back() != utils::IteratorType::reduction ||
      op.getNumReductionLoops() != 1)
    return std::nullopt;
  unsigned m = numLoops - 3, n = numLoops - 2, k = numLoops - 1;
  Contraction result;
  result.numBatch = m;
  // The operand's batch loops, and whether its matrix dimensions are
  // (col, row) rather than (row, col).
  auto batchDims = [&](AffineMap map, unsigned row, unsigned col,
                       SmallVector<unsigned> &batch, bool &transposed) {
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false) ||
        map.getNumResults() < 2)
      return false;
    ArrayRef<AffineExpr> results = map.getResults();
    AffineExpr rowExpr = getAffineDimExpr(row, op.getContext());
    AffineExpr colExpr = getAffineDimExpr(col, op.getContext());
    AffineExpr first = results[results.size() - 2], second = results.back();
    transposed = first == colExpr && second == rowExpr;
    if (!transposed && (first != rowExpr || second != colExpr))
      return false;
    for (AffineExpr expr : results.drop_back(2)) {
      unsigned dim = cast<AffineDimExpr>(expr).getPosition();
      if (dim >= m || (!batch.empty() && dim <= batch.back()))
        return false;
      batch.push_back(dim);
    }
    return true;
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<unsigned> accBatch;
  bool accTransposed = false;
  if (!batchDims(maps[0], m, k, result.lhsBatch, result.layout.lhsTransposed) ||
      !batchDims(maps[1], k, n, result.rhsBatch, result.layout.rhsTransposed) ||
      !batchDims(maps[2], m, n, accBatch, accTransposed) || accTransposed ||
      accBatch.size() != m)
    return std::nullopt;
  if (generic && !isMultiplyAdd(generic))
    return std::nullopt;
  return result;
}

/// The outermost scf.parallel around `op`, or null.
static scf::ParallelOp outermostParallel(Operation *op) {
  scf::ParallelOp outermost;
  for (auto loop = op->getParentOfType<scf::ParallelOp>(); loop;
       loop = loop->getParentOfType<scf::ParallelOp>())
    outermost = loop;
  return outermost;
}

/// B's panels of every matrix of a batched B (batch, ...), packed once into
/// one buffer: batch b's panels (see MatmulEmitter::packRhs) start at panel
/// b * numPanels.
static Value packBatchedRhs(OpBuilder &b, Location loc, Value base, int64_t nr,
                            bool transposed) {
  auto type = cast<MemRefType>(base.getType());
  auto matrix =
      MemRefType::get(type.getShape().drop_front(), type.getElementType());
  int64_t batches = type.getDimSize(0);
  int64_t panels = MatmulEmitter::numPanels(matrix, nr, transposed);
  Value packed = memref::AllocOp::create(
      b, loc,
      MemRefType::get(
          {batches * panels, matrix.getDimSize(transposed ? 1 : 0), nr},
          type.getElementType()),
      b.getI64IntegerAttr(kPackAlignment));
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto packBatch = [&](OpBuilder &body, Value batch, bool parallelPanels) {
    Value first = arith::MulIOp::create(
        body, loc, batch, arith::ConstantIndexOp::create(body, loc, panels));
    MatmulEmitter::packRhsInto(body, loc, batchSlice(body, loc, base, batch),
                               nr, transposed, packed, first, parallelPanels);
  };
  // Several batches share the threads as one parallel loop: the panels of
  // each alone are too few for a loop of their own (a conv's 4 panels of
  // 144 x 64 went serial), and one loop is one OpenMP region, not one per
  // batch.
  if (batches == 1) {
    packBatch(b, cst(0), /*parallelPanels=*/true);
    return packed;
  }
  scf::ParallelOp::create(b, loc, ValueRange{cst(0)}, ValueRange{cst(batches)},
                          ValueRange{cst(1)},
                          [&](OpBuilder &nested, Location, ValueRange ivs) {
                            packBatch(nested, ivs[0], /*parallelPanels=*/false);
                          });
  return packed;
}

/// `base` itself as its packed panels, when it already has their layout: a
/// B of exactly one panel's columns (`nr`), not transposed, its rows
/// contiguous and one after the other (an identity layout), as attention's
/// V is with a head size of 64 and 64-column register tiles. The panels of
/// a batch of such matrices, (batch, k, nr), are the batch itself; one
/// matrix is expanded to (1, k, nr). Null when a copy is needed.
static Value panelShaped(OpBuilder &b, Location loc, Value base, int64_t nr,
                         bool transposed, unsigned batchRank) {
  auto type = cast<MemRefType>(base.getType());
  if (transposed || !type.getLayout().isIdentity() ||
      type.getRank() != 2 + static_cast<int64_t>(batchRank) ||
      type.getShape().back() != nr)
    return Value();
  if (batchRank)
    return base;
  return memref::ExpandShapeOp::create(
      b, loc,
      MemRefType::get({1, type.getDimSize(0), nr}, type.getElementType()), base,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}});
}

/// For a matmul in the tile `outermost` of a matmul with an epilogue: its B
/// when it is `subview %base[0, %j] [K, w] [1, 1]` of a buffer defined
/// outside the loop, with %j 0 or an induction variable of a parallel loop
/// that starts at 0 and steps by a multiple of `nr`, and w a multiple of
/// `nr`. Then every panel of the slice is a full panel of the base, so the
/// slice's panels can be read from one packed copy of the whole base. A
/// transposed B is sliced by rows instead: `subview %base[%j, 0] [w, K]`.
/// With `batchRank` 1, B is one matrix of a batch (the tile of a
/// batch_matmul): `subview %base[%b, ...] [1, ...]`, and the copy holds the
/// panels of every batch (see packBatchedRhs). A B that is the whole of a
/// buffer defined outside the loop (the blocks of rows of an attention
/// group read all of K and V) is read the same way, as its column 0.
struct HoistableRhs {
  Value base;
  OpFoldResult column, batch;
};

/// Whether `offset` is an induction variable of an scf.parallel that starts
/// at 0 and steps by a multiple of `multiple`.
static bool steppedFromZero(OpFoldResult offset, int64_t multiple) {
  auto iv = dyn_cast_or_null<BlockArgument>(dyn_cast_if_present<Value>(offset));
  auto loop =
      iv ? dyn_cast<scf::ParallelOp>(iv.getOwner()->getParentOp()) : nullptr;
  if (!loop)
    return false;
  unsigned dim = iv.getArgNumber();
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[dim]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[dim]);
  return lb && *lb == 0 && step && *step % multiple == 0;
}

static std::optional<HoistableRhs> hoistableRhs(Value rhs, int64_t nr,
                                                bool transposed,
                                                unsigned batchRank,
                                                scf::ParallelOp outermost) {
  auto definedOutside = [&](Value base) {
    Operation *owner = base.getDefiningOp();
    if (!owner)
      owner = cast<BlockArgument>(base).getOwner()->getParentOp();
    return !outermost->isAncestor(owner);
  };
  auto slice = rhs.getDefiningOp<memref::SubViewOp>();
  if (!slice) {
    auto type = dyn_cast<MemRefType>(rhs.getType());
    // Its panels are the base's, a partial last one included; a B held as
    // (k, n) with no full panel is read where it is.
    if (batchRank || !type || type.getRank() != 2 || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() || !definedOutside(rhs) ||
        (!transposed && type.getDimSize(1) < nr))
      return std::nullopt;
    OpFoldResult zero = IntegerAttr::get(IndexType::get(rhs.getContext()), 0);
    return HoistableRhs{rhs, zero, OpFoldResult()};
  }
  if (slice.getSourceType().getRank() != 2 + batchRank)
    return std::nullopt;
  Value base = slice.getSource();
  auto baseType = cast<MemRefType>(base.getType());
  if (!baseType.hasStaticShape() || !baseType.getLayout().isIdentity())
    return std::nullopt;
  unsigned colDim = batchRank + (transposed ? 0 : 1);
  unsigned kDim = batchRank + (transposed ? 1 : 0);
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  if (!isConstantIntValue(offsets[kDim], 0) ||
      sizes[kDim] != baseType.getDimSize(kDim) ||
      ShapedType::isDynamic(sizes[colDim]) || sizes[colDim] % nr != 0 ||
      (batchRank && sizes[0] != 1) ||
      !llvm::all_of(slice.getStaticStrides(),
                    [](int64_t stride) { return stride == 1; }))
    return std::nullopt;
  if (!isConstantIntValue(offsets[colDim], 0) &&
      !steppedFromZero(offsets[colDim], nr))
    return std::nullopt;
  if (!definedOutside(base))
    return std::nullopt;
  return HoistableRhs{base, offsets[colDim],
                      batchRank ? offsets[0] : OpFoldResult()};
}

/// For the tile of a matmul with an epilogue whose B is
/// `subview %base[0, %j] [K, w] [1, 1]` of a constant (see
/// constantColumnBlocks), with w not a multiple of `nr` (no panels of the
/// base serve it: hoistableRhs) and %j an induction variable of a parallel
/// loop from 0 by a multiple of w: the same columns as block %j / w of the
/// base's blocks of w columns, whose rows are contiguous, at `b`'s insertion
/// point. Null for any other B.
static Value constantTileBlock(OpBuilder &b, Location loc, Value rhs,
                               int64_t nr) {
  auto slice = rhs.getDefiningOp<memref::SubViewOp>();
  if (!slice || slice.getSourceType().getRank() != 2 ||
      slice.getType().getRank() != 2)
    return Value();
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  int64_t k = slice.getSourceType().getDimSize(0), width = sizes[1];
  if (!isConstantIntValue(offsets[0], 0) || sizes[0] != k ||
      ShapedType::isDynamic(width) || width % nr == 0 ||
      !llvm::all_of(slice.getStaticStrides(),
                    [](int64_t stride) { return stride == 1; }))
    return Value();
  if (!steppedFromZero(offsets[1], width))
    return Value();
  Value blocks =
      jeet::cpu::constantColumnBlocks(b, loc, slice.getSource(), width);
  if (!blocks)
    return Value();
  Value index =
      arith::DivUIOp::create(b, loc, cast<Value>(offsets[1]),
                             arith::ConstantIndexOp::create(b, loc, width));
  SmallVector<OpFoldResult> blockOffsets = {index, b.getIndexAttr(0),
                                            b.getIndexAttr(0)};
  SmallVector<OpFoldResult> blockSizes = {b.getIndexAttr(1), b.getIndexAttr(k),
                                          b.getIndexAttr(width)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto type = memref::SubViewOp::inferRankReducedResultType(
      {k, width}, cast<MemRefType>(blocks.getType()), blockOffsets, blockSizes,
      strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(type), blocks,
                                   blockOffsets, blockSizes, strides);
}

/// Whether the tile `matmul` of the tile loop `outermost` reads panels of B
/// that no other tile reads: its B is sliced at the induction variable of
/// the loop's one dimension of more than one iteration, and no other loop
/// lies between the tile and `outermost`. Such a tile packs its own panels
/// (the same copying as one copy before the loop, without a parallel loop
/// of its own to start and join).
static bool readsOwnPanels(Operation *matmul, const HoistableRhs &hoistable,
                           scf::ParallelOp outermost) {
  if (matmul->getParentOp() != outermost.getOperation())
    return false;
  auto iv = dyn_cast_or_null<BlockArgument>(
      dyn_cast_if_present<Value>(hoistable.column));
  if (!iv || iv.getOwner()->getParentOp() != outermost.getOperation())
    return false;
  for (unsigned dim = 0, e = outermost.getNumLoops(); dim < e; ++dim) {
    if (dim == iv.getArgNumber())
      continue;
    std::optional<int64_t> lb =
        getConstantIntValue(outermost.getLowerBound()[dim]);
    std::optional<int64_t> ub =
        getConstantIntValue(outermost.getUpperBound()[dim]);
    std::optional<int64_t> step = getConstantIntValue(outermost.getStep()[dim]);
    if (!lb || !ub || !step || *step <= 0 || *ub - *lb > *step)
      return false;
  }
  return true;
}

/// The distance in bytes at which addresses share an L1 set (64 sets of
/// 64-byte lines): rows of B this far apart evict each other.
constexpr int64_t kL1AliasingBytes = 4096;
/// Rows of a tile from which packing its own panels of B pays even when
/// B's rows do not alias: below, the copy costs more than the panel's
/// streaming from L2 (64x784 @ 784x64 tiles of an MLP: 35 us of 245 us on
/// one thread).
constexpr int64_t kTilePackMinRows = 128;

/// Rows of B up to which a tile that alone reads them streams them even
/// when they alias in L1: the example CNN's first conv (B of 27 rows 4 KiB
/// apart, 64 columns per tile) took 0.37 ms streamed and 0.50 ms with its
/// windows packed first (fastest of 1,000 runs).
constexpr int64_t kMaxStreamedAliasingRows = 32;

/// Whether B's rows lie a multiple of kL1AliasingBytes apart.
static bool rowsAliasInL1(Value rhs) {
  auto type = cast<MemRefType>(rhs.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  if (ShapedType::isDynamic(strides[0]))
    return false;
  return strides[0] * type.getElementTypeBitWidth() / 8 % kL1AliasingBytes == 0;
}

/// Whether a product of matrices reads the B of `rhs` where it lies rather
/// than from panels copied first: C (`acc`) has fewer than kTilePackMinRows
/// rows, and B's rows do not alias in L1 or are few
/// (kMaxStreamedAliasingRows). Each panel is then read by few row tiles, and
/// the packing would be one more copy of all of B.
static bool streamsRhsRows(Value rhs, Value acc, Layout layout) {
  auto accType = cast<MemRefType>(acc.getType());
  auto rhsType = cast<MemRefType>(rhs.getType());
  if (layout.rhsTransposed || !rhsType.hasStaticShape() ||
      !accType.hasStaticShape())
    return false;
  auto [strides, offset] = rhsType.getStridesAndOffset();
  int64_t rowStride = strides[strides.size() - 2];
  bool aliases =
      ShapedType::isDynamic(rowStride) ||
      rowStride * rhsType.getElementTypeBitWidth() / 8 % kL1AliasingBytes == 0;
  return accType.getDimSize(accType.getRank() - 2) < kTilePackMinRows &&
         (!aliases || rhsType.getDimSize(rhsType.getRank() - 2) <=
                          kMaxStreamedAliasingRows);
}

/// The depths at which a tile of a batch of one by a constant B reads the
/// compiler's panels rather than B's rows (see readsConstantPanels).
constexpr int64_t kMinConstantPanelDepth = 256;
constexpr int64_t kMaxConstantPanelDepth = 1024;
/// From which width (bytes of a B row) it does.
constexpr int64_t kMinConstantPanelRowBytes = 1024;

/// Whether a tile of a batch of one image by `rhs`, a column slice of a
/// constant (k, n) whose rows do not alias in L1, is better taken as the
/// product of matrices, whose kernels read the compiler's panels (see
/// constantPanels): B's rows 1 KiB or more apart and 256 to 1,024 of them
/// (a 1x1 convolution of 1024 -> 512 channels at 6x6 positions computed
/// transposed: 0.167 -> 0.141 ms, 1024 -> 256 0.080 -> 0.072; a tile's
/// columns of B's rows in place cross a page every 4 rows or fewer).
/// Deeper Bs ran slower from panels (a 3x3 convolution's 2304 x 256 filter
/// 0.18 -> 0.20 ms, 4608 x 512 0.72 -> 0.98); a few rows (8 x 256) cross
/// few pages.
static bool readsConstantPanels(Value rhs) {
  auto slice = rhs.getDefiningOp<memref::SubViewOp>();
  Value base = slice ? slice.getSource() : rhs;
  auto getGlobal = base.getDefiningOp<memref::GetGlobalOp>();
  auto type = dyn_cast<MemRefType>(base.getType());
  if (!getGlobal || !type || type.getRank() != 2 || !type.hasStaticShape() ||
      !type.getLayout().isIdentity())
    return false;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      getGlobal, getGlobal.getNameAttr());
  int64_t rowBytes = type.getDimSize(1) * type.getElementTypeBitWidth() / 8;
  return global && global.getConstant() &&
         type.getDimSize(0) >= kMinConstantPanelDepth &&
         type.getDimSize(0) <= kMaxConstantPanelDepth &&
         rowBytes >= kMinConstantPanelRowBytes;
}

/// Whether the tile `matmul` of a batch_matmul with an epilogue reads its B
/// where it lies instead of from panels packed before the tiles: the tile
/// computes every row of its matrix (its A is a whole buffer defined
/// outside the tile loop, so no other tile reads the same columns of B) and
/// streamsRhsRows holds. The packing would then be one more copy of all of
/// B, read once (the windows of a convolution: 144 x 256 per image of the
/// example CNN).
static bool streamsBatchedRhs(Operation *matmul, Value lhs, Value rhs,
                              Value acc, Layout layout) {
  scf::ParallelOp outermost = outermostParallel(matmul);
  if (!outermost || lhs.getDefiningOp<memref::SubViewOp>())
    return false;
  Operation *owner = lhs.getDefiningOp();
  if (!owner)
    owner = cast<BlockArgument>(lhs).getOwner()->getParentOp();
  if (outermost->isAncestor(owner))
    return false;
  return streamsRhsRows(rhs, acc, layout);
}

/// A linalg.fill of all of C with a constant just before the matmul `op`
/// (the zeros of a matmul's accumulator), and its constant. The kernels then
/// start their tiles from the constant instead of loading C, and the fill
/// goes: it was a pass over C of its own (a memset per tile of a matmul with
/// an epilogue), and each tile's first loads of C read what it had just
/// written. A matmul with K = 0 writes nothing and keeps its fill.
struct InitialFill {
  linalg::FillOp fill;
  TypedAttr value;
};

static InitialFill initialFill(linalg::LinalgOp op, Value acc, int64_t k) {
  linalg::FillOp fill = jeet::cpu::fillOfBufferBefore(op, acc);
  Attribute value;
  if (!fill || k <= 0 ||
      !matchPattern(fill.getDpsInputOperand(0)->get(), m_Constant(&value)))
    return {};
  return {fill, cast<TypedAttr>(value)};
}

/// The multiply-adds of a contraction: the product of its loop ranges.
static int64_t multiplyAdds(linalg::LinalgOp op) {
  int64_t work = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range) ||
        (range > 0 && work > std::numeric_limits<int64_t>::max() / range))
      return std::numeric_limits<int64_t>::max();
    work *= range;
  }
  return work;
}

struct JeetCpuMatmulPass
    : public jeet::impl::JeetCpuMatmulPassBase<JeetCpuMatmulPass> {
  using Base::Base;

  /// B's panels packed once before the tile loop `outermost`, for a matmul
  /// of one of its tiles (see hoistableRhs), or nothing. `rhs` is the
  /// matmul's B; with `batchRank` 1 a batch of matrices, of which the
  /// kernel computes the one at `batchIndex` (relative to the slice).
  std::optional<PackedPanels> hoistPacking(OpBuilder &b, Location loc,
                                           Operation *matmul, Value rhs,
                                           int64_t nr, bool transposed,
                                           unsigned batchRank = 0,
                                           Value batchIndex = Value()) {
    scf::ParallelOp outermost = outermostParallel(matmul);
    if (!outermost)
      return std::nullopt;
    auto hoistable = hoistableRhs(rhs, nr, transposed, batchRank, outermost);
    if (!hoistable)
      return std::nullopt;
    Value base = hoistable->base;
    Value &buffer = hoistedPanels[{{outermost, base}, transposed ? 1u : 0u}];
    // A constant B's panels are the compiler's (see constantPanels; a B
    // already shaped as one panel is read as it is, below): nothing is
    // copied, so a tile that alone reads its panels reads them too.
    if (!buffer && batchRank == 0 &&
        (transposed ||
         cast<MemRefType>(base.getType()).getShape().back() != nr)) {
      OpBuilder before(outermost);
      buffer = jeet::cpu::constantPanels(before, loc, base, nr, transposed);
      if (buffer)
        compiledPanels.insert(buffer);
    }
    bool compiled = buffer && compiledPanels.contains(buffer);
    if (!compiled && batchRank == 0 &&
        readsOwnPanels(matmul, *hoistable, outermost))
      return std::nullopt;
    if (!buffer) {
      OpBuilder before(outermost);
      buffer = panelShaped(before, loc, base, nr, transposed, batchRank);
      if (!buffer) {
        buffer = batchRank ? packBatchedRhs(before, loc, base, nr, transposed)
                           : MatmulEmitter::packRhs(before, loc, base, nr,
                                                    transposed);
        OpBuilder after(outermost->getContext());
        after.setInsertionPointAfter(outermost);
        memref::DeallocOp::create(after, loc, buffer);
      }
    }
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value first = arith::DivUIOp::create(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, hoistable->column),
        cst(nr));
    if (batchRank) {
      auto baseType = cast<MemRefType>(base.getType());
      auto matrix = MemRefType::get(baseType.getShape().drop_front(),
                                    baseType.getElementType());
      Value batch = arith::AddIOp::create(
          b, loc, getValueOrCreateConstantIndexOp(b, loc, hoistable->batch),
          batchIndex);
      Value panels = cst(MatmulEmitter::numPanels(matrix, nr, transposed));
      first = arith::AddIOp::create(
          b, loc, first, arith::MulIOp::create(b, loc, batch, panels));
    }
    return PackedPanels{buffer, first, compiled};
  }

  /// Whether the tile `matmul` reads panels of B that no other tile of its
  /// loop reads (see readsOwnPanels).
  static bool ownsPanels(Operation *matmul, Value rhs, int64_t nr,
                         bool transposed) {
    scf::ParallelOp outermost = outermostParallel(matmul);
    if (!outermost)
      return false;
    auto hoistable = hoistableRhs(rhs, nr, transposed, 0, outermost);
    return hoistable && readsOwnPanels(matmul, *hoistable, outermost);
  }

  /// B's panels packed before a tile loop, by (loop, base, transposed).
  DenseMap<std::pair<std::pair<Operation *, Value>, unsigned>, Value>
      hoistedPanels;
  /// Those of hoistedPanels that the compiler packed (see constantPanels).
  DenseSet<Value> compiledPanels;

  /// The function that computes a tile's matmul, from prepacked panels or
  /// packing (or reading) its own, one per combination of operand types and
  /// layouts, made on first use.
  DenseMap<std::tuple<Type, Type, Type, Type, unsigned, Attribute>,
           func::FuncOp>
      tileKernels;

  /// Calls the tile kernel for (lhs, rhs, acc) reading B from `prepacked`,
  /// or, without it, packing B's panels itself where `mayPackRhs` holds
  /// (and reading B as it is otherwise), making the kernel first if no
  /// earlier tile of the same types did. Tiles that each read panels of
  /// their own (the MLP's 256 x 64 tiles, one tile per panel) then share
  /// one kernel too: emitted in each tile, the three layers' kernels took
  /// the MLP's code generation from 113 to 193 ms.
  void callTileKernel(OpBuilder &b, Location loc, Value lhs, Value rhs,
                      Value acc, std::optional<PackedPanels> prepacked,
                      bool mayPackRhs, const TileSizes &sizes, Layout layout,
                      TypedAttr initialValue) {
    auto key = std::make_tuple(lhs.getType(), rhs.getType(), acc.getType(),
                               prepacked ? prepacked->buffer.getType() : Type(),
                               unsigned(prepacked && prepacked->compiled) << 3 |
                                   unsigned(mayPackRhs) << 2 |
                                   unsigned(layout.lhsTransposed) << 1 |
                                   unsigned(layout.rhsTransposed),
                               Attribute(initialValue));
    func::FuncOp &kernel = tileKernels[key];
    if (!kernel) {
      ModuleOp module = getOperation();
      // Made detached, then named apart from the module's other symbols.
      OpBuilder builder(module.getContext());
      SmallVector<Type> inputs = {lhs.getType(), rhs.getType(), acc.getType()};
      if (prepacked)
        inputs.append({prepacked->buffer.getType(), b.getIndexType()});
      kernel = func::FuncOp::create(builder, loc, kTileKernelName,
                                    builder.getFunctionType(inputs, {}));
      kernel.setPrivate();
      // Inlined back into each tile, the kernel would be compiled once per
      // call site again.
      kernel->setAttr(
          kPassthroughAttr,
          builder.getArrayAttr({builder.getStringAttr(kNoInlineAttr)}));
      SymbolTable(module).insert(kernel);
      Block *body = kernel.addEntryBlock();
      builder.setInsertionPointToStart(body);
      auto returnOp = func::ReturnOp::create(builder, loc);
      builder.setInsertionPoint(returnOp);
      std::optional<PackedPanels> panels;
      if (prepacked)
        panels = PackedPanels{body->getArgument(3), body->getArgument(4),
                              prepacked->compiled};
      MatmulEmitter emitter(builder, loc, body->getArgument(0),
                            body->getArgument(1), body->getArgument(2), sizes,
                            layout, panels);
      emitter.withInitialValue(initialValue);
      if (!mayPackRhs)
        emitter.withoutRhsPacking();
      emitter.emit(/*parallel=*/false);
    }
    // The call gets a stack scope of its own: convert-scf-to-openmp wraps
    // each parallel loop body in a memref.alloca_scope that canonicalization
    // must inline before the body's loops become branches (a scope holds one
    // block), and it keeps a scope that holds a call (which, without memory
    // effects, might allocate on the stack) but looks past nested scopes.
    auto scope = memref::AllocaScopeOp::create(b, loc, TypeRange());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&scope.getBodyRegion().emplaceBlock());
    SmallVector<Value> operands = {lhs, rhs, acc};
    if (prepacked)
      operands.append({prepacked->buffer, prepacked->firstPanel});
    func::CallOp::create(b, loc, kernel, operands);
    memref::AllocaScopeReturnOp::create(b, loc);
  }

  static constexpr llvm::StringLiteral kTileKernelName = "jeet_matmul_tile";
  /// LLVM function attributes that the LLVM dialect passes through.
  static constexpr llvm::StringLiteral kPassthroughAttr = "passthrough";
  static constexpr llvm::StringLiteral kNoInlineAttr = "noinline";

  void runOnOperation() override {
    int64_t cols = registerCols > 0 ? registerCols : hostRegisterCols();
    TileSizes sizes = chooseCacheBlocks(
        {std::max<int64_t>(1, registerRows), cols, rowBlock, kBlock, colBlock},
        l1CacheBytes, l2CacheBytes);
    sizes.constantsOutgrowL2 = constantBytes(getOperation()) > sizes.l2Bytes;
    // What an earlier run of this pass made belongs to another module.
    hoistedPanels.clear();
    compiledPanels.clear();
    tileKernels.clear();
    for (func::FuncOp func :
         llvm::to_vector(getOperation().getOps<func::FuncOp>()))
      rewriteMatmuls(func, sizes);
    dropUnreadKernelArguments();
    eraseUnreadConstants();
  }

  /// Drops the arguments that a tile kernel never reads from it and its
  /// calls: B, where every column of a tile comes from panels packed before
  /// the tile loop.
  void dropUnreadKernelArguments() {
    DenseMap<StringAttr, SmallVector<func::CallOp>> calls;
    for (auto &entry : tileKernels)
      calls[entry.second.getSymNameAttr()];
    getOperation().walk([&](func::CallOp call) {
      auto it = calls.find(call.getCalleeAttr().getAttr());
      if (it != calls.end())
        it->second.push_back(call);
    });
    for (auto &entry : tileKernels) {
      func::FuncOp kernel = entry.second;
      llvm::BitVector unread(kernel.getNumArguments());
      for (BlockArgument argument : kernel.getArguments())
        if (argument.use_empty())
          unread.set(argument.getArgNumber());
      if (unread.none() || failed(kernel.eraseArguments(unread)))
        continue;
      for (func::CallOp call : calls[kernel.getSymNameAttr()])
        call->eraseOperands(unread);
    }
  }

  /// Erases the constant globals that no op reads any more (a B whose
  /// panels the kernels read instead; see constantPanels), with the views
  /// of them that nothing uses, so that the module does not carry the
  /// weights twice through the rest of the pipeline.
  void eraseUnreadConstants() {
    ModuleOp module = getOperation();
    SmallVector<Operation *> views;
    module.walk([&](Operation *op) {
      if (isa<memref::GetGlobalOp, memref::SubViewOp>(op))
        views.push_back(op);
    });
    // A walk meets a view's source first: in reverse, each view is erased
    // before its source is looked at.
    DenseSet<StringAttr> read;
    for (Operation *op : llvm::reverse(views)) {
      if (op->use_empty())
        op->erase();
      else if (auto getGlobal = dyn_cast<memref::GetGlobalOp>(op))
        read.insert(getGlobal.getNameAttr().getAttr());
    }
    // (One walk for all globals: a use search per global walked the module
    // each time, 0.6 s for efficientnet_b0's 300.)
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (global.getConstant() && global.isPrivate() &&
          !read.contains(global.getSymNameAttr()))
        global->erase();
  }

  /// Records `sizes` on `func` (see kBlockingAttr).
  static void recordBlocking(func::FuncOp func, const TileSizes &sizes) {
    Builder b(func.getContext());
    func->setAttr(
        kBlockingAttr,
        b.getDictionaryAttr({
            b.getNamedAttr("col_block", b.getI64IntegerAttr(sizes.colBlock)),
            b.getNamedAttr("k_block", b.getI64IntegerAttr(sizes.kBlock)),
            b.getNamedAttr("panel_k_block",
                           b.getI64IntegerAttr(sizes.panelKBlock)),
            b.getNamedAttr("register_cols",
                           b.getI64IntegerAttr(sizes.registerCols)),
            b.getNamedAttr("register_rows",
                           b.getI64IntegerAttr(sizes.registerRows)),
            b.getNamedAttr("row_block", b.getI64IntegerAttr(sizes.rowBlock)),
        }));
  }

  /// The tile and cache block sizes chosen for a function's matmuls (the
  /// options' or the host's), recorded on it.
  static constexpr llvm::StringLiteral kBlockingAttr = "jeet.matmul_blocking";

  /// The batches of a batched matmul and each batch's column panels (see
  /// MatmulEmitter::emitColumnPanels) in one scf.parallel (see
  /// MatmulEmitter::emitPanelLoop).
  static void emitBatchedColumnPanels(OpBuilder &b, Location loc, Value lhs,
                                      Value rhs, Value acc,
                                      const Contraction &batching,
                                      ValueRange lbs, ValueRange ubs,
                                      ValueRange steps, int64_t cols,
                                      const TileSizes &sizes,
                                      TypedAttr initialValue) {
    MatmulEmitter::emitPanelLoop(
        b, loc, lbs, ubs, steps, cols, sizes,
        [&](OpBuilder &builder, ValueRange batch, Value j0, int64_t width) {
          auto at = [&](ArrayRef<unsigned> loops) {
            return llvm::map_to_vector(
                loops, [&](unsigned loop) { return batch[loop]; });
          };
          MatmulEmitter::emitColumnPanel(
              builder, loc,
              batchSlice(builder, loc, lhs, at(batching.lhsBatch)),
              batchSlice(builder, loc, rhs, at(batching.rhsBatch)),
              batchSlice(builder, loc, acc, batch), j0, width, sizes,
              batching.layout, initialValue);
        });
  }

  void rewriteMatmuls(func::FuncOp func, const TileSizes &sizes) {
    // Each matmul with, per operand, the loops that index its batch
    // dimensions (none for linalg.matmul), and its layout.
    SmallVector<std::pair<linalg::LinalgOp, Contraction>> matmuls;
    func.walk([&](linalg::LinalgOp op) {
      if (std::optional<Contraction> contraction = matchContraction(op))
        matmuls.push_back({op, *contraction});
    });
    for (auto &[op, batching] : matmuls) {
      if (!op.hasPureBufferSemantics())
        continue;
      Value lhs = op.getDpsInputOperand(0)->get();
      Value rhs = op.getDpsInputOperand(1)->get();
      Value acc = op.getDpsInitOperand(0)->get();
      if (!isSupported({lhs, rhs, acc}))
        continue;
      recordBlocking(func, sizes);
      OpBuilder b(op);
      Location loc = op.getLoc();
      auto lhsType = cast<MemRefType>(lhs.getType());
      int64_t k = lhsType.getDimSize(lhsType.getRank() -
                                     (batching.layout.lhsTransposed ? 2 : 1));
      auto [fill, initialValue] = initialFill(op, acc, k);
      if (fill)
        fill.erase();
      // The tile of a batch of one matrix product by a matrix B (one
      // image's (1, M, K) x (K, N)) reads B where it lies, a row per step;
      // where B's rows alias in L1 (a 2048-column B), it is taken as the
      // product of matrices, whose kernels read B's packed panels (the
      // compiler's, for a constant B): 0.10 -> 0.08 ms for a 1x1
      // convolution of 512 -> 2048 channels at 3x3 positions. (Rows that do
      // not alias stream well: a 3x3 convolution's 2304 x 256 filter ran
      // 8% slower from panels.)
      bool nested = op->getParentOfType<scf::ParallelOp>() ||
                    op->getParentOfType<scf::ForallOp>();
      if (nested && batching.numBatch > 0 && batching.rhsBatch.empty() &&
          (rowsAliasInL1(rhs) || readsConstantPanels(rhs)) &&
          llvm::all_of(cast<MemRefType>(acc.getType()).getShape().drop_back(2),
                       [](int64_t size) { return size == 1; })) {
        lhs = unitBatchMatrix(b, loc, lhs);
        rhs = unitBatchMatrix(b, loc, rhs);
        acc = unitBatchMatrix(b, loc, acc);
        batching.numBatch = 0;
        batching.lhsBatch.clear();
        batching.rhsBatch.clear();
      }
      // A small matmul is done before the threads would have started.
      bool runParallel =
          parallel && !nested && multiplyAdds(op) >= minParallelWork;
      if (batching.numBatch == 0) {
        // A tile of a constant B whose panels cannot be shared reads its
        // columns from a copy laid out tile by tile.
        if (nested && !batching.layout.rhsTransposed)
          if (Value block = constantTileBlock(b, loc, rhs, sizes.registerCols))
            rhs = block;
        std::optional<PackedPanels> prepacked;
        if (nested)
          prepacked = hoistPacking(b, loc, op, rhs, sizes.registerCols,
                                   batching.layout.rhsTransposed);
        // A tile that alone reads its panels streams them from L2 unless
        // they alias in L1 or enough rows share the copy.
        bool mayPackRhs = !(nested &&
                            ownsPanels(op, rhs, sizes.registerCols,
                                       batching.layout.rhsTransposed) &&
                            cast<MemRefType>(acc.getType()).getDimSize(0) <
                                kTilePackMinRows &&
                            !rowsAliasInL1(rhs));
        if (nested) {
          callTileKernel(b, loc, lhs, rhs, acc, prepacked, mayPackRhs, sizes,
                         batching.layout, initialValue);
        } else {
          MatmulEmitter emitter(b, loc, lhs, rhs, acc, sizes, batching.layout);
          emitter.withInitialValue(initialValue);
          emitter.emit(runParallel);
        }
        op->erase();
        continue;
      }
      // Batches in parallel when there are enough of them; otherwise in
      // sequence, each with parallel row blocks.
      ArrayRef<int64_t> accShape = cast<MemRefType>(acc.getType()).getShape();
      int64_t batches = 1;
      SmallVector<Value> lbs, ubs, steps;
      for (int64_t size : accShape.take_front(batching.numBatch)) {
        batches *= size;
        lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
        ubs.push_back(arith::ConstantIndexOp::create(b, loc, size));
        steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
      }
      bool batchParallel = runParallel && batches >= 4;
      // A few batches whose matmuls share out their column panels: one
      // parallel loop over the batches and the panels together, not an
      // OpenMP region per batch (a mobile network's pointwise convolutions
      // at 3 x 3 positions, (N, 9, C) x (C, O) for a batch of 2).
      if (runParallel && !batchParallel) {
        int64_t rows = accShape[accShape.size() - 2];
        int64_t cols = accShape.back();
        if (MatmulEmitter::sharesColumnPanels(rows, cols, sizes)) {
          emitBatchedColumnPanels(b, loc, lhs, rhs, acc, batching, lbs, ubs,
                                  steps, cols, sizes, initialValue);
          op->erase();
          continue;
        }
      }
      bool inTile = nested;
      auto body = [&](OpBuilder &nested, Location nestedLoc, ValueRange ivs) {
        auto at = [&](ArrayRef<unsigned> loops) {
          return llvm::map_to_vector(loops,
                                     [&](unsigned loop) { return ivs[loop]; });
        };
        // The tile of a batch_matmul with an epilogue reads B's panels
        // from one copy of the whole batch of matrices, made before the
        // tiles.
        std::optional<PackedPanels> prepacked;
        // Outside tiles, a B per batch (a convolution's windows, (1, K, N)
        // by filters of M < 128 rows) is read where it lies on the same
        // terms: 64 x 144 by 144 x 529 windows (a 3x3 convolution of 16 ->
        // 64 channels at 23 x 23) 7% faster than from panels.
        bool streams =
            inTile ? streamsBatchedRhs(op, lhs, rhs, acc, batching.layout)
                   : !batching.rhsBatch.empty() &&
                         streamsRhsRows(rhs, acc, batching.layout);
        if (inTile && !streams && batching.numBatch == 1 &&
            batching.rhsBatch == ArrayRef<unsigned>{0}) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          prepacked = hoistPacking(b, nestedLoc, op, rhs, sizes.registerCols,
                                   batching.layout.rhsTransposed,
                                   /*batchRank=*/1, ivs[0]);
        }
        MatmulEmitter emitter(
            nested, nestedLoc,
            batchSlice(nested, nestedLoc, lhs, at(batching.lhsBatch)),
            batchSlice(nested, nestedLoc, rhs, at(batching.rhsBatch)),
            batchSlice(nested, nestedLoc, acc,
                       ivs.take_front(batching.numBatch)),
            sizes, batching.layout, prepacked);
        emitter.withInitialValue(initialValue);
        if (streams)
          emitter.withoutRhsPacking();
        emitter.emit(runParallel && !batchParallel);
      };
      if (batchParallel)
        scf::ParallelOp::create(b, loc, lbs, ubs, steps, body);
      else
        scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
      op->erase();
    }
  }
};

} // namespace

int64_t jeet::getMatmulRegisterCols(
    llvm::function_ref<bool(llvm::StringRef)> hasFeature) {
  if (hasFeature("avx512f"))
    return 64;
  return hasFeature("avx") ? 16 : 8;
}
