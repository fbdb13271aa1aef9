//===- PassManagerOptions.cpp - MLIR's debug flags for Jeet's tools -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Tools/PassManagerOptions.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"

void jeet::registerPassManagerOptions(llvm::cl::OptionCategory &category) {
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  // Every `mlir-` option joins the category, so that a tool hiding unrelated
  // options still lists them in --help.
  for (auto &[name, option] : llvm::cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->addCategory(category);
}
