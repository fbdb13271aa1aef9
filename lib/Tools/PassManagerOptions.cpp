//===- PassManagerOptions.cpp - MLIR's debug flags for Jeet's tools -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Tools/PassManagerOptions.h"

#include "jeet/InitAllJeet.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"

void jeet::registerPassManagerOptions(llvm::cl::OptionCategory &category) {
  // --mlir-print-ir-before/after=<pass> name passes by their registered
  // flags: the registry must hold them before the options are made.
  registerAllJeetPasses();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  // Every `mlir-` option joins the category, so that a tool hiding unrelated
  // options still lists them in --help.
  for (auto &[name, option] : llvm::cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->addCategory(category);
}
