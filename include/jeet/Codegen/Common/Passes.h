//===- Passes.h - Code generation passes every device shares ----*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CODEGEN_COMMON_PASSES_H
#define JEET_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace jeet {

/// The attribute jeet-plan-memory puts on each function it plans: a
/// dictionary of `arena_bytes`, `intermediate_bytes`, `live_bytes_bound`
/// and `buffers` (i64 each).
inline constexpr llvm::StringLiteral kMemoryPlanAttr = "jeet.memory_plan";
/// The unit attribute that marks the arena argument.
inline constexpr llvm::StringLiteral kArenaArgAttr = "jeet.arena";

/// Whether a CPU with these features converts f32 to bf16 with one
/// instruction (`vcvtneps2bf16`: AVX512-BF16 with AVX512-VL, or
/// AVX-NE-CONVERT), which jeet-expand-bf16's `conversion=hardware` uses.
/// Without them LLVM calls `__truncsfbf2` for each element.
bool hasBFloat16Conversion(
    llvm::function_ref<bool(llvm::StringRef)> hasFeature);

/// Whether code for CPU `cpu` (an LLVM CPU name) with the features
/// `hasFeature` says rounds f32 to bf16 faster by the conversion instruction
/// than by integer ops (jeet-expand-bf16's `conversion=hardware` rather than
/// `integer`): where it has the instruction (hasBFloat16Conversion), except
/// on Zen 5 (znver5), where the conversion with its subnormals lifted was
/// 1.3x slower than the integer ops on chains of bf16 ops and as fast on
/// lone casts (docs/Performance.md, "bf16 rounding chosen by CPU").
bool prefersBFloat16Conversion(
    llvm::StringRef cpu, llvm::function_ref<bool(llvm::StringRef)> hasFeature);

#define GEN_PASS_DECL
#include "jeet/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "jeet/Codegen/Common/Passes.h.inc"

} // namespace jeet

#endif // JEET_CODEGEN_COMMON_PASSES_H
