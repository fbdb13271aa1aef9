//===- FuzzMlir.h - Shared part of the MLIR fuzz targets --------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Each MLIR fuzz target parses its input as a module, verifies it and, when
// the module is a Jeet graph (jeet ops, func.func/return/call) whose tensors
// are within a size cap, runs one pipeline on it. Every step may fail with a
// diagnostic (diagnostics are discarded); none may crash or hang.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_FUZZ_FUZZMLIR_H
#define JEET_FUZZ_FUZZMLIR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>
#include <cstdint>

namespace jeet {
namespace fuzz {

/// Tensors of more elements than this, or of higher rank, are not compiled:
/// the pipelines' time grows with them (constant folding, unrolled vector
/// code) and a fuzz input must finish in a bounded time. Parsing and the
/// verifier still see them.
constexpr int64_t kMaxFuzzElements = int64_t(1) << 20;
constexpr int64_t kMaxFuzzRank = 8;
/// Longer inputs are ignored (libFuzzer's -max_len keeps below it anyway).
constexpr size_t kMaxFuzzInputBytes = 1 << 16;

/// Parses and verifies `data` in a fresh context; when the module is a graph
/// within the caps, calls `compile` on it.
void runMlirInput(const uint8_t *data, size_t size,
                  llvm::function_ref<void(mlir::ModuleOp)> compile);

} // namespace fuzz
} // namespace jeet

#endif // JEET_FUZZ_FUZZMLIR_H
