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
/// whose initial value is dense), the panels that the matmul's packing would
/// copy it into at run time, as a view of `packedType`, (panel, k, column)
/// (a `memref.expand_shape` of a `memref.get_global`, at `b`'s insertion
/// point), of a flat constant global that holds them: panel p's row kk is
/// B[kk, p * nr + c] for c < nr, or, with `transposed` (B held as (n, k)),
/// B[p * nr + c, kk]; `packedType` has ceil(n / nr) panels, and the columns
/// of a partial last panel past n are zero. One such global per (global, nr,
/// transposed), made by the first call and named after the global. A null
/// value for any other `rhs`.
mlir::Value constantPanels(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value rhs, mlir::MemRefType packedType,
                           bool transposed);

} // namespace cpu
} // namespace jeet

#endif // JEET_LIB_CODEGEN_CPU_CONSTANTPANELS_H
