//===- FormKernels.cpp - One forall of output tiles per fusion group ------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The pass `jeet-gpu-form-kernels` (on tensors) lowers each `jeet.fusion`
// group to linalg and tiles the group's result over its parallel dimensions
// into one `scf.forall` mapped to blocks, with every other op of the group
// fused into the tile: one forall (or one per independent result, tagged
// with the same kKernelAttr) is one future kernel. A result that another
// forall of the group reads (through a reshape, which tiling does not fuse
// through) is a kernel of its own, launched first: the blocks of one launch
// do not wait for each other. The tile sizes are chosen here, for the
// strategy that jeet-gpu-map-kernels will pick for the tile.
//
// A multi-reduction group (jeet-fuse's `multi-reduction`: softmax,
// layernorm) whose reductions reduce the trailing dimensions is one kernel:
// its last row op is tiled over blocks of kRowsPerTile rows (fewer where
// they would not fit 32 KiB: one row a block from 4 KiB on; a warp per row in
// each reduction, or several when there are fewer rows than warps) with the
// reduced dimensions whole, the reductions and the row ops fused into the
// tile, and the group's inputs that several ops of the tile read staged in
// workgroup memory (read from global memory once) while they fit 32 KiB; a
// longer row is read from global memory (L2) by each pass over it. jeet-fuse
// takes such groups when their rows are its trailing axes (the GPU pipeline
// sets its `max-row-bytes` to getGpuMaxRowGroupBytes(), no limit); a group
// of one row past 32 KiB is split (below), as its elementwise part is then
// parallel over many blocks rather than one. Any other
// multi-reduction group (from jeet-fuse without `max-row-bytes`) is split at
// its reductions: a reduction is not fused into an op over its own rows, so
// each reduction and the row ops that read it are kernels of their own.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "jeet/Codegen/GPU/Passes.h"
#include "jeet/Conversion/JeetToLinalg/JeetToLinalg.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <limits>

namespace jeet {
#define GEN_PASS_DEF_JEETGPUFORMKERNELSPASS
#include "jeet/Codegen/GPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;
using namespace jeet::gpu_codegen;

/// The most results of one group that are tiled into foralls of their own.
/// Each round of formKernel tiles one result and fuses what it depends on,
/// so a group takes as many rounds as it has independent results; the bound
/// only guards against a round that makes no progress. Results left over run
/// as kernels of one block (jeet-gpu-map-kernels).
static constexpr int kMaxTiledResults = 16;

/// Workgroup memory that the staged input rows of a multi-reduction tile may
/// take: two thirds of kMaxWorkgroupBytes, leaving the rest to the tile's
/// reduction results and other temporaries.
static constexpr int64_t kRowStagingBytes = 32 * 1024;
static_assert(kRowStagingBytes < kMaxWorkgroupBytes,
              "room for the tile's reduction results");

int64_t jeet::getGpuMaxRowGroupBytes() {
  return std::numeric_limits<int64_t>::max();
}

/// Rows per tile of a multi-reduction group whose rows take `rowBytes`: one
/// per warp of the block while kRowsPerTile rows fit kRowStagingBytes, else
/// the largest power of two of them that fits (one row of up to 32 KiB).
static int64_t rowsPerTile(int64_t rowBytes) {
  if (rowBytes <= 0)
    return kRowsPerTile;
  int64_t fit = std::max<int64_t>(1, kRowStagingBytes / rowBytes);
  return std::min<int64_t>(kRowsPerTile, llvm::bit_floor(uint64_t(fit)));
}

namespace {
/// What jeet-gpu-form-kernels knows about the jeet.fusion group that it makes
/// a kernel of.
struct GroupInfo {
  /// A multi-reduction group over rows: the number of leading (row)
  /// dimensions, 0 for any other group.
  unsigned rowDims = 0;
  /// A group with a row op (an op over a reduction's input shape that reads
  /// the reduction), whatever its axes.
  bool multiReduction = false;
  /// Rows per tile of a group over rows (rowsPerTile of its row bytes).
  int64_t rowsPerTile = kRowsPerTile;
};
} // namespace

/// Whether `fusion` has a row op: an op with the shape of a reduction's
/// input that reads that reduction, directly or through other ops.
static bool hasRowOps(FusionOp fusion) {
  Block &body = fusion.getBody().front();
  for (Operation &op : body.without_terminator()) {
    auto reduction = dyn_cast<ReductionOpInterface>(&op);
    if (!reduction)
      continue;
    Type rowType = reduction.getInput().getType();
    SmallVector<Operation *> worklist(op.getUsers().begin(),
                                      op.getUsers().end());
    llvm::SmallPtrSet<Operation *, 16> seen;
    while (!worklist.empty()) {
      Operation *user = worklist.pop_back_val();
      if (isa<YieldOp>(user) || !seen.insert(user).second)
        continue;
      if (llvm::is_contained(user->getResultTypes(), rowType))
        return true;
      worklist.append(user->getUsers().begin(), user->getUsers().end());
    }
  }
  return false;
}

/// Erases the ops of `ops` that became dead, users first.
/// The bytes of a row of `fusion`'s reductions as stored (what jeet-fuse's
/// max-row-bytes bounds), the longest of them.
static int64_t rowBytesOf(FusionOp fusion) {
  int64_t longest = 0;
  fusion.getBody().walk([&](ReductionOpInterface reduction) {
    longest = std::max(longest, getReducedSliceBytes(reduction));
  });
  return longest;
}

static void eraseDeadOps(RewriterBase &rewriter, ArrayRef<Operation *> ops) {
  SmallVector<Operation *> dead(ops);
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : dead) {
      if (op && isOpTriviallyDead(op)) {
        rewriter.eraseOp(op);
        op = nullptr;
        erased = true;
      }
    }
  }
}

/// The bytes per output of the inputs that the reductions of `root`'s tile
/// read from other ops of the tile (what the tile then holds in workgroup
/// memory, reduced elements x element bytes for each output, summed over
/// them): a reduction of `group` that `root` is or depends on, whose input
/// another linalg op of the group computes (lowering left it a generic of
/// its own, as it does for a value the group also returns). 0 where none
/// does.
static int64_t
stagedBytesPerOutput(linalg::LinalgOp root, Block *block,
                     const llvm::SetVector<Operation *> &group,
                     const llvm::SmallPtrSetImpl<Operation *> &split) {
  int64_t total = 0;
  SmallVector<Operation *> worklist = {root};
  llvm::SmallPtrSet<Operation *, 16> seen = {root};
  while (!worklist.empty()) {
    auto op = dyn_cast<linalg::LinalgOp>(worklist.pop_back_val());
    if (!op)
      continue;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t reduced = 1;
    for (auto [range, iterator] : llvm::zip(ranges, op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::reduction)
        reduced = ShapedType::isDynamic(range) ? 1 : reduced * range;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Operation *def = input->get().getDefiningOp();
      Operation *producer = def ? block->findAncestorOpInBlock(*def) : nullptr;
      if (!producer || !group.contains(producer) || split.contains(producer) ||
          isa<scf::ForallOp>(producer))
        continue;
      auto type = dyn_cast<RankedTensorType>(input->get().getType());
      if (op.getNumReductionLoops() > 0 && isa<linalg::LinalgOp>(producer) &&
          type && type.getElementType().isIntOrFloat())
        total += reduced * getElementBytes(type.getElementType());
      if (seen.insert(producer).second)
        worklist.push_back(producer);
    }
  }
  return total;
}

/// Tile sizes of the kernel whose result `root` computes: its parallel
/// dimensions only (reductions stay whole inside a tile). `stagedBytes`:
/// stagedBytesPerOutput of the root, which bounds the outputs a tile takes
/// so that what it stages fits kRowStagingBytes.
static SmallVector<int64_t> chooseTileSizes(linalg::LinalgOp root,
                                            bool hasMatmul, unsigned rowDims,
                                            int64_t rows, int64_t stagedBytes) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  if (rowDims > 0) {
    // The last row op of a multi-reduction group: blocks of `rows` rows (a
    // warp or more per row in each reduction), filled from the innermost row
    // dimension outward; the reduced dimensions whole.
    SmallVector<int64_t> sizes(ranges.size(), 0);
    int64_t budget = rows;
    for (unsigned dim = rowDims; dim-- > 0;) {
      sizes[dim] = std::max<int64_t>(1, std::min(ranges[dim], budget));
      budget = std::max<int64_t>(1, budget / sizes[dim]);
    }
    return sizes;
  }
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  SmallVector<unsigned> parallel;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel)
      parallel.push_back(i);
  SmallVector<int64_t> sizes(ranges.size(), 0);
  if (hasMatmul) {
    // kTileM x kTileN output tiles (what a register-tiled matmul takes);
    // batch dimensions one at a time.
    for (auto [n, dim] : llvm::enumerate(llvm::reverse(parallel)))
      sizes[dim] =
          n < 2 ? std::min<int64_t>(n == 0 ? kTileN : kTileM, ranges[dim]) : 1;
    return sizes;
  }
  // Fill the tile from the innermost dimension outward: the rows of a row
  // reduction (a warp each), the outputs of another reduction (one thread
  // each), the elements of an elementwise kernel (a vector per thread).
  int64_t budget = root.getNumReductionLoops() > 0 ? kReductionOutputsPerTile
                                                   : kElementwiseTileElements;
  if (isRowReduction(root))
    budget = kRowsPerTile;
  // A reduction's input computed in the tile is held there whole (a
  // 1000 x 31 remainder under a mean over 31, whose input the group also
  // returned: 124,000 bytes, past the block's workgroup memory).
  if (stagedBytes > 0)
    budget =
        std::min(budget, std::max<int64_t>(1, kRowStagingBytes / stagedBytes));
  for (unsigned dim : llvm::reverse(parallel)) {
    int64_t size = std::max<int64_t>(1, std::min(ranges[dim], budget));
    sizes[dim] = size;
    budget = std::max<int64_t>(1, budget / size);
  }
  return sizes;
}

/// Wraps `root` and the ops of the group it depends on in a forall of one
/// iteration (a kernel of one block): for results with no parallel
/// dimension. The forall has one shared output per result of `root`.
static LogicalResult wrapInOneTile(RewriterBase &rewriter,
                                   const llvm::SetVector<Operation *> &group,
                                   linalg::LinalgOp root, int64_t kernelId) {
  // The group's ops that `root` depends on, in program order, but for those
  // whose results would not fit a block's workgroup memory (a broadcast under
  // a full reduction): the block would store them whole. They stay outside,
  // for a kernel of their own before this one.
  auto fitsTile = [](Operation *op) {
    // Another forall (a kernel formed before, launched before this one): its
    // result is read, not recomputed in a forall nested in the tile.
    if (isa<scf::ForallOp>(op))
      return false;
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !tensor.hasStaticShape() ||
          !tensor.getElementType().isIntOrFloat())
        continue;
      int64_t bytes = getElementBytes(tensor.getElementType());
      if (tensor.getNumElements() * bytes > kRowStagingBytes)
        return false;
    }
    return true;
  };
  llvm::SetVector<Operation *> slice;
  SmallVector<Operation *> worklist = {root};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!slice.insert(op))
      continue;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (group.contains(def) && fitsTile(def))
            worklist.push_back(def);
    });
  }
  SmallVector<Operation *> ordered;
  for (Operation *op : group)
    if (slice.contains(op))
      ordered.push_back(op);

  Location loc = root.getLoc();
  rewriter.setInsertionPoint(root);
  SmallVector<Value> dests;
  for (Value result : root->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    dests.push_back(tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                            type.getElementType()));
  }
  // The accumulators' origins (the tensor.empty under their fills) become
  // the forall's shared outputs, so that the results are computed in place.
  // An origin that two results share (CSE merges equal tensor.empty ops)
  // stays a tensor of the tile: each result needs a buffer of its own.
  SmallVector<Value> origins;
  for (Value init : root.getDpsInits()) {
    Value origin = init;
    if (auto fill = origin.getDefiningOp<linalg::FillOp>())
      origin = fill.getOutputs().front();
    origins.push_back(origin.getDefiningOp<tensor::EmptyOp>() ? origin
                                                              : Value());
  }
  for (Value &origin : origins)
    if (origin && llvm::count(origins, origin) > 1)
      origin = nullptr;

  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)}, dests,
      blockMapping(rewriter.getContext(), 1));
  forall->setAttr(kKernelAttr, rewriter.getI64IntegerAttr(kernelId));
  Block *body = forall.getBody();
  ValueRange shared = forall.getRegionIterArgs();
  IRMapping mapping;
  for (auto [origin, output] : llvm::zip_equal(origins, shared))
    if (origin)
      mapping.map(origin, output);
  rewriter.setInsertionPoint(body->getTerminator());
  for (Operation *op : ordered)
    if (llvm::none_of(op->getResults(), [&](Value result) {
          return llvm::is_contained(origins, result);
        }))
      rewriter.clone(*op, mapping);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  for (auto [result, output] : llvm::zip_equal(root->getResults(), shared)) {
    auto type = cast<RankedTensorType>(result.getType());
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(rewriter.getContext(), type.getShape());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, mapping.lookup(result),
                                          output, offsets, sizes, strides);
  }
  rewriter.replaceAllUsesWith(root->getResults(), forall.getResults());
  eraseDeadOps(rewriter, llvm::to_vector(llvm::reverse(ordered)));
  return success();
}

/// The ops strictly between `before` and `after` in their block.
static SmallVector<Operation *> opsBetween(Block *block, Operation *before,
                                           Operation *after) {
  Block::iterator it =
      before ? std::next(before->getIterator()) : block->begin();
  Block::iterator end = after ? after->getIterator() : block->end();
  SmallVector<Operation *> ops;
  for (; it != end; ++it)
    ops.push_back(&*it);
  return ops;
}

/// Whether a result of `op` reaches, through the ops of `block` that use it
/// (reshapes, other kernels), a forall of kernel `kernelId`.
static bool feedsKernel(Operation *op, Block *block, int64_t kernelId) {
  SmallVector<Operation *> worklist = {op};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Operation *current = worklist.pop_back_val();
    for (Operation *user : current->getUsers()) {
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor || !seen.insert(ancestor).second)
        continue;
      auto id = ancestor->getAttrOfType<IntegerAttr>(kKernelAttr);
      if (id && id.getInt() == kernelId)
        return true;
      worklist.push_back(ancestor);
    }
  }
  return false;
}

/// The ops of `block` whose results `loop` reads, directly or through other
/// ops of the block, inside its body included.
static llvm::SmallPtrSet<Operation *, 16> opsFeeding(Block *block,
                                                     Operation *loop) {
  llvm::SmallPtrSet<Operation *, 16> feeding;
  SmallVector<Operation *> worklist = {loop};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        Operation *producer =
            def ? block->findAncestorOpInBlock(*def) : nullptr;
        if (producer && producer != loop && feeding.insert(producer).second)
          worklist.push_back(producer);
      }
    });
  }
  return feeding;
}

/// Whether `root` reads, directly or through other ops of `block`, a result
/// of a forall of kernel `kernelId`: a forall of that kernel yielded a value
/// that `root` also reads (the broadcast of a group that a comparison's
/// forall tiled, read by a reduction tiled next). The blocks of one launch
/// do not wait for each other, and the two foralls tile the value
/// differently.
static bool readsKernel(Operation *root, Block *block, int64_t kernelId) {
  return llvm::any_of(opsFeeding(block, root), [&](Operation *op) {
    auto id = op->getAttrOfType<IntegerAttr>(kKernelAttr);
    return isa<scf::ForallOp>(op) && id && id.getInt() == kernelId;
  });
}

/// Moves the ops of `loop`'s block that use its results but come before it
/// after it, in order, with the ops that use them in turn. A producer fused
/// into the loop's tiles that the loop now yields may have had users between
/// it and the loop (the reshape of a keepdims reduction that is a result of
/// the group).
static void moveUsersAfter(RewriterBase &rewriter, Operation *loop) {
  llvm::SetVector<Operation *> users;
  llvm::SmallPtrSet<Value, 8> produced(loop->result_begin(),
                                       loop->result_end());
  for (Operation &op : *loop->getBlock()) {
    if (&op == loop)
      break;
    bool uses = false;
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        uses |= produced.contains(operand);
    });
    if (!uses)
      continue;
    users.insert(&op);
    produced.insert(op.result_begin(), op.result_end());
  }
  Operation *last = loop;
  for (Operation *user : users) {
    rewriter.moveOpAfter(user, last);
    last = user;
  }
}

/// The reductions of `group` that an op of the group over the same loop
/// ranges reads (directly or through reshapes): a row op or a further
/// reduction of the same rows, which a split multi-reduction group does not
/// fuse them into.
static llvm::SmallPtrSet<Operation *, 4>
findRowReductions(const llvm::SetVector<Operation *> &group) {
  llvm::SmallPtrSet<Operation *, 4> split;
  for (Operation *op : group) {
    auto reduction = dyn_cast<linalg::LinalgOp>(op);
    if (!reduction || reduction.getNumReductionLoops() == 0)
      continue;
    SmallVector<int64_t> ranges = reduction.getStaticLoopRanges();
    SmallVector<Operation *> worklist(op->getUsers().begin(),
                                      op->getUsers().end());
    while (!worklist.empty()) {
      Operation *user = worklist.pop_back_val();
      if (!group.contains(user))
        continue;
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user)) {
        worklist.append(user->getUsers().begin(), user->getUsers().end());
        continue;
      }
      auto consumer = dyn_cast<linalg::LinalgOp>(user);
      if (consumer && consumer.getStaticLoopRanges() == ranges)
        split.insert(op);
    }
  }
  return split;
}

/// Copies the slices of the group's inputs that several ops of the tile
/// `forall` read into tile tensors (bufferized into workgroup memory), so
/// that the tile reads them from global memory once, while their bytes
/// stay within kRowStagingBytes.
static void stageSharedInputs(RewriterBase &rewriter, scf::ForallOp forall,
                              int64_t rows) {
  // Fusion leaves a slice per reader: equal slices become one first.
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, forall);
  int64_t stagedBytes = 0;
  SmallVector<tensor::ExtractSliceOp> slices;
  forall.getBody()->walk(
      [&](tensor::ExtractSliceOp slice) { slices.push_back(slice); });
  for (tensor::ExtractSliceOp slice : slices) {
    if (!forall.isDefinedOutsideOfLoop(slice.getSource()))
      continue;
    SmallVector<OpOperand *> reads;
    for (OpOperand &use : slice->getUses())
      if (auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner()))
        if (reader.isDpsInput(&use))
          reads.push_back(&use);
    if (reads.size() < 2)
      continue;
    RankedTensorType type = slice.getResultType();
    // The bound of a partial tile is the full one: the static sizes of the
    // slice's source where the tile's size is dynamic.
    int64_t bytes = getElementBytes(type.getElementType());
    ArrayRef<int64_t> sourceShape = slice.getSourceType().getShape();
    SmallVector<int64_t> staticSizes(slice.getStaticSizes());
    for (auto [size, sourceSize] : llvm::zip(staticSizes, sourceShape))
      bytes *= ShapedType::isDynamic(size) ? std::min<int64_t>(sourceSize, rows)
                                           : size;
    if (stagedBytes + bytes > kRowStagingBytes)
      continue;
    stagedBytes += bytes;
    rewriter.setInsertionPointAfter(slice);
    Location loc = slice.getLoc();
    Value empty = tensor::EmptyOp::create(rewriter, loc, slice.getMixedSizes(),
                                          type.getElementType());
    Value staged =
        linalg::CopyOp::create(rewriter, loc, slice.getResult(), empty)
            ->getResult(0);
    for (OpOperand *use : reads)
      rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(staged); });
  }
}

/// Whether the tile of a producer that `slice` would fuse (which the tile
/// holds in workgroup memory) is larger than a block's workgroup memory
/// (the f32 widening of an f16 broadcast under a mean over 17,000 of its
/// elements, for one output: 68,000 bytes). Such a producer stays outside
/// the tile, a kernel of its own before it. Dynamic sizes count as the
/// tile's (their constant bound), else the source's.
static bool exceedsWorkgroupMemory(tensor::ExtractSliceOp slice) {
  RankedTensorType type = slice.getResultType();
  if (!type.getElementType().isIntOrFloat())
    return false;
  int64_t bytes = getElementBytes(type.getElementType());
  ArrayRef<int64_t> sourceShape = slice.getSourceType().getShape();
  for (auto [size, sourceSize] :
       llvm::zip(slice.getMixedSizes(), sourceShape)) {
    std::optional<int64_t> bound = getConstantSizeBound(size);
    if (!bound && !ShapedType::isDynamic(sourceSize))
      bound = sourceSize;
    if (!bound)
      return false;
    bytes *= *bound;
  }
  return bytes > kMaxWorkgroupBytes;
}

/// Tiles one result of the group made of the ops between `before` and
/// `after` (program order) into a forall of kernel `kernelId`, and fuses the
/// rest of the group that it depends on into its tiles. A result that a
/// forall of `kernelId` reads takes the next kernel id (`nextKernelId`),
/// which becomes `kernelId`. Sets `done` when no result is left to tile.
static LogicalResult tileOneResult(RewriterBase &rewriter, Block *block,
                                   Operation *before, Operation *after,
                                   const GroupInfo &info, int64_t &kernelId,
                                   int64_t &nextKernelId, bool &done) {
  SmallVector<Operation *> ops = opsBetween(block, before, after);
  llvm::SetVector<Operation *> group(ops.begin(), ops.end());
  auto escapes = [&](Operation *op) {
    for (Operation *user : op->getUsers()) {
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor || !group.contains(ancestor) ||
          isa<scf::ForallOp>(ancestor))
        return true;
    }
    return false;
  };
  // The ops whose results leave the group (through reshapes, which are views
  // once bufferized) or feed one of its kernels.
  llvm::SetVector<Operation *> roots;
  for (Operation *op : ops) {
    if (isa<scf::ForallOp>(op) || !escapes(op))
      continue;
    Operation *source = op;
    while (source &&
           isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(source))
      source = source->getOperand(0).getDefiningOp();
    if (source && group.contains(source) && isa<linalg::LinalgOp>(source))
      roots.insert(source);
  }
  done = roots.empty();
  if (done)
    return success();
  // The last of them is tiled; the others that it depends on are fused into
  // its tiles and yield their tiles too.
  auto root = cast<linalg::LinalgOp>(roots.back());
  if (feedsKernel(root, block, kernelId) || readsKernel(root, block, kernelId))
    kernelId = nextKernelId++;
  bool hasMatmul = llvm::any_of(ops, isContraction);
  // A multi-reduction group over rows is tiled at its last row op, the only
  // result; any other multi-reduction group is split at its reductions.
  bool rowTiles = info.rowDims > 0 && roots.size() == 1 &&
                  root.getNumReductionLoops() == 0 &&
                  root.getNumLoops() > info.rowDims;
  llvm::SmallPtrSet<Operation *, 4> split;
  if (info.multiReduction && !rowTiles)
    split = findRowReductions(group);
  SmallVector<int64_t> tileSizes = chooseTileSizes(
      root, hasMatmul, rowTiles ? info.rowDims : 0, info.rowsPerTile,
      hasMatmul || rowTiles ? 0
                            : stagedBytesPerOutput(root, block, group, split));
  unsigned numTiled = llvm::count_if(tileSizes, [](int64_t s) { return s; });
  if (numTiled == 0)
    return wrapInOneTile(rewriter, group, root, kernelId);

  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), tileSizes))
      .setLoopType(scf::SCFTilingOptions::LoopType::ForallOp)
      .setMapping(blockMapping(rewriter.getContext(), numTiled).getValue());
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp slice, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *owner = producer.getOwner();
        if (!group.contains(owner) || isa<scf::ForallOp>(owner) ||
            split.contains(owner) || exceedsWorkgroupMemory(slice))
          return std::nullopt;
        scf::SCFTileAndFuseOptions::ControlFnResult result;
        result.yieldProducerReplacement = roots.contains(owner);
        return result;
      });

  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> tiled =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  // No input is known to reach this error: the linalg ops of a lowered group
  // have static shapes and tile along any parallel dimension. It stays for
  // an op that a future lowering might produce and that does not tile.
  if (failed(tiled))
    return root->emitOpError("cannot be tiled into one GPU kernel");
  for (LoopLikeOpInterface loop : tiled->loops)
    loop->setAttr(kKernelAttr, rewriter.getI64IntegerAttr(kernelId));
  // A fused producer the loop yields keeps its value for the ops the loop
  // reads (a reduction of a split group reading it before the loop): they
  // cannot read the loop's result, and the producer is tiled again for them.
  llvm::SmallPtrSet<Operation *, 16> feeding =
      opsFeeding(block, tiled->loops.front());
  for (auto [original, replacement] : tiled->replacements)
    rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
      Operation *user = block->findAncestorOpInBlock(*use.getOwner());
      return !user || !feeding.contains(user);
    });
  moveUsersAfter(rewriter, tiled->loops.front());
  if (rowTiles)
    stageSharedInputs(rewriter,
                      cast<scf::ForallOp>(tiled->loops.front().getOperation()),
                      info.rowsPerTile);

  // Tiling leaves slices of the untiled ops in the loop body; once they are
  // gone, the untiled ops are dead too.
  for (LoopLikeOpInterface loop : llvm::reverse(tiled->loops))
    for (Region &region : loop->getRegions())
      for (Block &body : region)
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
          if (isOpTriviallyDead(&op))
            rewriter.eraseOp(&op);
  SmallVector<Operation *> candidates;
  for (Operation *op : llvm::reverse(ops))
    if (op != tiled->loops.front().getOperation())
      candidates.push_back(op);
  eraseDeadOps(rewriter, candidates);
  return success();
}

/// Moves the reshapes between the linalg ops of the group made of the ops
/// between `before` and `after` past their consumers: an op that reads the
/// tensor.expand_shape of another op of the group is collapsed to that op's
/// shape and its result expanded instead. Tiling fuses no producer through
/// a reshape, so otherwise the two would be two kernels (a keepdims
/// reduction and the division of reduce_mean).
static void sinkReshapesOfGroup(Block *block, Operation *before,
                                Operation *after) {
  SmallVector<Operation *> ops = opsBetween(block, before, after);
  llvm::SetVector<Operation *> group(ops.begin(), ops.end());
  MLIRContext *context = block->getParentOp()->getContext();
  RewritePatternSet patterns(context);
  linalg::populateFoldReshapeOpsByCollapsingPatterns(
      patterns, [&](OpOperand *operand) {
        auto reshape = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
        Operation *producer =
            reshape ? reshape.getSrc().getDefiningOp() : nullptr;
        return producer && group.contains(producer) &&
               group.contains(operand->getOwner()) &&
               isa<linalg::LinalgOp>(producer);
      });
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
}

/// Makes the generics of the group made of the ops between `before` and
/// `after` read through the tensor.expand_shape ops that only add unit
/// dimensions: they read the source, indexed without those dimensions.
/// Tiling fuses no producer through a reshape; the lowering of a row op
/// broadcasts a reduction over rows whose reduced extents are 1 (a softmax
/// over one column) with such a reshape rather than an indexing map. An
/// input stays where its unit dimension is the only extent of a loop (the
/// rows of a reduction over one element, made by a keepdims reduction).
static void readThroughUnitExpands(RewriterBase &rewriter, Block *block,
                                   Operation *before, Operation *after) {
  SmallVector<Operation *> ops = opsBetween(block, before, after);
  llvm::SmallPtrSet<Operation *, 16> group(ops.begin(), ops.end());
  // Whether `input` is the expansion of a result of the group: reading
  // through it lets tiling fuse its producer into the kernel.
  auto expandsGroupResult = [&](OpOperand *input) {
    auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>();
    Operation *source = expand ? expand.getSrc().getDefiningOp() : nullptr;
    return source && group.contains(source);
  };
  for (Operation *op : ops) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      continue;
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    bool changed = false;
    // The expansions of the group's results first: where not every input
    // can be read through, the one that stays is one from outside.
    SmallVector<OpOperand *> inputs = generic.getDpsInputOperands();
    std::stable_partition(inputs.begin(), inputs.end(), expandsGroupResult);
    for (OpOperand *input : inputs) {
      auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>();
      if (!expand)
        continue;
      // The result dimension of each source dimension: the one non-unit
      // dimension of its reassociation group (the last when all are 1).
      ArrayRef<int64_t> shape = expand.getResultType().getShape();
      SmallVector<unsigned> kept;
      bool unitOnly = true;
      for (ReassociationIndices group : expand.getReassociationIndices()) {
        auto nonUnit = llvm::make_filter_range(
            group, [&](int64_t dim) { return shape[dim] != 1; });
        int64_t count = llvm::range_size(nonUnit);
        unitOnly &= count <= 1;
        kept.push_back(count == 1 ? *nonUnit.begin() : group.back());
      }
      if (!unitOnly)
        continue;
      AffineMap map = maps[input->getOperandNumber()];
      SmallVector<AffineExpr> results;
      for (unsigned dim : kept)
        results.push_back(map.getResult(dim));
      maps[input->getOperandNumber()] = AffineMap::get(
          map.getNumDims(), map.getNumSymbols(), results, op->getContext());
      // A loop whose only extent was the unit dimension (the reduced one of
      // a reduction over it) would have none left: that input stays.
      if (!inversePermutation(concatAffineMaps(maps, op->getContext()))) {
        maps[input->getOperandNumber()] = map;
        continue;
      }
      rewriter.modifyOpInPlace(generic, [&] { input->set(expand.getSrc()); });
      changed = true;
    }
    if (changed)
      rewriter.modifyOpInPlace(generic, [&] {
        generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
  }
}

/// Makes the ops between `before` and `after` (one lowered group) one
/// kernel, numbered `nextKernelId` (which it advances): a forall per
/// independent result of the group, all tagged with the kernel's id; a
/// result that another of them reads is a kernel of its own, before it.
static LogicalResult formKernel(RewriterBase &rewriter, Block *block,
                                Operation *before, Operation *after,
                                const GroupInfo &info, int64_t &nextKernelId) {
  // A group over rows keeps its rows' shape: sinking would collapse the unit
  // reduced dimensions of a group over rows of one element away.
  if (info.rowDims == 0) {
    sinkReshapesOfGroup(block, before, after);
  } else {
    readThroughUnitExpands(rewriter, block, before, after);
  }
  int64_t kernelId = nextKernelId++;
  for (int round = 0; round < kMaxTiledResults; ++round) {
    bool done = false;
    if (failed(tileOneResult(rewriter, block, before, after, info, kernelId,
                             nextKernelId, done)))
      return failure();
    if (done)
      return success();
  }
  return success();
}

/// Makes every tensor.empty inside a kernel's forall (a temporary of one
/// tile: an accumulator, staged rows) a bufferization.alloc_tensor, which
/// CSE does not merge with an equal tensor.empty outside the forall.
/// Merged, the tile would write a buffer that is not its own: one that the
/// other blocks of its launch write too, or one that an earlier forall of
/// the same kernel reads on other blocks (the one-tile recomputation of a
/// reduction into the buffer of the reduction's own kernel, which the first
/// forall of the kernel reads). Bufferization orders the foralls of a
/// kernel one after another; the blocks of one launch run at once.
static void privatizeTileTemporaries(RewriterBase &rewriter, Operation *root) {
  SmallVector<tensor::EmptyOp> empties;
  root->walk([&](scf::ForallOp forall) {
    if (!forall->hasAttr(kKernelAttr))
      return;
    forall.getBody()->walk(
        [&](tensor::EmptyOp empty) { empties.push_back(empty); });
  });
  for (tensor::EmptyOp empty : empties) {
    rewriter.setInsertionPoint(empty);
    rewriter.replaceOpWithNewOp<bufferization::AllocTensorOp>(
        empty, empty.getType(), empty.getDynamicSizes());
  }
}

namespace {
struct JeetGpuFormKernelsPass
    : jeet::impl::JeetGpuFormKernelsPassBase<JeetGpuFormKernelsPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    linalg::registerTilingInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Each group, then each jeet op outside any group, becomes one kernel.
    SmallVector<Operation *> units;
    getOperation()->walk([&](Operation *op) {
      if (isa<FusionOp>(op) ||
          (llvm::isa_and_nonnull<JeetDialect>(op->getDialect()) &&
           !op->getParentOfType<FusionOp>() && !isa<YieldOp>(op)))
        units.push_back(op);
    });
    int64_t kernelId = 0;
    for (Operation *unit : units) {
      Block *block = unit->getBlock();
      Operation *before = unit->getPrevNode(), *after = unit->getNextNode();
      rewriter.setInsertionPoint(unit);
      GroupInfo info;
      if (auto fusion = dyn_cast<FusionOp>(unit)) {
        int64_t rowBytes = rowBytesOf(fusion);
        info.rowDims = getRowGroupLeadingDims(fusion);
        // One row too long to stage: one block would make every pass over
        // it, where the split group's last kernel (elementwise) takes many.
        if (info.rowDims > 0 && rowBytes > kRowStagingBytes &&
            ShapedType::getNumElements(
                cast<RankedTensorType>(fusion->getResult(0).getType())
                    .getShape()
                    .take_front(info.rowDims)) == 1)
          info.rowDims = 0;
        info.multiReduction = hasRowOps(fusion);
        info.rowsPerTile = rowsPerTile(rowBytes);
        if (failed(lowerFusionOpToLinalg(rewriter, fusion,
                                         /*epilogueTileSize=*/0)))
          return signalPassFailure();
      } else {
        FailureOr<SmallVector<Value>> results =
            lowerJeetOpToLinalg(rewriter, unit, unit->getOperands());
        if (failed(results))
          return signalPassFailure();
        rewriter.replaceOp(unit, *results);
      }
      if (failed(formKernel(rewriter, block, before, after, info, kernelId)))
        return signalPassFailure();
    }
    privatizeTileTemporaries(rewriter, getOperation());
  }
};
} // namespace
