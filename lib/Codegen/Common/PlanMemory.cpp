//===- PlanMemory.cpp - Intermediates in one arena ------------------------===//
//
// Part of the Jeet project.
//
// The static memory plan: after bufferization with frees right after last
// use, each intermediate buffer of a graph's function lives from its
// allocation to its free. Buffers alive at the same time get disjoint
// ranges of one arena, buffers that never are may share bytes; the caller
// allocates the arena once and a cached execution allocates nothing.
//
// Placement is greedy by size (as in TFLite's planner): largest first, each
// at the lowest aligned offset where it overlaps no placed buffer whose
// lifetime overlaps its own.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/Common/Passes.h"

#include "CoalesceCopies.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <optional>

namespace jeet {
#define GEN_PASS_DEF_JEETPLANMEMORYPASS
#include "jeet/Codegen/Common/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// One intermediate buffer: where it is allocated and freed, its lifetime
/// in top-level op positions (both ends included) and its place.
struct Intermediate {
  Operation *alloc;
  Operation *dealloc;
  MemRefType type;
  int64_t first, last;
  /// Its size rounded up to the alignment.
  int64_t bytes;
  int64_t offset = -1;
  /// The outermost buffer whose memory holds this one (a coalesced copy's
  /// source, placed with it), and where; -1 for a buffer placed itself.
  int64_t root = -1;
  int64_t offsetInRoot = 0;

  bool livesWith(const Intermediate &other) const {
    return first <= other.last && other.first <= last;
  }
};

/// The bytes of a statically shaped buffer of int or float elements (a
/// buffer of i1 takes a byte per element, as its LLVM lowering does).
std::optional<int64_t> byteSize(MemRefType type) {
  Type element = type.getElementType();
  if (!type.hasStaticShape() || !element.isIntOrFloat())
    return std::nullopt;
  int64_t elementBytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  return type.getNumElements() * elementBytes;
}

/// Whether `type` can be a view into an arena of default-space bytes.
bool isPlainBuffer(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (auto integer = dyn_cast_if_present<IntegerAttr>(space))
    space = integer.getInt() == 0 ? Attribute() : space;
  return type.getLayout().isIdentity() && !space && byteSize(type);
}

/// The buffer an op allocates, when it is an allocation the plan can take
/// over: static shape, no alignment beyond the plan's, synchronous.
Value plannableAllocation(Operation *op, int64_t alignment) {
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    if (!alloc.getDynamicSizes().empty() || !alloc.getSymbolOperands().empty())
      return nullptr;
    if (alloc.getAlignment() && int64_t(*alloc.getAlignment()) > alignment)
      return nullptr;
    return isPlainBuffer(alloc.getType()) ? alloc.getMemref() : nullptr;
  }
  if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
    if (alloc.getAsyncToken() || !alloc.getAsyncDependencies().empty() ||
        !alloc.getDynamicSizes().empty() ||
        !alloc.getSymbolOperands().empty() || alloc.getHostShared())
      return nullptr;
    return isPlainBuffer(alloc.getType()) ? alloc.getMemref() : nullptr;
  }
  return nullptr;
}

/// Whether `op` frees `buffer` (synchronously).
bool freesBuffer(Operation *op, Value buffer) {
  if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
    return dealloc.getMemref() == buffer;
  if (auto dealloc = dyn_cast<gpu::DeallocOp>(op))
    return dealloc.getMemref() == buffer && !dealloc.getAsyncToken() &&
           dealloc.getAsyncDependencies().empty();
  return false;
}

/// The intermediates of `body` the plan can place: allocated at its top
/// level and freed exactly once there, after every use.
SmallVector<Intermediate> collectIntermediates(Block &body, int64_t alignment) {
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(body))
    position[&op] = static_cast<int64_t>(i);

  SmallVector<Intermediate> intermediates;
  for (Operation &op : body) {
    Value buffer = plannableAllocation(&op, alignment);
    if (!buffer)
      continue;
    Operation *dealloc = nullptr;
    int64_t lastUse = position[&op];
    bool plannable = true;
    for (Operation *user : buffer.getUsers()) {
      Operation *top = body.findAncestorOpInBlock(*user);
      if (!top) {
        plannable = false;
        break;
      }
      if (freesBuffer(user, buffer)) {
        plannable &= !dealloc && user == top;
        dealloc = user;
      }
      lastUse = std::max(lastUse, position[top]);
    }
    // The free must be the last use: a use after it would read memory the
    // plan hands to another buffer.
    if (!plannable || !dealloc || position[dealloc] != lastUse)
      continue;
    auto type = cast<MemRefType>(buffer.getType());
    intermediates.push_back(
        {&op, dealloc, type, position[&op], position[dealloc],
         static_cast<int64_t>(llvm::alignTo(*byteSize(type), alignment))});
  }
  return intermediates;
}

/// A coalesced buffer's offset in its slice of another: a multiple of a
/// cache line (and of every vector), so that the kernels writing it meet
/// the same alignment as in a buffer of its own.
constexpr int64_t kCoalescedAlignment = 64;

/// Puts each buffer copied whole into a slice of another and not written
/// after (a concatenation's inputs) in that slice (see CoalesceCopies.h): it is
/// placed with the outermost buffer holding it, whose lifetime grows to
/// cover it. `copies` receives the copies that become no-ops.
void coalesceIntermediates(Block &body,
                           MutableArrayRef<Intermediate> intermediates,
                           SmallVectorImpl<Operation *> &copies) {
  SmallVector<Value> buffers;
  for (Intermediate &buffer : intermediates)
    buffers.push_back(isa<memref::AllocOp>(buffer.alloc)
                          ? buffer.alloc->getResult(0)
                          : Value());
  SmallVector<jeet::CoalescedPlace> places =
      jeet::coalesceCopies(body, buffers, kCoalescedAlignment, copies);
  for (auto [i, buffer] : llvm::enumerate(intermediates)) {
    int64_t at = static_cast<int64_t>(i), offset = 0;
    for (; places[at].parent >= 0; at = places[at].parent)
      offset += places[at].offset;
    if (at == static_cast<int64_t>(i))
      continue;
    buffer.root = at;
    buffer.offsetInRoot = offset;
    Intermediate &root = intermediates[at];
    root.first = std::min(root.first, buffer.first);
    root.last = std::max(root.last, buffer.last);
  }
}

/// Gives each intermediate an offset (greedy by size, lowest fitting
/// offset; a coalesced one its place in its root's); returns the arena's
/// size.
int64_t placeIntermediates(MutableArrayRef<Intermediate> intermediates,
                           int64_t alignment) {
  SmallVector<Intermediate *> order;
  for (Intermediate &buffer : intermediates)
    if (buffer.root < 0)
      order.push_back(&buffer);
  llvm::stable_sort(order, [](const Intermediate *a, const Intermediate *b) {
    return a->bytes > b->bytes;
  });
  int64_t arena = 0;
  SmallVector<Intermediate *> placed;
  for (Intermediate *buffer : order) {
    // The ranges taken by placed buffers alive at the same time, by offset.
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (Intermediate *other : placed)
      if (buffer->livesWith(*other))
        taken.push_back({other->offset, other->offset + other->bytes});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + buffer->bytes <= begin)
        break;
      offset =
          std::max(offset, static_cast<int64_t>(llvm::alignTo(end, alignment)));
    }
    buffer->offset = offset;
    arena = std::max(arena, offset + buffer->bytes);
    placed.push_back(buffer);
  }
  for (Intermediate &buffer : intermediates)
    if (buffer.root >= 0)
      buffer.offset = intermediates[buffer.root].offset + buffer.offsetInRoot;
  return arena;
}

/// The most bytes of intermediates alive at one point of the program.
int64_t liveBytesBound(ArrayRef<Intermediate> intermediates) {
  int64_t bound = 0;
  for (const Intermediate &at : intermediates) {
    // The live set is largest at some buffer's allocation. A coalesced
    // buffer lies in its root's bytes, whose lifetime covers its own.
    int64_t live = 0;
    for (const Intermediate &other : intermediates)
      if (other.root < 0 && other.first <= at.first && at.first <= other.last)
        live += other.bytes;
    bound = std::max(bound, live);
  }
  return bound;
}

struct PlanMemoryPass
    : public jeet::impl::JeetPlanMemoryPassBase<PlanMemoryPass> {
  using JeetPlanMemoryPassBase::JeetPlanMemoryPassBase;

  void runOnOperation() override {
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      getOperation().emitError()
          << "jeet-plan-memory: alignment must be a power of two, got "
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic() ||
          !SymbolTable::symbolKnownUseEmpty(func, getOperation()))
        continue;
      if (failed(plan(func)))
        return signalPassFailure();
    }
  }

  LogicalResult plan(func::FuncOp func) {
    Block &body = func.getBody().front();
    SmallVector<Intermediate> intermediates =
        collectIntermediates(body, alignment);
    SmallVector<Operation *> coalescedCopies;
    if (coalesce)
      coalesceIntermediates(body, intermediates, coalescedCopies);
    int64_t arenaBytes = placeIntermediates(intermediates, alignment);
    for (Operation *copy : coalescedCopies) {
      SmallVector<Value> operands(copy->getOperands());
      copy->erase();
      // The views only the copy read (reshapes, the slice), innermost first.
      while (!operands.empty()) {
        Operation *view = operands.pop_back_val().getDefiningOp();
        if (!view || !isa<ViewLikeOpInterface>(view) || !isPure(view) ||
            !view->use_empty())
          continue;
        llvm::append_range(operands, view->getOperands());
        view->erase();
      }
    }

    MLIRContext *context = func.getContext();
    OpBuilder builder(context);
    auto arenaType = MemRefType::get({arenaBytes}, builder.getI8Type());
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(
            index, arenaType,
            builder.getDictionaryAttr(builder.getNamedAttr(
                jeet::kArenaArgAttr, builder.getUnitAttr())),
            func.getLoc())))
      return func.emitError("jeet-plan-memory: cannot add the arena argument");
    Value arena = func.getArgument(index);

    int64_t total = 0;
    for (Intermediate &buffer : intermediates) {
      total += buffer.bytes;
      builder.setInsertionPoint(buffer.alloc);
      Location loc = buffer.alloc->getLoc();
      Value offset =
          arith::ConstantIndexOp::create(builder, loc, buffer.offset);
      Value view = memref::ViewOp::create(builder, loc, buffer.type, arena,
                                          offset, ValueRange());
      buffer.alloc->getResult(0).replaceAllUsesWith(view);
      buffer.dealloc->erase();
      buffer.alloc->erase();
    }
    func->setAttr(
        jeet::kMemoryPlanAttr,
        builder.getDictionaryAttr(
            {builder.getNamedAttr("arena_bytes",
                                  builder.getI64IntegerAttr(arenaBytes)),
             builder.getNamedAttr("intermediate_bytes",
                                  builder.getI64IntegerAttr(total)),
             builder.getNamedAttr(
                 "live_bytes_bound",
                 builder.getI64IntegerAttr(liveBytesBound(intermediates))),
             builder.getNamedAttr(
                 "buffers", builder.getI64IntegerAttr(
                                static_cast<int64_t>(intermediates.size())))}));
    return success();
  }
};

} // namespace
