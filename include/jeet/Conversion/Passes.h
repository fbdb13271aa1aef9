//===- Passes.h - Conversions out of the jeet dialect -----------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CONVERSION_PASSES_H
#define JEET_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace jeet {

/// The attribute jeet-lower-to-linalg puts on the linalg.generic of a
/// jeet.pad: the padding before each dimension (a dense i64 array). The
/// generic reads the input at indices clamped into it and selects the
/// padding value outside; a code generator that knows the attribute can copy
/// the input into the interior instead (jeet-cpu-vectorize-pad).
inline constexpr llvm::StringLiteral kPadLowAttr = "jeet.pad_low";

#define GEN_PASS_DECL
#include "jeet/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "jeet/Conversion/Passes.h.inc"

} // namespace jeet

#endif // JEET_CONVERSION_PASSES_H
