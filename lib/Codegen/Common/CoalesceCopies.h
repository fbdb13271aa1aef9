//===- CoalesceCopies.h - Buffers copied whole into another, in place -----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CODEGEN_COMMON_COALESCECOPIES_H
#define JEET_CODEGEN_COMMON_COALESCECOPIES_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace jeet {

/// Where one buffer lives inside another: `parent`'s index among the
/// buffers, and the byte offset in it.
struct CoalescedPlace {
  int64_t parent = -1;
  int64_t offset = 0;
};

/// The buffers of `body` (statically shaped allocations at its top level,
/// identity layouts, in `buffers`) that can be computed where a copy would
/// put them: a buffer copied whole into a contiguous slice of another (a
/// concatenation's input into its slice), and not written after the copy,
/// lives in that slice, when nothing writes the other buffer but such
/// copies, nothing reads it before the last of them, the slices are
/// disjoint and the offset is a multiple of `alignment` bytes. Each buffer is
/// placed in one other at most (the places form a forest). `copies` receives
/// the copies that become no-ops.
llvm::SmallVector<CoalescedPlace>
coalesceCopies(mlir::Block &body, llvm::ArrayRef<mlir::Value> buffers,
               int64_t alignment,
               llvm::SmallVectorImpl<mlir::Operation *> &copies);

} // namespace jeet

#endif // JEET_CODEGEN_COMMON_COALESCECOPIES_H
