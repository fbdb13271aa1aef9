//===- ConstantPanels.h - A constant B's panels, packed early ---*- C++ -*-===//
//
// Part of the Jeet project.
//
// Internal to lib/Codegen/CPU: jeet-cpu-matmul's panels of a B that is a
// constant (a model's weights), packed once by the compiler instead of on
// every call.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_CODEGEN_CPU_CONSTANTPANELS_H
#define JEET_LIB_CODEGEN_CPU_CONSTANTPANELS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace jeet {
namespace cpu {

/// When `rhs` is the whole of a constant `memref.global` (a
/// `memref.get_global` of a 2-D buffer of static shape and identity layout
/// whose initial value is dense), the panels of `nr` columns that the
/// matmul's packing would copy it into at run time, as a view of
/// (ceil(n / nr), k, nr) (a `memref.expand_shape` of a `memref.get_global`,
/// at `b`'s insertion point) of a flat constant global that holds them:
/// panel p's row kk is B[kk, p * nr + c] for c < nr, or, with `transposed`
/// (B held as (n, k)), B[p * nr + c, kk]; the columns of a partial last
/// panel past n are zero, so that the kernels read the remainder columns
/// from it too. One such global per (global, nr, transposed), made by the
/// first call and named after the global. A null value for any other
/// `rhs`.
mlir::Value constantPanels(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value rhs, int64_t nr, bool transposed);

/// When `base` is a whole constant `memref.global` of (k, n) (as for
/// constantPanels), its columns in blocks of `width` (a divisor of n), each
/// block's rows one after the other: a view of (n / width, k, stride) (a
/// `memref.expand_shape` of a `memref.get_global` of a flat constant
/// global, at `b`'s insertion point) whose block t, row kk is
/// B[kk, t * width + c] for c < width (padding, never read, past it). For
/// the tiles of an epilogue whose width the register tile does not divide:
/// each tile reads its block of B as one stream, rows `stride` apart, where
/// B's own rows are a whole row of B apart. `stride` is `width` rounded up
/// to a cache line where that pads a row by at most an eighth: a 1,000-class
/// classifier's tiles of 125 columns read rows of 500 bytes, three of every
/// four vector loads across two lines; with rows of 512 squeezenet's 1x1
/// 512 -> 1000 at 5x5 (2 MiB of weights streamed from L3) lost a slow mode
/// (medians 0.141-0.146 ms against 0.140-0.163, five of eight runs at
/// 0.160 or more); level where B stays in L2. One such global per (global,
/// width). A null value for any other `base`.
mlir::Value constantColumnBlocks(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value base, int64_t width);

} // namespace cpu
} // namespace jeet

#endif // JEET_LIB_CODEGEN_CPU_CONSTANTPANELS_H
