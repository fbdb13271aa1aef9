//===- GraphSource.cpp - Parsing a Jeet graph from text -------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/GraphSource.h"

#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/Limits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>

using namespace mlir;

void jeet::registerGraphDialects(DialectRegistry &registry) {
  registry.insert<JeetDialect, func::FuncDialect>();
}

bool jeet::isGraphOp(Operation *op) {
  return isa<ModuleOp, func::FuncOp, func::ReturnOp, func::CallOp>(op) ||
         isa_and_nonnull<JeetDialect>(op->getDialect());
}

LogicalResult jeet::verifyGraph(ModuleOp module) {
  WalkResult ops = module.walk([](Operation *op) {
    if (isGraphOp(op))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' is not part of a Jeet graph: graphs hold jeet ops, "
                       "and func.call between their functions";
    return WalkResult::interrupt();
  });
  if (ops.wasInterrupted())
    return failure();
  // No recursion and no calls of declarations: each function's callees,
  // depth first, with the functions on the current path marked (a graph is
  // a DAG of calls, all of them defined in it).
  SymbolTable symbols(module);
  llvm::DenseMap<Operation *, int> state; // 1: on the path, 2: done.
  std::function<LogicalResult(func::FuncOp)> visit =
      [&](func::FuncOp func) -> LogicalResult {
    state[func] = 1;
    WalkResult calls = func.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee)
        return WalkResult::advance(); // The verifier reports it.
      if (callee.isExternal()) {
        call.emitError() << "call to '" << call.getCallee()
                         << "', which the graph declares without a body: "
                            "Jeet graphs call only functions they define";
        return WalkResult::interrupt();
      }
      if (state.lookup(callee) == 1) {
        call.emitError() << "recursive call to '" << call.getCallee()
                         << "': Jeet graphs cannot call themselves, "
                            "directly or through other functions";
        return WalkResult::interrupt();
      }
      if (state.lookup(callee) == 0 && failed(visit(callee)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    state[func] = 2;
    return failure(calls.wasInterrupted());
  };
  for (auto func : module.getOps<func::FuncOp>())
    if (state.lookup(func) == 0 && failed(visit(func)))
      return failure();
  return success();
}

/// `loc` as a location of `context`: its file, line and column, which is
/// what the diagnostic handlers show and -verify-diagnostics matches.
static Location translateLocation(Location loc, MLIRContext &context) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return FileLineColLoc::get(&context, file.getFilename().getValue(),
                               file.getLine(), file.getColumn());
  return UnknownLoc::get(&context);
}

LogicalResult jeet::checkResultNumbers(const llvm::SourceMgr &sourceMgr,
                                       MLIRContext &context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  size_t offset = jeet::findOversizedResultNumber({text.data(), text.size()});
  if (offset == std::string_view::npos)
    return success();
  auto [line, column] = sourceMgr.getLineAndColumn(
      llvm::SMLoc::getFromPointer(text.data() + offset));
  llvm::StringRef use = text.substr(offset).take_while(
      [](char c) { return !llvm::isSpace(c) && c != ',' && c != ')'; });
  emitError(FileLineColLoc::get(&context, buffer->getBufferIdentifier(), line,
                                column))
      << "value use '" << use.take_front(64) << "' names result number "
      << "beyond " << jeet::kMaxResultNumber << ", more than any op has";
  return failure();
}

OwningOpRef<ModuleOp> jeet::parseGraphSource(llvm::SourceMgr &sourceMgr,
                                             MLIRContext &context) {
  if (failed(checkResultNumbers(sourceMgr, context)))
    return nullptr;
  // A fresh context per graph: nothing a previous input left in it (the
  // state one of MLIR's parser faults needs) can be there.
  DialectRegistry registry;
  registerGraphDialects(registry);
  MLIRContext graphContext(registry, MLIRContext::Threading::DISABLED);
  graphContext.loadAllAvailableDialects();
  graphContext.printOpOnDiagnostic(context.shouldPrintOpOnDiagnostic());
  // The verifier follows an op's own inference error with "failed to infer
  // returned types" at the same place, which says nothing more: dropped.
  std::optional<Location> lastError;
  ScopedDiagnosticHandler forward(&graphContext, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      bool repeated = lastError && *lastError == diag.getLocation() &&
                      llvm::StringRef(diag.str())
                          .ends_with("failed to infer returned types");
      lastError = diag.getLocation();
      if (repeated)
        return success();
    }
    InFlightDiagnostic copy = context.getDiagEngine().emit(
        translateLocation(diag.getLocation(), context), diag.getSeverity());
    copy << diag.str();
    for (Diagnostic &note : diag.getNotes())
      copy.attachNote(translateLocation(note.getLocation(), context))
          << note.str();
    return success();
  });

  OwningOpRef<ModuleOp> graph =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&graphContext));
  if (!graph || failed(verifyGraph(*graph)))
    return nullptr;

  // Generic form (no custom parser but builtin's, jeet's and func's runs on
  // it) with the locations, so that later diagnostics still point into the
  // user's file.
  std::string text;
  llvm::raw_string_ostream os(text);
  graph->print(os, OpPrintingFlags()
                       .printGenericOpForm()
                       .enableDebugInfo(/*enable=*/true, /*prettyForm=*/false)
                       .assumeVerified());
  return parseSourceString<ModuleOp>(text, ParserConfig(&context));
}
