//===- JeetInterfaces.h - Op families of the jeet dialect -------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The interfaces that group jeet ops into families (elementwise, reductions,
// composites; see JeetInterfaces.td), and the scalar arithmetic that the
// elementwise ops' scalar functions and the lowering to linalg share.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_IR_JEETINTERFACES_H
#define JEET_DIALECT_JEET_IR_JEETINTERFACES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include "jeet/Dialect/Jeet/IR/JeetInterfaces.h.inc"

namespace jeet {

/// A scalar constant `value` of the float or integer type `type`.
mlir::Value buildScalarConstant(mlir::OpBuilder &builder, mlir::Location loc,
                                mlir::Type type, double value);

/// Converts the scalar `value` to the element type `to` as `jeet.cast`
/// converts elements: floats round to nearest even (f16 <-> bf16 through
/// f32), float to integer truncates toward zero, integer to float rounds to
/// nearest, wider integers wrap to narrower ones; a number becomes the
/// boolean `x != 0` (NaN is true) and a boolean the number 0 or 1.
mlir::Value buildScalarConversion(mlir::OpBuilder &builder, mlir::Location loc,
                                  mlir::Value value, mlir::Type to);

/// Builds `fn` on `operands`, which are widened to f32 first (and the result
/// narrowed back) when they are f16 or bf16: LLVM's lowering of half
/// precision math is not dependable.
mlir::Value buildInF32(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::ValueRange operands,
                       llvm::function_ref<mlir::Value(mlir::ValueRange)> fn);

/// The bytes of one reduced slice of `reduction`'s input (a row of a
/// softmax or layernorm) as it is stored: its reduced extents times the
/// element size of the tensors the input is computed from elementwise (an
/// f16 row widened to f32, shifted and exponentiated, then summed, takes
/// f16's bytes: the elementwise ops are recomputed in a fused group).
int64_t getReducedSliceBytes(ReductionOpInterface reduction);

} // namespace jeet

#endif // JEET_DIALECT_JEET_IR_JEETINTERFACES_H
