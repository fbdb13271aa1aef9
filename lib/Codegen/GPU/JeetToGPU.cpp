//===- JeetToGPU.cpp - Form and map one GPU kernel per fusion group -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Two passes take a fused jeet graph to `gpu.launch` ops, one per
// `jeet.fusion` group:
//
// - `jeet-gpu-form-kernels` (tensors) lowers each group to linalg and tiles
//   the group's result over its parallel dimensions into one `scf.forall`
//   mapped to blocks, with every other op of the group fused into the tile.
// - `jeet-gpu-map-kernels` (buffers) turns each of these foralls into one
//   `gpu.launch` whose threads share the tile's loops, and the host's buffers
//   into `gpu.alloc`/`gpu.dealloc`.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/GPU/Passes.h"
#include "jeet/Conversion/JeetToLinalg/JeetToLinalg.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <numeric>

namespace jeet {
#define GEN_PASS_DEF_JEETGPUFORMKERNELSPASS
#define GEN_PASS_DEF_JEETGPUMAPKERNELSPASS
#define GEN_PASS_DEF_JEETGPUMERGEMODULESPASS
#include "jeet/Codegen/GPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace jeet;

/// The most bytes of workgroup memory a kernel may use without opting in to
/// more (static shared memory limit of every supported chip).
static constexpr int64_t kMaxWorkgroupBytes = 48 * 1024;

/// The attribute that names the kernel (the fusion group) a forall belongs
/// to: the foralls of a group with several independent results become one
/// launch.
static constexpr llvm::StringLiteral kKernelAttr = "jeet.kernel";

static ArrayAttr blockMapping(MLIRContext *context, unsigned numDims) {
  SmallVector<Attribute> mapping;
  for (unsigned i = 0; i < numDims; ++i)
    mapping.push_back(gpu::GPUBlockMappingAttr::get(
        context, static_cast<gpu::MappingId>(
                     static_cast<uint64_t>(gpu::MappingId::LinearDim0) + i)));
  return ArrayAttr::get(context, mapping);
}

//===----------------------------------------------------------------------===//
// jeet-gpu-form-kernels
//===----------------------------------------------------------------------===//

static bool isContraction(Operation *op) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
         linalg::isaContractionOpInterface(linalgOp);
}

/// Erases the ops of `ops` that became dead, users first.
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

/// Rows per tile of a row reduction: one per warp of a block of 256 threads.
static constexpr int64_t kRowsPerTile = 8;

/// Whether `op` reduces one dimension that is the innermost one of every
/// input that it indexes (a reduction of rows, which a warp can share).
static bool isRowReduction(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() != 1)
    return false;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  unsigned dim = reductions.front();
  AffineExpr expr = getAffineDimExpr(dim, op.getContext());
  bool readsRows = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<ShapedType>(input->get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(dim))
      continue;
    if (map.getNumResults() == 0 || map.getResults().back() != expr)
      return false;
    readsRows = true;
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.getMatchingIndexingMap(&init).isFunctionOfDim(dim))
      return false;
  return readsRows;
}

/// Tile sizes of the kernel whose result `root` computes: its parallel
/// dimensions only (reductions stay whole inside a tile).
static SmallVector<int64_t> chooseTileSizes(linalg::LinalgOp root,
                                            bool hasMatmul) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  SmallVector<unsigned> parallel;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::parallel)
      parallel.push_back(i);
  SmallVector<int64_t> sizes(ranges.size(), 0);
  if (hasMatmul) {
    // 64x64 output tiles; batch dimensions one at a time.
    for (auto [n, dim] : llvm::enumerate(llvm::reverse(parallel)))
      sizes[dim] = n < 2 ? std::min<int64_t>(64, ranges[dim]) : 1;
    return sizes;
  }
  // Fill the tile from the innermost dimension outward: 8 rows of a row
  // reduction (a warp each in a block of 256 threads), 256 outputs of
  // another reduction (one thread each), 1024 elements of an elementwise
  // kernel.
  int64_t budget = root.getNumReductionLoops() > 0 ? 256 : 1024;
  if (isRowReduction(root))
    budget = kRowsPerTile;
  for (unsigned dim : llvm::reverse(parallel)) {
    int64_t size = std::max<int64_t>(1, std::min(ranges[dim], budget));
    sizes[dim] = size;
    budget = std::max<int64_t>(1, budget / size);
  }
  return sizes;
}

/// Wraps `root` and the ops of the group it depends on in a forall of one
/// iteration (a kernel of one block): for results with no parallel
/// dimension.
static LogicalResult wrapInOneTile(RewriterBase &rewriter,
                                   const llvm::SetVector<Operation *> &group,
                                   linalg::LinalgOp root, int64_t kernelId) {
  if (root->getNumResults() != 1)
    return root->emitOpError("cannot be mapped to one GPU kernel: ")
           << root->getNumResults() << " results";
  // The group's ops that `root` depends on, in program order.
  llvm::SetVector<Operation *> slice;
  SmallVector<Operation *> worklist = {root};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!slice.insert(op))
      continue;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (group.contains(def))
            worklist.push_back(def);
    });
  }
  SmallVector<Operation *> ordered;
  for (Operation *op : group)
    if (slice.contains(op))
      ordered.push_back(op);

  Location loc = root.getLoc();
  auto type = cast<RankedTensorType>(root->getResult(0).getType());
  rewriter.setInsertionPoint(root);
  Value dest = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType());
  // The accumulator's origin (the tensor.empty under its fill) becomes the
  // forall's shared output, so that the result is computed in place.
  Value origin = root.getDpsInits().front();
  if (auto fill = origin.getDefiningOp<linalg::FillOp>())
    origin = fill.getOutputs().front();
  if (!origin.getDefiningOp<tensor::EmptyOp>())
    origin = nullptr;

  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)}, ValueRange{dest},
      blockMapping(rewriter.getContext(), 1));
  forall->setAttr(kKernelAttr, rewriter.getI64IntegerAttr(kernelId));
  Block *body = forall.getBody();
  Value shared = body->getArguments().back();
  IRMapping mapping;
  if (origin)
    mapping.map(origin, shared);
  rewriter.setInsertionPoint(body->getTerminator());
  for (Operation *op : ordered)
    if (op->getResults().empty() || op->getResult(0) != origin)
      rewriter.clone(*op, mapping);
  Value result = mapping.lookup(root->getResult(0));
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(rewriter.getContext(), type.getShape());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, result, shared, offsets,
                                        sizes, strides);
  rewriter.replaceAllUsesWith(root->getResult(0), forall.getResult(0));
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

/// Tiles one result of the group made of the ops between `before` and
/// `after` (program order) into a forall, and fuses the rest of the group
/// that it depends on into its tiles. Sets `done` when no result is left to
/// tile.
static LogicalResult tileOneResult(RewriterBase &rewriter, Block *block,
                                   Operation *before, Operation *after,
                                   int64_t kernelId, bool &done) {
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
  bool hasMatmul = llvm::any_of(ops, isContraction);
  SmallVector<int64_t> tileSizes = chooseTileSizes(root, hasMatmul);
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
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *owner = producer.getOwner();
        if (!group.contains(owner) || isa<scf::ForallOp>(owner))
          return std::nullopt;
        scf::SCFTileAndFuseOptions::ControlFnResult result;
        result.yieldProducerReplacement = roots.contains(owner);
        return result;
      });

  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> tiled =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(tiled))
    return root->emitOpError("cannot be tiled into one GPU kernel");
  for (LoopLikeOpInterface loop : tiled->loops)
    loop->setAttr(kKernelAttr, rewriter.getI64IntegerAttr(kernelId));
  for (auto [original, replacement] : tiled->replacements)
    rewriter.replaceAllUsesWith(original, replacement);

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

/// Makes the ops between `before` and `after` (one lowered group) one
/// kernel: a forall per independent result of the group, all tagged with
/// `kernelId`.
static LogicalResult formKernel(RewriterBase &rewriter, Block *block,
                                Operation *before, Operation *after,
                                int64_t kernelId) {
  for (int iteration = 0; iteration < 16; ++iteration) {
    bool done = false;
    if (failed(tileOneResult(rewriter, block, before, after, kernelId, done)))
      return failure();
    if (done)
      return success();
  }
  return success();
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
      if (auto fusion = dyn_cast<FusionOp>(unit)) {
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
      if (failed(formKernel(rewriter, block, before, after, kernelId++)))
        return signalPassFailure();
    }
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// jeet-gpu-map-kernels
//===----------------------------------------------------------------------===//

/// ceil((ub - lb) / step) for each dimension.
static SmallVector<Value> tripCounts(OpBuilder &b, Location loc,
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

static Value product(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value result = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value value : values)
    result = b.createOrFold<arith::MulIOp>(loc, result, value);
  return result;
}

/// The induction variables lb + index * step of the linear iteration
/// `linear` of a loop nest with `counts` iterations per dimension.
static SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
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

/// Moves the buffers allocated inside `launch` into its workgroup
/// attributions: shared memory of the bound of their size, viewed with their
/// own (possibly dynamic) shape.
static LogicalResult promoteAllocsToWorkgroup(RewriterBase &rewriter,
                                              gpu::LaunchOp launch) {
  SmallVector<memref::AllocOp> allocs;
  launch.getBody().walk(
      [&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                              gpu::AddressSpace::Workgroup);
  int64_t totalBytes = 0;
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    if (!type.getLayout().isIdentity() || type.getMemorySpace())
      return alloc.emitOpError("cannot be placed in workgroup memory");
    Location loc = alloc.getLoc();
    SmallVector<int64_t> bound(type.getShape());
    unsigned dynamicIndex = 0;
    for (int64_t &size : bound) {
      if (!ShapedType::isDynamic(size))
        continue;
      Value dynamicSize = alloc.getDynamicSizes()[dynamicIndex++];
      FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB,
          ValueBoundsConstraintSet::Variable(dynamicSize),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (failed(ub))
        return alloc.emitOpError(
            "in a GPU kernel has a size with no constant bound");
      size = *ub;
    }
    int64_t numElements = ShapedType::getNumElements(bound);
    totalBytes +=
        numElements * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    if (totalBytes > kMaxWorkgroupBytes)
      return alloc.emitOpError("needs ")
             << totalBytes << " bytes of workgroup memory in one kernel, more "
             << "than the " << kMaxWorkgroupBytes << " available";

    rewriter.setInsertionPoint(alloc);
    Value view;
    if (type.hasStaticShape()) {
      auto sharedType = MemRefType::get(type.getShape(), type.getElementType(),
                                        MemRefLayoutAttrInterface(), workgroup);
      view = launch.addWorkgroupAttribution(sharedType, loc);
    } else {
      auto flatType = MemRefType::get({numElements}, type.getElementType(),
                                      MemRefLayoutAttrInterface(), workgroup);
      Value buffer = launch.addWorkgroupAttribution(flatType, loc);
      SmallVector<OpFoldResult> sizes =
          getMixedValues(type.getShape(), alloc.getDynamicSizes(), rewriter);
      SmallVector<OpFoldResult> strides(sizes.size());
      OpFoldResult stride = rewriter.getIndexAttr(1);
      for (int64_t i = sizes.size() - 1; i >= 0; --i) {
        strides[i] = stride;
        Value next = arith::MulIOp::create(
            rewriter, loc,
            getValueOrCreateConstantIndexOp(rewriter, loc, stride),
            getValueOrCreateConstantIndexOp(rewriter, loc, sizes[i]));
        stride = next;
      }
      auto viewType = MemRefType::get(type.getShape(), type.getElementType(),
                                      MemRefLayoutAttrInterface(), workgroup);
      view = memref::ReinterpretCastOp::create(rewriter, loc, viewType, buffer,
                                               rewriter.getIndexAttr(0), sizes,
                                               strides);
    }
    Value cast = memref::MemorySpaceCastOp::create(rewriter, loc, type, view);
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    rewriter.replaceOp(alloc, cast);
  }
  return success();
}

/// The indices that `map` gives for the loop indices `ivs`.
static SmallVector<Value> applyIndexingMap(OpBuilder &b, Location loc,
                                           AffineMap map, ArrayRef<Value> ivs) {
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
static SmallVector<Value> emitPayload(OpBuilder &b, Location loc,
                                      linalg::LinalgOp op, ArrayRef<Value> ivs,
                                      ValueRange outs, Value replaced = {},
                                      Value replacement = {}) {
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

//===----------------------------------------------------------------------===//
// Vectorised elementwise accesses
//===----------------------------------------------------------------------===//

/// Bytes of one vectorised access (`ld.global.v4.f32`, `.v4.b32` of halves).
static constexpr int64_t kVectorBytes = 16;

/// Known divisors are kept as divisors of this power of two, so that they
/// stay small (a divisor of a known divisor is a known divisor too).
static constexpr int64_t kDivisorCap = int64_t(1) << 20;

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
  if (depth > 16)
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

/// A number that provably divides the element offset of the buffer view
/// `memref` from a base of a 256-byte aligned allocation (an argument of the
/// function, a host allocation), or 1 when its base is not known to be one.
static int64_t knownOffsetDivisor(Value memref, unsigned depth = 0) {
  if (depth > 16)
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
    return isa<func::FuncOp>(arg.getOwner()->getParentOp()) ? typeOffset() : 1;
  Operation *def = memref.getDefiningOp();
  if (isa<memref::AllocOp, gpu::AllocOp>(def))
    return typeOffset();
  // Views that keep their source's offset.
  if (isa<memref::CastOp, memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
    return knownOffsetDivisor(def->getOperand(0), depth + 1);
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

/// How `op` reads or writes one of its buffers along the vectors of its
/// innermost loop.
enum class VectorAccess { Vector, Broadcast };

/// The number of elements per thread and per access (16 bytes) with which
/// the elementwise op `op` (on buffers, loop sizes `sizes`) can be
/// vectorised, or nullopt: every buffer it reads or writes is indexed by the
/// innermost loop as its innermost, unit-stride dimension (a vector, whose
/// first element is then 16-byte aligned: the other strides and the view's
/// offset are multiples of the vector) or not at all (a broadcast scalar);
/// the vectors have elements of 16 or 32 bits, and the innermost loop size
/// is a multiple of the vector.
static std::optional<int64_t>
getVectorWidth(linalg::LinalgOp op, ArrayRef<Value> sizes,
               SmallVectorImpl<VectorAccess> &accesses) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops == 0 || op.getNumReductionLoops() != 0 ||
      !op.hasPureBufferSemantics())
    return std::nullopt;
  unsigned last = numLoops - 1;
  AffineExpr lastExpr = getAffineDimExpr(last, op.getContext());
  int64_t bitWidth = 0;
  accesses.clear();
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) {
      if (op.isDpsInit(&operand))
        return std::nullopt;
      accesses.push_back(VectorAccess::Broadcast);
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation())
      return std::nullopt;
    if (!map.isFunctionOfDim(last)) {
      if (op.isDpsInit(&operand))
        return std::nullopt;
      accesses.push_back(VectorAccess::Broadcast);
      continue;
    }
    if (map.getResults().back() != lastExpr)
      return std::nullopt;
    Type elementType = type.getElementType();
    if (!elementType.isIntOrFloat())
      return std::nullopt;
    int64_t width = elementType.getIntOrFloatBitWidth();
    if ((width != 16 && width != 32) || (bitWidth && width != bitWidth))
      return std::nullopt;
    bitWidth = width;
    accesses.push_back(VectorAccess::Vector);
  }
  if (!bitWidth)
    return std::nullopt;
  int64_t numElements = kVectorBytes * 8 / bitWidth;
  if (knownDivisor(sizes[last]) % numElements != 0)
    return std::nullopt;
  for (auto [operand, access] :
       llvm::zip_equal(op->getOpOperands(), accesses)) {
    if (access != VectorAccess::Vector)
      continue;
    auto type = cast<MemRefType>(operand.get().getType());
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
    if (knownOffsetDivisor(operand.get()) % numElements != 0)
      return std::nullopt;
  }
  return numElements;
}

/// Emits the payload of the elementwise `op` for the `numElements`
/// consecutive elements of its innermost loop from loop indices `ivs` (the
/// first one, a multiple of `numElements`): each buffer of a vector access
/// is read or written with one 16-byte aligned `vector.load`/`vector.store`,
/// each broadcast once, and the payload runs once per element.
static void emitVectorPayload(OpBuilder &b, Location loc, linalg::LinalgOp op,
                              ArrayRef<Value> ivs, int64_t numElements,
                              ArrayRef<VectorAccess> accesses) {
  unsigned last = op.getNumLoops() - 1;
  llvm::MaybeAlign alignment(kVectorBytes);
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
    values.push_back(vector::LoadOp::create(b, loc, vectorType, value, indices,
                                            /*nontemporal=*/false, alignment));
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
    vector::StoreOp::create(b, loc, vector, init.get(), indices,
                            /*nontemporal=*/false, alignment);
  }
}

/// Replaces the linalg op `op` (on buffers) by loops: its parallel
/// dimensions are linearized and shared by the block's threads (thread t
/// takes t, t + blockDim, ...; consecutive threads get consecutive indices
/// of the innermost dimension), or run by thread 0 alone when it has none.
/// Each thread keeps its outputs in registers across the reduction loops and
/// stores them once. Returns the op that holds the loops.
static FailureOr<Operation *>
emitThreadLoops(RewriterBase &rewriter, linalg::LinalgOp op, Value &thread) {
  Location loc = op.getLoc();
  if (!op.hasPureBufferSemantics())
    return op->emitOpError("in a GPU kernel is not bufferized");
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel, reduction;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    (iterator == utils::IteratorType::parallel ? parallel : reduction)
        .push_back(i);
  for (OpOperand &init : op.getDpsInitsMutable())
    for (unsigned dim : reduction)
      if (op.getMatchingIndexingMap(&init).isFunctionOfDim(dim))
        return op->emitOpError("writes along a reduction dimension");

  rewriter.setInsertionPoint(op);
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  if (!thread) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(op->getBlock());
    thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  }

  // Elementwise ops whose buffers allow it take vectors of 16 bytes: each
  // thread its own, consecutive threads consecutive vectors of the innermost
  // dimension; the innermost size is a multiple of the vector, so the loop
  // bound keeps whole vectors in bounds.
  SmallVector<VectorAccess> accesses;
  std::optional<int64_t> vectorWidth = getVectorWidth(op, sizes, accesses);

  SmallVector<Value> ivs(iterators.size(), zero);
  Operation *root;
  if (parallel.empty()) {
    Value isFirst = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, thread, zero);
    auto ifOp = scf::IfOp::create(rewriter, loc, isFirst,
                                  /*withElseRegion=*/false);
    rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    root = ifOp;
  } else {
    SmallVector<Value> counts;
    for (unsigned dim : parallel)
      counts.push_back(sizes[dim]);
    Value width;
    if (vectorWidth) {
      width = arith::ConstantIndexOp::create(rewriter, loc, *vectorWidth);
      counts.back() =
          rewriter.createOrFold<arith::DivUIOp>(loc, counts.back(), width);
    }
    Value total = product(rewriter, loc, counts);
    Value threads = gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x);
    auto loop = scf::ForOp::create(rewriter, loc, thread, total, threads);
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    SmallVector<OpFoldResult> zeros(counts.size(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(counts.size(), rewriter.getIndexAttr(1));
    SmallVector<Value> indices =
        delinearize(rewriter, loc, loop.getInductionVar(), counts, zeros, ones);
    for (auto [dim, index] : llvm::zip_equal(parallel, indices))
      ivs[dim] = index;
    if (vectorWidth)
      ivs[parallel.back()] = rewriter.createOrFold<arith::MulIOp>(
          loc, ivs[parallel.back()], width);
    root = loop;
  }
  if (vectorWidth) {
    emitVectorPayload(rewriter, loc, op, ivs, *vectorWidth, accesses);
    rewriter.eraseOp(op);
    return root;
  }

  // The outputs at these parallel indices, read once.
  SmallVector<SmallVector<Value>> outIndices;
  SmallVector<Value> outs;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    outIndices.push_back(
        applyIndexingMap(rewriter, loc, op.getMatchingIndexingMap(&init), ivs));
    Type elementType = getElementTypeOrSelf(init.get().getType());
    if (reduction.empty() && !op.payloadUsesValueFromOperand(&init))
      outs.push_back(ub::PoisonOp::create(rewriter, loc, elementType));
    else
      outs.push_back(
          memref::LoadOp::create(rewriter, loc, init.get(), outIndices.back()));
  }
  SmallVector<Value> results;
  if (reduction.empty()) {
    results = emitPayload(rewriter, loc, op, ivs, outs);
  } else {
    SmallVector<Value> lbs(reduction.size(), zero),
        steps(reduction.size(), one);
    SmallVector<Value> ubs;
    for (unsigned dim : reduction)
      ubs.push_back(sizes[dim]);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, outs,
        [&](OpBuilder &b, Location bodyLoc, ValueRange loopIvs,
            ValueRange accumulators) -> scf::ValueVector {
          for (auto [dim, iv] : llvm::zip_equal(reduction, loopIvs))
            ivs[dim] = iv;
          return emitPayload(b, bodyLoc, op, ivs, accumulators);
        });
    results = llvm::to_vector(nest.results);
  }
  for (auto [init, result, indices] :
       llvm::zip_equal(op.getDpsInitsMutable(), results, outIndices))
    memref::StoreOp::create(rewriter, loc, result, init.get(), indices);
  rewriter.eraseOp(op);
  return root;
}

//===----------------------------------------------------------------------===//
// Warp reductions
//===----------------------------------------------------------------------===//

static constexpr int64_t kWarpSize = 32;

/// The op of the payload of `op` (one output) that folds one reduction step
/// into the accumulator, `combiner(out, x)` where `out` is used nowhere
/// else, when it has a neutral element; null otherwise.
static Operation *getCombiner(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return nullptr;
  Block *body = op.getBlock();
  BlockArgument out = op.getMatchingBlockArgument(&op.getDpsInitsMutable()[0]);
  if (!out.hasOneUse())
    return nullptr;
  Operation *combiner = *out.getUsers().begin();
  if (combiner->getBlock() != body || combiner->getNumOperands() != 2 ||
      combiner->getNumResults() != 1 ||
      combiner->getOperand(0) == combiner->getOperand(1) ||
      body->getTerminator()->getOperand(0) != combiner->getResult(0) ||
      !combiner->getResult(0).hasOneUse() ||
      !arith::getNeutralElement(combiner))
    return nullptr;
  return combiner;
}

/// Replaces `op` by a reduction of each row by one warp when it reduces one
/// dimension that is the innermost one of every input that it indexes, with
/// a combiner (see getCombiner) on 32-bit values: warp w of the block takes
/// rows w, w + warps, ...; lane l folds the row's elements l, l + 32, ...
/// (consecutive lanes read consecutive elements), a butterfly of
/// `gpu.shuffle xor` combines the lanes, and lane 0 folds the result into
/// the output. Returns the op that holds the loops, or null (nothing done)
/// when `op` is not such a reduction.
static Operation *emitWarpReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                    Value &thread) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 1)
    return nullptr;
  Operation *combiner = getCombiner(op);
  if (!combiner)
    return nullptr;
  Type type = combiner->getResult(0).getType();
  if (!type.isInteger(32) && !type.isF32())
    return nullptr;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel;
  unsigned reductionDim = 0;
  for (auto [i, iterator] : llvm::enumerate(iterators)) {
    if (iterator == utils::IteratorType::parallel)
      parallel.push_back(i);
    else
      reductionDim = i;
  }
  if (!isRowReduction(op))
    return nullptr;
  OpOperand &init = op.getDpsInitsMutable()[0];
  AffineMap initMap = op.getMatchingIndexingMap(&init);

  Location loc = op.getLoc();
  Block *body = op.getBlock();
  BlockArgument outArg = op.getMatchingBlockArgument(&init);
  Value stepValue = combiner->getOperand(0) == outArg ? combiner->getOperand(1)
                                                      : combiner->getOperand(0);
  auto combine = [&](Value accumulator, Value step) -> Value {
    IRMapping mapping;
    mapping.map(outArg, accumulator);
    mapping.map(stepValue, step);
    return rewriter.clone(*combiner, mapping)->getResult(0);
  };

  rewriter.setInsertionPoint(op);
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value warpSize = arith::ConstantIndexOp::create(rewriter, loc, kWarpSize);
  if (!thread) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(op->getBlock());
    thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  }
  Value lane = arith::RemUIOp::create(rewriter, loc, thread, warpSize);
  Value warp = arith::DivUIOp::create(rewriter, loc, thread, warpSize);
  Value warps = arith::DivUIOp::create(
      rewriter, loc, gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x),
      warpSize);
  SmallVector<Value> counts;
  for (unsigned dim : parallel)
    counts.push_back(sizes[dim]);
  Value total = product(rewriter, loc, counts);
  auto rowLoop = scf::ForOp::create(rewriter, loc, warp, total, warps);
  rewriter.setInsertionPoint(rowLoop.getBody()->getTerminator());
  SmallVector<Value> ivs(iterators.size(), zero);
  if (!parallel.empty()) {
    SmallVector<OpFoldResult> zeros(counts.size(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(counts.size(), rewriter.getIndexAttr(1));
    SmallVector<Value> indices = delinearize(
        rewriter, loc, rowLoop.getInductionVar(), counts, zeros, ones);
    for (auto [dim, index] : llvm::zip_equal(parallel, indices))
      ivs[dim] = index;
  }

  // Each lane folds its elements of the row.
  Value neutral = arith::ConstantOp::create(
      rewriter, loc, type, *arith::getNeutralElement(combiner));
  auto laneLoop = scf::ForOp::create(rewriter, loc, lane, sizes[reductionDim],
                                     warpSize, ValueRange{neutral});
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(laneLoop.getBody());
    ivs[reductionDim] = laneLoop.getInductionVar();
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      if (isa<MemRefType>(value.getType()))
        value = memref::LoadOp::create(
            rewriter, loc, value,
            applyIndexingMap(rewriter, loc, op.getMatchingIndexingMap(input),
                             ivs));
      mapping.map(op.getMatchingBlockArgument(input), value);
    }
    for (Operation &payload : body->without_terminator()) {
      if (&payload == combiner)
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(payload)) {
        mapping.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      rewriter.clone(payload, mapping);
    }
    Value step = mapping.lookupOrDefault(stepValue);
    scf::YieldOp::create(rewriter, loc,
                         combine(laneLoop.getRegionIterArgs().front(), step));
  }
  ivs[reductionDim] = zero;

  // A butterfly across the warp: every lane ends with the row's value.
  Value partial = laneLoop.getResult(0);
  for (int64_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
    auto shuffle = gpu::ShuffleOp::create(rewriter, loc, partial, offset,
                                          kWarpSize, gpu::ShuffleMode::XOR);
    partial = combine(partial, shuffle.getShuffleResult());
  }
  Value isFirst = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        lane, zero);
  auto ifOp = scf::IfOp::create(rewriter, loc, isFirst,
                                /*withElseRegion=*/false);
  rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  SmallVector<Value> outIndices = applyIndexingMap(rewriter, loc, initMap, ivs);
  Value out = memref::LoadOp::create(rewriter, loc, init.get(), outIndices);
  memref::StoreOp::create(rewriter, loc, combine(out, partial), init.get(),
                          outIndices);
  rewriter.eraseOp(op);
  return rowLoop;
}

//===----------------------------------------------------------------------===//
// Register-tiled matmuls
//===----------------------------------------------------------------------===//

/// The block tile of a matmul: kTileM x kTileN outputs, K-tiles of depth
/// kTileK staged in workgroup memory; kThreadsM x kThreadsN threads, each
/// with a kRegM x kRegN register tile (rows ty + kThreadsM * i, columns
/// tx + kThreadsN * j, so that consecutive threads store consecutive
/// columns).
static constexpr int64_t kTileM = 64, kTileN = 64, kTileK = 16;
static constexpr int64_t kThreadsM = 16, kThreadsN = 16;
static constexpr int64_t kRegM = kTileM / kThreadsM;
static constexpr int64_t kRegN = kTileN / kThreadsN;
static constexpr int64_t kMatmulThreads = kThreadsM * kThreadsN;

namespace {
/// A contraction of one tile, the fill that initializes its accumulator and
/// the elementwise epilogue that is its only reader (when there is one).
struct TiledMatmul {
  linalg::LinalgOp matmul;
  linalg::FillOp fill;
  linalg::GenericOp epilogue;
  /// The dimensions of the register tiles and of the K-tiles, and the
  /// others (batch, outer M and N dimensions), looped over around them.
  unsigned mDim, nDim, kDim;
  SmallVector<unsigned> outerDims;
  Type accType;
};
} // namespace

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
static std::optional<TiledMatmul> planTiledMatmul(linalg::LinalgOp op) {
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

/// Emits `plan` as one block's register-tiled matmul: for each K-tile, the
/// block's threads stage the kTileM x kTileK tile of A and the kTileK x
/// kTileN tile of B in workgroup memory (coalesced, zero outside the
/// operands), a barrier, each thread accumulates its register tile from
/// them, a barrier. Batch dimensions are a loop around it. The results, in
/// bounds, go through the epilogue (when fused) or to the accumulator.
/// Returns the op that holds the loops.
static Operation *emitTiledMatmul(RewriterBase &rewriter, gpu::LaunchOp launch,
                                  TiledMatmul plan) {
  linalg::LinalgOp op = plan.matmul;
  Location loc = op.getLoc();
  MLIRContext *context = rewriter.getContext();
  Type accType = plan.accType;
  auto workgroup =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  Value tileA = launch.addWorkgroupAttribution(
      MemRefType::get({kTileM, kTileK}, accType, MemRefLayoutAttrInterface(),
                      workgroup),
      loc);
  Value tileB = launch.addWorkgroupAttribution(
      MemRefType::get({kTileK, kTileN}, accType, MemRefLayoutAttrInterface(),
                      workgroup),
      loc);

  // At the epilogue when there is one: what it reads besides the
  // accumulator is defined before it.
  rewriter.setInsertionPoint(plan.epilogue ? plan.epilogue.getOperation()
                                           : op.getOperation());
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value zero = index(0), one = index(1);
  unsigned mDim = plan.mDim, nDim = plan.nDim, kDim = plan.kDim;
  Value sizeM = sizes[mDim], sizeN = sizes[nDim], sizeK = sizes[kDim];
  Value lastM = arith::SubIOp::create(rewriter, loc, sizeM, one);
  Value lastN = arith::SubIOp::create(rewriter, loc, sizeN, one);
  Value lastK = arith::SubIOp::create(rewriter, loc, sizeK, one);

  Value thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value ty = arith::DivUIOp::create(rewriter, loc, thread, index(kThreadsN));
  Value tx = arith::RemUIOp::create(rewriter, loc, thread, index(kThreadsN));
  Value by = arith::DivUIOp::create(rewriter, loc, thread, index(kTileN));
  Value bx = arith::RemUIOp::create(rewriter, loc, thread, index(kTileN));
  SmallVector<Value> rows, cols;
  for (int64_t i = 0; i < kRegM; ++i)
    rows.push_back(
        arith::AddIOp::create(rewriter, loc, ty, index(i * kThreadsM)));
  for (int64_t j = 0; j < kRegN; ++j)
    cols.push_back(
        arith::AddIOp::create(rewriter, loc, tx, index(j * kThreadsN)));

  auto toAcc = [&](Value value) -> Value {
    if (value.getType() == accType)
      return value;
    return arith::ExtFOp::create(rewriter, loc, accType, value);
  };
  auto lessThan = [&](Value lhs, Value rhs) -> Value {
    return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, lhs,
                                 rhs);
  };
  auto clamp = [&](Value value, Value last) -> Value {
    return arith::MinUIOp::create(rewriter, loc, value, last);
  };
  Value accZero = arith::ConstantOp::create(rewriter, loc, accType,
                                            rewriter.getZeroAttr(accType));
  Value initValue = toAcc(plan.fill.getInputs().front());

  // Batch (and outer M and N) dimensions, linearized.
  SmallVector<Value> batchSizes;
  for (unsigned dim : plan.outerDims)
    batchSizes.push_back(sizes[dim]);
  Value batchCount = product(rewriter, loc, batchSizes);
  auto batchLoop = scf::ForOp::create(rewriter, loc, zero, batchCount, one);
  rewriter.setInsertionPoint(batchLoop.getBody()->getTerminator());
  SmallVector<Value> ivs(sizes.size(), zero);
  if (!batchSizes.empty()) {
    SmallVector<OpFoldResult> zeros(batchSizes.size(),
                                    rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(batchSizes.size(), rewriter.getIndexAttr(1));
    SmallVector<Value> batchIvs = delinearize(
        rewriter, loc, batchLoop.getInductionVar(), batchSizes, zeros, ones);
    for (auto [dim, iv] : llvm::zip_equal(plan.outerDims, batchIvs))
      ivs[dim] = iv;
  }

  SmallVector<Value> inits(kRegM * kRegN, initValue);
  auto kLoop =
      scf::ForOp::create(rewriter, loc, zero, sizeK, index(kTileK), inits);
  rewriter.setInsertionPointToStart(kLoop.getBody());
  Value k0 = kLoop.getInductionVar();
  // Stage the K-tiles: element (row, col) of a tile, zero outside the
  // operand (the load itself is clamped into it).
  auto stage = [&](OpOperand *operand, Value tile, Value row, Value col,
                   Value m, Value n, Value k) {
    Value inBounds = arith::AndIOp::create(
        rewriter, loc,
        arith::AndIOp::create(rewriter, loc, lessThan(m, sizeM),
                              lessThan(n, sizeN)),
        lessThan(k, sizeK));
    SmallVector<Value> at(ivs);
    at[mDim] = clamp(m, lastM);
    at[nDim] = clamp(n, lastN);
    at[kDim] = clamp(k, lastK);
    Value value = memref::LoadOp::create(
        rewriter, loc, operand->get(),
        applyIndexingMap(rewriter, loc, op.getMatchingIndexingMap(operand),
                         at));
    value =
        arith::SelectOp::create(rewriter, loc, inBounds, toAcc(value), accZero);
    memref::StoreOp::create(rewriter, loc, value, tile, ValueRange{row, col});
  };
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
  gpu::BarrierOp::create(rewriter, loc);
  SmallVector<Value> acc(kLoop.getRegionIterArgs());
  for (int64_t kk = 0; kk < kTileK; ++kk) {
    Value kkIndex = index(kk);
    SmallVector<Value> a, b;
    for (Value row : rows)
      a.push_back(memref::LoadOp::create(rewriter, loc, tileA,
                                         ValueRange{row, kkIndex}));
    for (Value col : cols)
      b.push_back(memref::LoadOp::create(rewriter, loc, tileB,
                                         ValueRange{kkIndex, col}));
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
  gpu::BarrierOp::create(rewriter, loc);
  scf::YieldOp::create(rewriter, loc, acc);

  // The register tile, in bounds, through the epilogue or to memory.
  rewriter.setInsertionPointAfter(kLoop);
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
      at[mDim] = rows[i];
      at[nDim] = cols[j];
      SmallVector<Value> accIndices =
          applyIndexingMap(rewriter, loc, accMap, at);
      if (!plan.epilogue) {
        memref::StoreOp::create(rewriter, loc, value, accBuffer, accIndices);
        continue;
      }
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
          outs.push_back(memref::LoadOp::create(rewriter, loc, out.get(),
                                                outIndices.back()));
        else
          outs.push_back(ub::PoisonOp::create(rewriter, loc, elementType));
      }
      SmallVector<Value> results = emitPayload(
          rewriter, loc, epilogue, epilogueIvs, outs, accBuffer, value);
      for (auto [out, result, indices] :
           llvm::zip_equal(epilogue.getDpsInitsMutable(), results, outIndices))
        memref::StoreOp::create(rewriter, loc, result, out.get(), indices);
    }
  }

  if (plan.epilogue)
    rewriter.eraseOp(plan.epilogue);
  rewriter.eraseOp(op);
  rewriter.eraseOp(plan.fill);
  // A temporary accumulator that nothing reads any more (in the tile, or on
  // the host when the tile is the whole result).
  auto alloc = accBuffer.getDefiningOp<memref::AllocOp>();
  if (plan.epilogue && alloc &&
      llvm::all_of(alloc->getUsers(), llvm::IsaPred<memref::DeallocOp>)) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(alloc);
  }
  return batchLoop;
}

/// Lowers the linalg ops of `body` (a kernel's body, or the part of it that
/// one tile runs) to loops shared by the block's threads, separated by
/// barriers.
/// `premapped` are the ops that already hold phases (tiled matmuls); with
/// `warpReductions` (blocks of whole warps), row reductions take a warp per
/// row.
static LogicalResult
mapBlockToThreads(RewriterBase &rewriter, Block &body,
                  const llvm::SmallPtrSetImpl<Operation *> &premapped,
                  bool warpReductions) {
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
  // Each linalg op is one phase of the kernel.
  Value thread;
  SmallVector<Operation *> phases;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (premapped.contains(&op)) {
      phases.push_back(&op);
      continue;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      continue;
    if (warpReductions) {
      if (Operation *loops = emitWarpReduction(rewriter, linalgOp, thread)) {
        phases.push_back(loops);
        continue;
      }
    }
    FailureOr<Operation *> loops = emitThreadLoops(rewriter, linalgOp, thread);
    if (failed(loops))
      return failure();
    phases.push_back(*loops);
  }
  // A barrier between consecutive phases: the next one may read what any
  // thread of the block wrote.
  for (Operation *phase : ArrayRef(phases).drop_back()) {
    rewriter.setInsertionPointAfter(phase);
    gpu::BarrierOp::create(rewriter, phase->getLoc());
  }
  return success();
}

/// One `gpu.launch` for the foralls of one kernel (bufferized, in program
/// order): a block per iteration of the forall with the most iterations;
/// the others run on the blocks of their iterations.
static LogicalResult convertKernelToLaunch(RewriterBase &rewriter,
                                           ArrayRef<scf::ForallOp> foralls,
                                           int64_t blockSize) {
  for (scf::ForallOp forall : foralls)
    if (forall.getNumResults() != 0)
      return forall.emitOpError(
          "must be bufferized before it becomes a kernel");
  scf::ForallOp last = foralls.back();
  // Frees between the foralls of one kernel move after it.
  Operation *first = foralls.front();
  for (Operation *op = first; op != last;) {
    Operation *next = op->getNextNode();
    if (isa<memref::DeallocOp>(op))
      rewriter.moveOpAfter(op, last);
    op = next;
  }

  Location loc = last.getLoc();
  rewriter.setInsertionPoint(last);
  Value grid;
  for (scf::ForallOp forall : foralls) {
    Value count =
        product(rewriter, loc,
                tripCounts(rewriter, loc, forall.getMixedLowerBound(),
                           forall.getMixedUpperBound(), forall.getMixedStep()));
    grid =
        grid ? rewriter.createOrFold<arith::MaxUIOp>(loc, grid, count) : count;
  }
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value threads = arith::ConstantIndexOp::create(rewriter, loc, blockSize);
  auto launch =
      gpu::LaunchOp::create(rewriter, loc, grid, one, one, threads, one, one);
  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(rewriter, loc);

  SmallVector<Block *> tiles;
  for (scf::ForallOp forall : foralls) {
    rewriter.setInsertionPoint(body.getTerminator());
    SmallVector<OpFoldResult> lbs = forall.getMixedLowerBound();
    SmallVector<OpFoldResult> ubs = forall.getMixedUpperBound();
    SmallVector<OpFoldResult> steps = forall.getMixedStep();
    // The counts are recomputed inside (sinking keeps them out of the
    // kernel's arguments).
    SmallVector<Value> counts = tripCounts(rewriter, loc, lbs, ubs, steps);
    Value blockId = launch.getBlockIds().x;
    Block *tile = &body;
    if (foralls.size() > 1) {
      Value inRange =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult,
                                blockId, product(rewriter, loc, counts));
      auto ifOp = scf::IfOp::create(rewriter, loc, inRange,
                                    /*withElseRegion=*/false);
      tile = ifOp.thenBlock();
      rewriter.setInsertionPoint(tile->getTerminator());
    }
    SmallVector<Value> ivs =
        delinearize(rewriter, loc, blockId, counts, lbs, steps);
    IRMapping mapping;
    mapping.map(forall.getInductionVars(), ivs);
    for (Operation &op : forall.getBody()->without_terminator())
      rewriter.clone(op, mapping);
    tiles.push_back(tile);
  }
  for (scf::ForallOp forall : foralls)
    rewriter.eraseOp(forall);

  // Matmuls with a block of the threads that their register tiles need.
  llvm::SmallPtrSet<Operation *, 4> premapped;
  if (blockSize == kMatmulThreads) {
    for (Block *tile : tiles) {
      SmallVector<TiledMatmul> plans;
      for (Operation &op : *tile)
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
          if (std::optional<TiledMatmul> plan = planTiledMatmul(linalgOp))
            plans.push_back(*plan);
      for (TiledMatmul &plan : plans)
        premapped.insert(emitTiledMatmul(rewriter, launch, plan));
    }
  }

  if (failed(promoteAllocsToWorkgroup(rewriter, launch)))
    return failure();
  for (Block *tile : tiles)
    if (failed(
            mapBlockToThreads(rewriter, *tile, premapped,
                              /*warpReductions=*/blockSize % kWarpSize == 0)))
      return failure();
  return success();
}

/// Host buffers become device buffers of the runtime's allocator.
static LogicalResult convertHostMemory(RewriterBase &rewriter,
                                       func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp>(op))
      ops.push_back(op);
    return WalkResult::advance();
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::AllocOp>(
          alloc, alloc.getType(), /*asyncToken=*/Type(), ValueRange(),
          alloc.getDynamicSizes(), alloc.getSymbolOperands());
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
          dealloc, /*asyncToken=*/Type(), ValueRange(), dealloc.getMemref());
    } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rewriter.replaceOpWithNewOp<gpu::MemcpyOp>(copy, /*asyncToken=*/Type(),
                                                 ValueRange(), copy.getTarget(),
                                                 copy.getSource());
    }
  }
  return success();
}

/// Globals (constant tensors) are read by the kernels that use them: their
/// `memref.get_global` moves into the kernel, which takes the global along
/// when it is outlined.
static void sinkGlobals(RewriterBase &rewriter, gpu::LaunchOp launch) {
  llvm::SetVector<Value> usedAbove;
  getUsedValuesDefinedAbove(launch.getBody(), usedAbove);
  for (Value value : usedAbove) {
    auto global = value.getDefiningOp<memref::GetGlobalOp>();
    if (!global)
      continue;
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    Operation *clone = rewriter.clone(*global);
    rewriter.replaceUsesWithIf(value, clone->getResult(0), [&](OpOperand &use) {
      return launch->isProperAncestor(use.getOwner());
    });
  }
}

/// Whether `copy` can be a device-to-device memcpy: same contiguous type.
static bool isContiguousCopy(memref::CopyOp copy) {
  auto source = cast<MemRefType>(copy.getSource().getType());
  auto target = cast<MemRefType>(copy.getTarget().getType());
  return source.getShape() == target.getShape() &&
         source.getLayout().isIdentity() && target.getLayout().isIdentity();
}

namespace {
struct JeetGpuMapKernelsPass
    : jeet::impl::JeetGpuMapKernelsPassBase<JeetGpuMapKernelsPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registry.insert<vector::VectorDialect>();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    IRRewriter rewriter(&getContext());
    MLIRContext *context = &getContext();

    // Compute left on the host (a linalg op outside any kernel forall, a
    // strided copy) becomes a kernel of one block.
    SmallVector<Operation *> strays;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<scf::ForallOp, gpu::LaunchOp>(op))
        return WalkResult::skip();
      auto copy = dyn_cast<memref::CopyOp>(op);
      if (isa<linalg::LinalgOp>(op) || (copy && !isContiguousCopy(copy)))
        strays.push_back(op);
      return WalkResult::advance();
    });
    for (Operation *op : strays) {
      rewriter.setInsertionPoint(op);
      OpFoldResult zero = rewriter.getIndexAttr(0);
      OpFoldResult one = rewriter.getIndexAttr(1);
      auto forall = scf::ForallOp::create(
          rewriter, op->getLoc(), ArrayRef<OpFoldResult>{zero},
          ArrayRef<OpFoldResult>{one}, ArrayRef<OpFoldResult>{one},
          ValueRange(), blockMapping(context, 1));
      rewriter.moveOpBefore(op, forall.getBody()->getTerminator());
    }

    SmallVector<scf::ForallOp> kernels;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto forall = dyn_cast<scf::ForallOp>(op)) {
        kernels.push_back(forall);
        return WalkResult::skip();
      }
      return isa<gpu::LaunchOp>(op) ? WalkResult::skip()
                                    : WalkResult::advance();
    });
    // The foralls of one kernel (same jeet.kernel) become one launch.
    SmallVector<SmallVector<scf::ForallOp>> launches;
    llvm::DenseMap<Attribute, unsigned> byKernel;
    for (scf::ForallOp forall : kernels) {
      Attribute id = forall->getAttr(kKernelAttr);
      if (!id) {
        launches.push_back({forall});
        continue;
      }
      auto [it, inserted] = byKernel.try_emplace(id, launches.size());
      if (inserted)
        launches.push_back({});
      launches[it->second].push_back(forall);
    }
    for (ArrayRef<scf::ForallOp> foralls : launches)
      if (failed(convertKernelToLaunch(rewriter, foralls, blockSize)))
        return signalPassFailure();

    if (failed(convertHostMemory(rewriter, func)))
      return signalPassFailure();
    func.walk([&](gpu::LaunchOp launch) { sinkGlobals(rewriter, launch); });
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// jeet-gpu-merge-modules
//===----------------------------------------------------------------------===//

namespace {
struct JeetGpuMergeModulesPass
    : jeet::impl::JeetGpuMergeModulesPassBase<JeetGpuMergeModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    if (gpuModules.empty())
      return;
    gpu::GPUModuleOp target = gpuModules.front();
    SymbolTable targetSymbols(target);
    llvm::DenseMap<Attribute, SymbolRefAttr> renamed;
    // The merged module is named after what it holds.
    SymbolTable moduleSymbols(module);
    StringAttr targetName = StringAttr::get(&getContext(), "jeet_kernels");
    if (moduleSymbols.lookup(targetName))
      targetName = target.getNameAttr();
    for (Operation &op : target.getBody()->getOperations()) {
      if (auto symbol = dyn_cast<SymbolOpInterface>(op)) {
        auto name = FlatSymbolRefAttr::get(symbol.getNameAttr());
        renamed[SymbolRefAttr::get(target.getNameAttr(), {name})] =
            SymbolRefAttr::get(targetName, {name});
      }
    }
    for (gpu::GPUModuleOp source : ArrayRef(gpuModules).drop_front()) {
      if (source.getTargetsAttr() != target.getTargetsAttr()) {
        source.emitError("has other targets than @") << target.getName();
        return signalPassFailure();
      }
      for (Operation &op :
           llvm::make_early_inc_range(source.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol)
          continue;
        auto oldRef =
            SymbolRefAttr::get(source.getNameAttr(),
                               {FlatSymbolRefAttr::get(symbol.getNameAttr())});
        // Globals copied into several kernels are the same global.
        if (!isa<gpu::GPUFuncOp>(op) &&
            targetSymbols.lookup(symbol.getName())) {
          op.erase();
          continue;
        }
        op.remove();
        StringAttr name = targetSymbols.insert(&op);
        renamed[oldRef] =
            SymbolRefAttr::get(targetName, {FlatSymbolRefAttr::get(name)});
      }
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr newRef = renamed.lookup(launch.getKernel()))
        launch.setKernelAttr(newRef);
    });
    for (gpu::GPUModuleOp source : ArrayRef(gpuModules).drop_front())
      source.erase();
    if (targetName != target.getNameAttr())
      (void)moduleSymbols.rename(target, targetName);
  }
};
} // namespace
