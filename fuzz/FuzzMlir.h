//===- FuzzMlir.h - Shared part of the MLIR fuzz targets --------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Each MLIR fuzz target parses its input as a Jeet graph, as the compiler's
// entry points do (jeet::parseGraphSource: only the jeet and func dialects
// reach a parser, and the graph is verified), and, when its tensors are
// within a size cap, runs one pipeline on it. Every step may fail with a
// diagnostic (diagnostics are discarded); none may crash or hang. A context
// serves kInputsPerContext inputs in a row.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_FUZZ_FUZZMLIR_H
#define JEET_FUZZ_FUZZMLIR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>
#include <cstdint>
#include <memory>

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

/// Inputs parsed in one context before it is replaced by a fresh one. Making
/// a context and loading the pipelines' dialects into it cost more than
/// parsing and compiling a typical input; a context also keeps every
/// attribute and type it uniqued (a folded constant of up to 2^20 elements),
/// so one context for a whole run would grow without end.
constexpr unsigned kInputsPerContext = 256;

/// What a target does with each graph. One is made per context (a pass
/// manager is built once there, not per input) and destroyed before it.
class GraphCompiler {
public:
  virtual ~GraphCompiler() = default;
  virtual void compile(mlir::ModuleOp module) = 0;
};

using GraphCompilerFactory =
    llvm::function_ref<std::unique_ptr<GraphCompiler>(mlir::MLIRContext &)>;

/// Parses and verifies `data` as a graph into the current context (every
/// dialect of Jeet's registry, diagnostics discarded); when it is within the
/// caps, compiles it with the context's GraphCompiler, made by
/// `makeCompiler` the first time.
void runMlirInput(const uint8_t *data, size_t size,
                  GraphCompilerFactory makeCompiler);

} // namespace fuzz
} // namespace jeet

#endif // JEET_FUZZ_FUZZMLIR_H
