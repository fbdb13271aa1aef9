//===- PassManagerOptions.h - MLIR's debug flags for Jeet's tools -*- C++ -*-=//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_TOOLS_PASSMANAGEROPTIONS_H
#define JEET_TOOLS_PASSMANAGEROPTIONS_H

namespace llvm {
namespace cl {
class OptionCategory;
} // namespace cl
} // namespace llvm

namespace jeet {

/// Registers MLIR's pass-manager and timing command-line options
/// (--mlir-print-ir-after-all, --mlir-print-ir-before=<pass>,
/// --mlir-pass-statistics, --mlir-timing, ...) and lists them in --help
/// under `category`, with every pass registered so that the options can
/// name them. Every pipeline the compiler then runs applies them
/// (jeet/Pipelines/PipelineRunner.h).
void registerPassManagerOptions(llvm::cl::OptionCategory &category);

} // namespace jeet

#endif // JEET_TOOLS_PASSMANAGEROPTIONS_H
