//===- jeet-opt.cpp - The Jeet optimizer driver ---------------------------===//
//
// Part of the Jeet project.
//
// Runs jeet and upstream passes and pipelines over MLIR files.
//
//===----------------------------------------------------------------------===//

#include "jeet/InitAllJeet.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  jeet::registerAllJeetDialects(registry);
  jeet::registerAllJeetPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Jeet optimizer driver\n", registry));
}
