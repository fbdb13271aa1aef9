//===- jeet-translate.cpp - The Jeet translation driver -------------------===//
//
// Part of the Jeet project.
//
// The upstream translations, `--jeet-to-ptx`: a jeet graph compiled with
// jeet-gpu-pipeline, printed as the PTX of its kernels, and
// `--jeet-to-emulator-object`: the host shared object of its kernels for the
// CUDA driver emulator (jeet-gpu-pipeline{target=emulator}). The Jeet
// translations parse their input as the compiler does
// (jeet::parseGraphSource): only jeet and func ops reach a parser.
//
//===----------------------------------------------------------------------===//

#include "jeet/GraphSource.h"
#include "jeet/InitAllJeet.h"
#include "jeet/Pipelines/GpuPipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <memory>

static llvm::cl::opt<std::string>
    chip("jeet-gpu-chip",
         llvm::cl::desc("GPU of --jeet-to-ptx (sm_80, "
                        "sm_86, sm_89 or sm_90)"),
         llvm::cl::init(jeet::kDefaultGpuChip.str()));
static llvm::cl::opt<bool>
    fuse("jeet-fuse",
         llvm::cl::desc("Fuse ops into kernels (--jeet-to-ptx, "
                        "--jeet-to-emulator-object)"),
         llvm::cl::init(true));

/// A Jeet translation: the graph parsed with jeet::parseGraphSource (only
/// the graph dialects reach a parser), then compiled in a context with every
/// dialect and translation Jeet registers.
static mlir::TranslateFunction translateGraph(
    std::function<mlir::LogicalResult(mlir::ModuleOp, llvm::raw_ostream &)>
        translate) {
  return [translate](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                     llvm::raw_ostream &os, mlir::MLIRContext *context) {
    mlir::DialectRegistry registry;
    jeet::registerAllJeetDialects(registry);
    context->appendDialectRegistry(registry);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        jeet::parseGraphSource(*sourceMgr, *context);
    if (!module)
      return mlir::failure();
    return translate(*module, os);
  };
}

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  mlir::TranslateRegistration toPTX(
      "jeet-to-ptx", "Compile a jeet graph for the GPU and print its PTX",
      translateGraph([](mlir::ModuleOp module, llvm::raw_ostream &os) {
        jeet::GpuPipelineOptions options;
        options.chip = chip;
        options.fuse = fuse;
        return jeet::translateJeetToPTX(module, os, options);
      }));
  mlir::TranslateRegistration toEmulatorObject(
      "jeet-to-emulator-object",
      "Compile a jeet graph for the GPU emulation target and write the host "
      "shared object of its kernels",
      translateGraph([](mlir::ModuleOp module, llvm::raw_ostream &os) {
        jeet::GpuPipelineOptions options;
        options.fuse = fuse;
        return jeet::translateJeetToEmulatorObject(module, os, options);
      }));
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Jeet translation driver\n"));
}
