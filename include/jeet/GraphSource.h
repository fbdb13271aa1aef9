//===- GraphSource.h - Parsing a Jeet graph from text -----------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Every entry point that compiles a user's graph text (the C++/C/Python
// compiler, jeet-run, jeet-compile, jeet-translate) parses it here, in a
// context of its own that knows only the dialects a graph may hold (jeet and
// func). An op of any other dialect is rejected by name before a parser of
// that dialect runs: some of MLIR's own op parsers crash on malformed text
// (docs/Reliability.md, "Fuzzing"), and the compiler's context has every
// dialect loaded. The verified graph is then printed in the generic form and
// parsed again in the caller's context, where only jeet, func and builtin
// parsers see it.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_GRAPHSOURCE_H
#define JEET_GRAPHSOURCE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace jeet {

/// Registers the dialects a Jeet graph may hold: jeet and func.
void registerGraphDialects(mlir::DialectRegistry &registry);

/// True for the ops a graph is made of: jeet ops, and functions that call
/// each other.
bool isGraphOp(mlir::Operation *op);

/// Checks what the verifier does not: that the module is a Jeet graph (jeet
/// ops and functions calling each other, nothing else) and that no function
/// calls itself, directly or through others. Errors are emitted on the
/// offending op.
mlir::LogicalResult verifyGraph(mlir::ModuleOp module);

/// Fails, with an error in `context` naming the file, line and column, when
/// the main buffer of `sourceMgr` names a result number that MLIR's parser
/// would size a table by before checking it (jeet::findOversizedResultNumber):
/// that exhausts memory in any parser. parseGraphSource checks this first;
/// tools that hand text to MLIR's parser themselves call it before.
mlir::LogicalResult checkResultNumbers(const llvm::SourceMgr &sourceMgr,
                                       mlir::MLIRContext &context);

/// Parses the main buffer of `sourceMgr` as a graph with only the graph
/// dialects, verifies it (the verifier, then verifyGraph) and returns it in
/// `context`. Diagnostics are re-emitted in `context`, at the same file, line
/// and column, so the caller's diagnostic handlers see them. Null on failure.
mlir::OwningOpRef<mlir::ModuleOp> parseGraphSource(llvm::SourceMgr &sourceMgr,
                                                   mlir::MLIRContext &context);

} // namespace jeet

#endif // JEET_GRAPHSOURCE_H
