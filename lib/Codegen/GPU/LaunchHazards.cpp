//===- LaunchHazards.cpp - Foralls that may not share one launch ---------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The foralls of one kernel (jeet-gpu-form-kernels' kKernelAttr) become one
// `gpu.launch`: block b runs tile b of the first forall, a barrier, tile b of
// the next. The barrier orders a block's own tiles only, so a later forall
// may read or write a buffer that an earlier one accesses (one of the two
// writing) only where both do it on the same block: through the same tile
// of the buffer, a subview whose offsets, sizes and strides are the same
// function of the two foralls' induction variables, over the same
// iteration space. jeet-gpu-form-kernels forms kernels that way; this check
// is the net under it, on buffers: a forall that accesses such a buffer in
// any other way (the whole buffer, another tile, a different iteration
// space) starts a launch of its own, which the stream orders after the
// earlier one. Buffers allocated inside a tile (workgroup memory) are the
// block's own and never a hazard.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace jeet::gpu_codegen {

/// How deep sameFunctionOfIvs follows the definitions of two values.
static constexpr unsigned kMaxCompareDepth = 16;

namespace {
/// One access of a forall's tile to a buffer defined outside it.
struct BufferAccess {
  /// The buffer (the root of the views the tile accesses it through).
  Value root;
  /// The subview the access goes through (see getRootBuffer), null when the
  /// tile may access the whole buffer.
  memref::SubViewOp tile;
  bool writes = false;
};
} // namespace

/// The buffer that `value`, accessed inside `forall`, views (through
/// subviews, casts, reshapes and other view-like ops), and the tile of it
/// that the tile accesses: the subview, made inside `forall`, of a view
/// made outside it (null when the access is not through one).
static Value getRootBuffer(Value value, scf::ForallOp forall,
                           memref::SubViewOp &tile) {
  tile = nullptr;
  // Up to the first value made outside the forall.
  while (!forall.isDefinedOutsideOfLoop(value)) {
    auto view = value.getDefiningOp<ViewLikeOpInterface>();
    if (!view)
      return value; // Made inside the tile: an allocation of its own.
    Value source = view.getViewSource();
    auto subview = dyn_cast<memref::SubViewOp>(view.getOperation());
    tile = subview && forall.isDefinedOutsideOfLoop(source) ? subview : nullptr;
    value = source;
  }
  // Then through the views made outside, to the buffer.
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The accesses of the tile of `forall` to buffers defined outside it, from
/// the memory effects of the ops inside.
static SmallVector<BufferAccess> collectAccesses(scf::ForallOp forall) {
  SmallVector<BufferAccess> accesses;
  forall.getBody()->walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    SmallVector<MemoryEffects::EffectInstance> instances;
    if (effects) {
      effects.getEffects(instances);
    } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      // An op with unknown effects: it may access any memref operand.
      for (OpOperand &operand : op->getOpOperands())
        if (isa<MemRefType>(operand.get().getType()))
          instances.emplace_back(MemoryEffects::Write::get(), &operand);
    }
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (!isa<MemoryEffects::Read, MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value || !isa<MemRefType>(value.getType()))
        continue;
      BufferAccess access;
      access.root = getRootBuffer(value, forall, access.tile);
      if (!forall.isDefinedOutsideOfLoop(access.root))
        continue;
      access.writes = isa<MemoryEffects::Write>(effect.getEffect());
      accesses.push_back(access);
    }
  });
  return accesses;
}

/// Whether `a` (in forall `fa`) and `b` (in forall `fb`) are the same
/// function of the two foralls' induction variables: the same value defined
/// outside both, the same induction variable, or the same op of such values.
static bool sameFunctionOfIvs(Value a, Value b, scf::ForallOp fa,
                              scf::ForallOp fb, unsigned depth = 0) {
  if (depth > kMaxCompareDepth)
    return false;
  if (a == b)
    return fa.isDefinedOutsideOfLoop(a) && fb.isDefinedOutsideOfLoop(b);
  auto argA = dyn_cast<BlockArgument>(a);
  auto argB = dyn_cast<BlockArgument>(b);
  if (argA || argB) {
    return argA && argB && argA.getOwner() == fa.getBody() &&
           argB.getOwner() == fb.getBody() &&
           argA.getArgNumber() == argB.getArgNumber() &&
           argA.getArgNumber() < fa.getInductionVars().size();
  }
  Operation *defA = a.getDefiningOp(), *defB = b.getDefiningOp();
  if (defA->getName() != defB->getName() ||
      defA->getAttrDictionary() != defB->getAttrDictionary() ||
      defA->getNumOperands() != defB->getNumOperands() ||
      defA->getNumRegions() != 0 || defB->getNumRegions() != 0 ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber() ||
      !isPure(defA))
    return false;
  for (auto [x, y] : llvm::zip_equal(defA->getOperands(), defB->getOperands()))
    if (!sameFunctionOfIvs(x, y, fa, fb, depth + 1))
      return false;
  return true;
}

static bool sameFoldResults(ArrayRef<OpFoldResult> a, ArrayRef<OpFoldResult> b,
                            scf::ForallOp fa, scf::ForallOp fb) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip_equal(a, b)) {
    auto attrX = dyn_cast<Attribute>(x), attrY = dyn_cast<Attribute>(y);
    if (attrX || attrY) {
      if (attrX != attrY)
        return false;
      continue;
    }
    if (!sameFunctionOfIvs(cast<Value>(x), cast<Value>(y), fa, fb))
      return false;
  }
  return true;
}

/// The lower bounds, upper bounds and steps of `forall`, when all are
/// constants.
static std::optional<SmallVector<int64_t>>
getConstantSpace(scf::ForallOp forall) {
  SmallVector<OpFoldResult> space = forall.getMixedLowerBound();
  llvm::append_range(space, forall.getMixedUpperBound());
  llvm::append_range(space, forall.getMixedStep());
  return getConstantIntValues(space);
}

/// Whether the iteration space `space` (getConstantSpace) has one iteration.
static bool hasOneIteration(ArrayRef<int64_t> space) {
  size_t rank = space.size() / 3;
  for (size_t i = 0; i < rank; ++i) {
    int64_t lb = space[i], ub = space[rank + i], step = space[2 * rank + i];
    if (step <= 0 || ub - lb > step)
      return false;
  }
  return true;
}

namespace {
/// The accesses of each forall's tile (collectAccesses), collected once.
class AccessCache {
public:
  /// The accesses of `forall`; the reference stays valid while the cache
  /// lives.
  SmallVector<BufferAccess> &get(scf::ForallOp forall) {
    std::unique_ptr<SmallVector<BufferAccess>> &slot =
        accesses[forall.getOperation()];
    if (!slot)
      slot =
          std::make_unique<SmallVector<BufferAccess>>(collectAccesses(forall));
    return *slot;
  }

private:
  llvm::DenseMap<Operation *, std::unique_ptr<SmallVector<BufferAccess>>>
      accesses;
};
} // namespace

/// Whether the tiles of `later` may access a buffer that the tiles of
/// `earlier` access on another block of the same launch, one of them
/// writing.
static bool hasCrossBlockHazard(scf::ForallOp earlier, scf::ForallOp later,
                                AccessCache &cache) {
  std::optional<SmallVector<int64_t>> spaceA = getConstantSpace(earlier);
  std::optional<SmallVector<int64_t>> spaceB = getConstantSpace(later);
  // Both on block 0 alone: the barrier between them orders everything.
  if (spaceA && spaceB && hasOneIteration(*spaceA) && hasOneIteration(*spaceB))
    return false;
  bool sameSpace = spaceA && spaceB && *spaceA == *spaceB;
  SmallVector<BufferAccess> &first = cache.get(earlier);
  SmallVector<BufferAccess> &second = cache.get(later);
  for (BufferAccess &a : first) {
    for (BufferAccess &b : second) {
      if (a.root != b.root || (!a.writes && !b.writes))
        continue;
      bool sameTile =
          sameSpace && a.tile && b.tile &&
          a.tile.getSource() == b.tile.getSource() &&
          sameFoldResults(a.tile.getMixedOffsets(), b.tile.getMixedOffsets(),
                          earlier, later) &&
          sameFoldResults(a.tile.getMixedSizes(), b.tile.getMixedSizes(),
                          earlier, later) &&
          sameFoldResults(a.tile.getMixedStrides(), b.tile.getMixedStrides(),
                          earlier, later);
      if (!sameTile)
        return true;
    }
  }
  return false;
}

/// Splits each launch of `launches` (foralls in program order) before a
/// forall that has a cross-block hazard with one already in its launch.
void splitLaunchesAtHazards(
    SmallVectorImpl<SmallVector<scf::ForallOp>> &launches) {
  SmallVector<SmallVector<scf::ForallOp>> split;
  AccessCache cache;
  for (SmallVector<scf::ForallOp> &foralls : launches) {
    split.emplace_back();
    for (scf::ForallOp forall : foralls) {
      if (llvm::any_of(split.back(), [&](scf::ForallOp earlier) {
            return hasCrossBlockHazard(earlier, forall, cache);
          }))
        split.emplace_back();
      split.back().push_back(forall);
    }
  }
  launches = std::move(split);
}

} // namespace jeet::gpu_codegen
