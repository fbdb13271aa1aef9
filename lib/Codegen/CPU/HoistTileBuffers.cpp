//===- HoistTileBuffers.cpp - One stack buffer per thread for each tile ---===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A tile of a matmul with an epilogue accumulates into a buffer of its own,
// allocated at the start of the tile loop's iteration and freed at its end.
// On the CPU that is a call into the runtime's allocator per tile per call,
// and the threads of the region take its lock in turn (10-13% of the example
// CNN's time). Each thread runs its iterations one after another, so one
// buffer per thread serves all of them: the allocation moves to the start of
// the OpenMP region, which every thread of the team runs once, as a stack
// buffer, and its free goes.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "llvm/ADT/DenseMap.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUHOISTTILEBUFFERSPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// Bytes of a statically shaped buffer of `type`, or nothing.
static std::optional<int64_t> staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0)
    return std::nullopt;
  return type.getNumElements() * (bits / 8);
}

/// The free of `alloc` when it is its only one and lies in `body`, the block
/// of the allocation: the buffer then lives within one iteration.
static memref::DeallocOp freedInSameBlock(memref::AllocOp alloc) {
  memref::DeallocOp found;
  for (Operation *user : alloc->getUsers()) {
    auto dealloc = dyn_cast<memref::DeallocOp>(user);
    if (!dealloc)
      continue;
    if (found || dealloc->getBlock() != alloc->getBlock())
      return nullptr;
    found = dealloc;
  }
  return found;
}

struct JeetCpuHoistTileBuffersPass
    : public jeet::impl::JeetCpuHoistTileBuffersPassBase<
          JeetCpuHoistTileBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    // Post-order: a region's body is visited before the region, so moving
    // ops out of it and erasing them here is safe.
    getOperation().walk([&](omp::ParallelOp region) {
      if (!region->getParentOfType<omp::ParallelOp>())
        hoistIn(region);
    });
  }

  /// Moves the tile buffers of the worksharing loops directly in `region`
  /// to stack slots at its start; loops run one after another on a thread,
  /// so each loop reuses the slots of the loops before it.
  void hoistIn(omp::ParallelOp region) {
    Block &entry = region.getRegion().front();
    SmallVector<memref::AllocaOp> slots;
    int64_t regionBytes = 0;
    for (omp::WsloopOp loop : entry.getOps<omp::WsloopOp>()) {
      auto nest = dyn_cast<omp::LoopNestOp>(loop.getWrappedLoop());
      if (!nest)
        continue;
      // Slots already given to an allocation of this loop's iteration.
      llvm::SmallDenseSet<unsigned> taken;
      for (auto alloc : llvm::make_early_inc_range(
               nest.getRegion().front().getOps<memref::AllocOp>())) {
        // A static identity shape has neither dynamic sizes nor symbols.
        std::optional<int64_t> bytes = staticBytes(alloc.getType());
        memref::DeallocOp dealloc = freedInSameBlock(alloc);
        if (!bytes || *bytes > maxBytes || !dealloc)
          continue;
        std::optional<unsigned> slot = findSlot(slots, taken, alloc);
        if (!slot) {
          if (regionBytes + *bytes > maxRegionBytes)
            continue;
          OpBuilder builder(&entry, entry.begin());
          slots.push_back(memref::AllocaOp::create(builder, alloc.getLoc(),
                                                   alloc.getType(),
                                                   alloc.getAlignmentAttr()));
          regionBytes += *bytes;
          slot = slots.size() - 1;
        }
        taken.insert(*slot);
        dealloc->erase();
        alloc.replaceAllUsesWith(slots[*slot].getResult());
        alloc->erase();
      }
    }
  }

  /// A slot of `alloc`'s type and alignment that this iteration does not
  /// use yet.
  static std::optional<unsigned>
  findSlot(ArrayRef<memref::AllocaOp> slots,
           const llvm::SmallDenseSet<unsigned> &taken, memref::AllocOp alloc) {
    for (unsigned index = 0; index < slots.size(); ++index) {
      memref::AllocaOp slot = slots[index];
      if (slot.getType() == alloc.getType() &&
          slot.getAlignment() == alloc.getAlignment() && !taken.contains(index))
        return index;
    }
    return std::nullopt;
  }
};

} // namespace
