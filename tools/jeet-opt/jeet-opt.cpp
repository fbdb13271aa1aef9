//===- jeet-opt.cpp - The Jeet optimizer driver ---------------------------===//
//
// Part of the Jeet project.
//
// Runs jeet and upstream passes and pipelines over MLIR files.
//
//===----------------------------------------------------------------------===//

#include "jeet/InitAllJeet.h"
#include "jeet/Limits.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <string_view>

/// Whether `buffer` names a result number that MLIR's parser would size a
/// table by before checking it (jeet::findOversizedResultNumber), which
/// exhausts memory: reports the first such use with its file, line and
/// column, as jeet-run and the graph builder do.
static bool hasOversizedResultNumber(const llvm::MemoryBuffer &buffer) {
  llvm::StringRef text = buffer.getBuffer();
  size_t offset = jeet::findOversizedResultNumber({text.data(), text.size()});
  if (offset == std::string_view::npos)
    return false;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, buffer.getBufferIdentifier()),
      llvm::SMLoc());
  llvm::StringRef use = text.substr(offset).take_while(
      [](char c) { return !llvm::isSpace(c) && c != ',' && c != ')'; });
  sourceMgr.PrintMessage(
      llvm::errs(), llvm::SMLoc::getFromPointer(text.data() + offset),
      llvm::SourceMgr::DK_Error,
      "value use '" + use.take_front(64) + "' names result number beyond " +
          llvm::Twine(jeet::kMaxResultNumber) + ", more than any op has");
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  jeet::registerAllJeetDialects(registry);
  jeet::registerAllJeetPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "Jeet optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // Listing dialects or passes reads no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  if (hasOversizedResultNumber(*input))
    return EXIT_FAILURE;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
