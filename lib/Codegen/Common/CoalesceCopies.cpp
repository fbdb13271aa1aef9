//===- CoalesceCopies.cpp - Buffers copied whole into another, in place ---===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// A concatenation is its inputs copied into their slices of the result
// (jeet-lower-to-linalg's concat-as-copies). Where nothing writes an
// input's buffer after its copy, the memory plan can put that buffer in its
// slice instead: the kernels that compute it write the concatenation
// directly, the copy disappears, and later reads of the input read the
// slice. The same holds for any buffer copied whole into a contiguous
// slice of another that nothing else writes, and along chains (densenet's
// concatenations of a concatenation and one more input, after the
// canonicalization that makes them so).
//
//===----------------------------------------------------------------------===//

#include "CoalesceCopies.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <optional>

using namespace mlir;

namespace {

/// The source and destination of a copy between buffers.
std::optional<std::pair<Value, Value>> copyOperands(Operation *op) {
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return std::make_pair(copy.getSource(), copy.getTarget());
  if (auto copy = dyn_cast<linalg::CopyOp>(op);
      copy && copy.hasPureBufferSemantics())
    return std::make_pair(copy.getInputs()[0], copy.getOutputs()[0]);
  return std::nullopt;
}

/// The buffer that `value` shows whole and in its order: `value` itself or
/// the source of a chain of reshapes (of identity layouts, as the buffers
/// the plan takes have).
Value wholeBuffer(Value value) {
  while (true) {
    if (auto expand = value.getDefiningOp<memref::ExpandShapeOp>())
      value = expand.getSrc();
    else if (auto collapse = value.getDefiningOp<memref::CollapseShapeOp>())
      value = collapse.getSrc();
    else
      return value;
  }
}

int64_t elementBytes(MemRefType type) {
  return llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// The byte offset of `subview`'s elements in its (identity-layout) source
/// when they are one contiguous run there in the same order: static, unit
/// strides, every dimension after the first one of more than one element
/// taken whole.
std::optional<int64_t> contiguousOffset(memref::SubViewOp subview) {
  MemRefType source = subview.getSourceType();
  ArrayRef<int64_t> shape = source.getShape();
  ArrayRef<int64_t> offsets = subview.getStaticOffsets();
  ArrayRef<int64_t> sizes = subview.getStaticSizes();
  if (!source.getLayout().isIdentity() || !source.hasStaticShape() ||
      llvm::any_of(offsets, ShapedType::isDynamic) ||
      llvm::any_of(sizes, ShapedType::isDynamic) ||
      llvm::any_of(subview.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }))
    return std::nullopt;
  bool outer = true;
  int64_t offset = 0, stride = 1;
  for (int64_t d = source.getRank() - 1; d >= 0; --d) {
    offset += offsets[d] * stride;
    stride *= shape[d];
  }
  for (int64_t d = 0; d < source.getRank(); ++d) {
    if (!outer && sizes[d] != shape[d])
      return std::nullopt;
    outer &= sizes[d] == 1;
  }
  return offset * elementBytes(source);
}

/// Whether `use` only reads the memory its value shows.
bool onlyReads(OpOperand &use) {
  Operation *op = use.getOwner();
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return &use == &copy.getSourceMutable();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return dps.isDpsInput(&use) && !dps.isDpsInit(&use);
  return isa<memref::LoadOp, memref::DimOp, vector::LoadOp,
             vector::TransferReadOp, vector::MaskedLoadOp, vector::GatherOp>(
      op);
}

/// Whether `use` makes a view of its value (the view's own uses then access
/// the memory).
bool makesView(OpOperand &use) {
  auto view = dyn_cast<ViewLikeOpInterface>(use.getOwner());
  return view && view.getViewSource() == use.get();
}

/// A copy into a contiguous slice of a buffer.
struct SliceWrite {
  Operation *copy;
  int64_t position;
  int64_t offset, bytes;
};

/// How a buffer is accessed, when nothing but copies into contiguous slices
/// writes it and everything else only reads it.
struct HostAccesses {
  SmallVector<SliceWrite> writes;
  int64_t firstRead = std::numeric_limits<int64_t>::max();
};

class Coalescer {
public:
  Coalescer(Block &body, ArrayRef<Value> buffers, int64_t alignment)
      : body(body), buffers(buffers), alignment(alignment) {
    for (auto [i, op] : llvm::enumerate(body))
      position[&op] = static_cast<int64_t>(i);
    for (auto [i, buffer] : llvm::enumerate(buffers))
      if (buffer)
        index[buffer] = static_cast<int64_t>(i);
  }

  SmallVector<jeet::CoalescedPlace> run(SmallVectorImpl<Operation *> &copies) {
    SmallVector<jeet::CoalescedPlace> places(buffers.size());
    for (auto [host, buffer] : llvm::enumerate(buffers)) {
      if (!buffer)
        continue;
      std::optional<HostAccesses> accesses = hostAccesses(buffer);
      if (!accesses)
        continue;
      for (const SliceWrite &write : accesses->writes) {
        Value source = wholeBuffer(copyOperands(write.copy)->first);
        auto it = index.find(source);
        if (it == index.end() || it->second == int64_t(host) ||
            places[it->second].parent >= 0 || write.offset % alignment != 0 ||
            !unwrittenAfter(source, write.copy) ||
            reaches(places, static_cast<int64_t>(host), it->second))
          continue;
        places[it->second] = {static_cast<int64_t>(host), write.offset};
        copies.push_back(write.copy);
      }
    }
    return places;
  }

private:
  int64_t positionOf(Operation *op) {
    Operation *top = body.findAncestorOpInBlock(*op);
    return top ? position.lookup(top) : -1;
  }

  /// Whether `from` or a buffer it lies in (through `places`) is `target`.
  static bool reaches(ArrayRef<jeet::CoalescedPlace> places, int64_t from,
                      int64_t target) {
    for (int64_t at = from; at >= 0; at = places[at].parent)
      if (at == target)
        return true;
    return false;
  }

  /// Whether nothing writes `buffer` (through views) after `copy` at the
  /// top level of the body: what it holds then stays what the copy put in
  /// the slice, which only reads follow.
  bool unwrittenAfter(Value buffer, Operation *copy) {
    int64_t at = position.lookup(copy);
    SmallVector<Value> worklist = {buffer};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (user == copy || (isa<memref::DeallocOp>(user) && value == buffer))
          continue;
        if (makesView(use)) {
          llvm::append_range(worklist, user->getResults());
          continue;
        }
        int64_t userAt = positionOf(user);
        if (userAt < 0 || (userAt >= at && !onlyReads(use)))
          return false;
      }
    }
    return true;
  }

  /// The accesses to `buffer` when only copies into disjoint contiguous
  /// slices of it write it and everything after the last of them reads it.
  std::optional<HostAccesses> hostAccesses(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    HostAccesses accesses;
    // (value, byte offset of the contiguous run it shows in `buffer`).
    SmallVector<std::pair<Value, std::optional<int64_t>>> worklist = {
        {buffer, 0}};
    while (!worklist.empty()) {
      auto [value, offset] = worklist.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (isa<memref::DeallocOp>(user) && value == buffer)
          continue;
        if (auto subview = dyn_cast<memref::SubViewOp>(user);
            subview && value == buffer) {
          worklist.push_back({subview.getResult(), contiguousOffset(subview)});
          continue;
        }
        if (makesView(use)) {
          for (Value result : user->getResults())
            worklist.push_back({result, std::nullopt});
          continue;
        }
        int64_t at = positionOf(user);
        if (at < 0)
          return std::nullopt;
        std::optional<std::pair<Value, Value>> copy = copyOperands(user);
        if (copy && copy->second == value && copy->first != value) {
          // A copy in a loop or a branch may run more than once, or not.
          if (!offset || user->getBlock() != &body)
            return std::nullopt;
          auto sliceType = cast<MemRefType>(value.getType());
          accesses.writes.push_back(
              {user, at, *offset,
               sliceType.getNumElements() * elementBytes(type)});
          continue;
        }
        if (!onlyReads(use))
          return std::nullopt;
        accesses.firstRead = std::min(accesses.firstRead, at);
      }
    }
    // Every write before every read, and no two slices overlap.
    llvm::sort(accesses.writes, [](const SliceWrite &a, const SliceWrite &b) {
      return a.offset < b.offset;
    });
    for (auto [i, write] : llvm::enumerate(accesses.writes)) {
      if (write.position >= accesses.firstRead)
        return std::nullopt;
      if (i > 0 &&
          accesses.writes[i - 1].offset + accesses.writes[i - 1].bytes >
              write.offset)
        return std::nullopt;
    }
    return accesses;
  }

  Block &body;
  ArrayRef<Value> buffers;
  int64_t alignment;
  llvm::DenseMap<Operation *, int64_t> position;
  llvm::DenseMap<Value, int64_t> index;
};

} // namespace

SmallVector<jeet::CoalescedPlace>
jeet::coalesceCopies(Block &body, ArrayRef<Value> buffers, int64_t alignment,
                     SmallVectorImpl<Operation *> &copies) {
  return Coalescer(body, buffers, alignment).run(copies);
}
