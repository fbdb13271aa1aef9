//===- PipelineRunner.h - Run a pipeline stage by stage ---------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Every compilation of a graph (the JIT compiler, ahead-of-time artifacts,
// jeet-translate --jeet-to-ptx; so jeet-run, jeet-compile, the C++ API and
// Python alike) runs its pipeline's stages through a PipelineRunner, which:
// - keeps the IR after each stage when asked (Executable::ir());
// - applies MLIR's pass-manager and timing command-line options where a tool
//   registered them (--mlir-print-ir-after-all, --mlir-timing, ...), with
//   one timing report per compilation and each stage a scope of its own;
// - with JEET_DEBUG=1, prints each stage with its wall time, the CPU time of
//   the compiling thread (which a loaded machine does not inflate) and the
//   fusion groups to stderr; with JEET_DEBUG=2 also the time of each MLIR
//   pass (as --mlir-timing) and of each LLVM pass (as -time-passes);
// - with JEET_DUMP_DIR=<dir>, writes the IR after each stage (and the PTX) to
//   <dir>/<label>-<hash>/<NN>-<stage>.mlir (.ptx), where the hash is of the
//   input graph and the pipeline's options.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_PIPELINES_PIPELINERUNNER_H
#define JEET_PIPELINES_PIPELINERUNNER_H

#include "jeet/Pipelines/Stages.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringMap.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace jeet {

/// The environment variables that show what a compilation does.
inline constexpr llvm::StringLiteral kDebugEnvVar = "JEET_DEBUG";
inline constexpr llvm::StringLiteral kDumpDirEnvVar = "JEET_DUMP_DIR";

/// What the environment asks a compilation to show: read from JEET_DEBUG
/// and JEET_DUMP_DIR at each compilation.
struct DebugSettings {
  /// JEET_DEBUG set to anything but "" or "0".
  bool printStages = false;
  /// JEET_DEBUG=2: the time of every MLIR and LLVM pass as well.
  bool printPassTimes = false;
  /// JEET_DUMP_DIR; empty: no dump.
  std::string dumpDir;

  static DebugSettings fromEnvironment();
};

/// Measures one step of a compilation: its wall time and the CPU time of
/// the calling thread since construction.
class StepClock {
public:
  StepClock();
  double wallSeconds() const;
  double cpuSeconds() const;

private:
  std::chrono::steady_clock::time_point wallStart;
  double cpuStart;
};

/// For each jeet.fusion group of `module` that becomes a kernel, the names
/// of the jeet ops it fuses, constants aside. A group of reshapes alone is
/// not one: its result is a view of its operand's buffer (a collapse or
/// expand of contiguous memory), with no loop on the CPU and no launch on
/// the GPU.
std::vector<std::vector<std::string>> listKernels(mlir::ModuleOp module);

/// How many jeet.fusion groups of `module` are reshapes alone (views).
int64_t countViewGroups(mlir::ModuleOp module);

/// Runs one compilation's pipeline on a module, stage by stage.
class PipelineRunner {
public:
  /// `label` names the compilation in JEET_DEBUG's output and its
  /// JEET_DUMP_DIR folder ("main-cpu"); with `keepIR` the text after each
  /// stage is kept for stageIR().
  PipelineRunner(const StagedPipeline &pipeline, llvm::StringRef label,
                 bool keepIR,
                 DebugSettings settings = DebugSettings::fromEnvironment());
  ~PipelineRunner();

  /// Called with the module after each stage, before the next one runs.
  using StageCallback =
      std::function<void(llvm::StringRef stage, mlir::ModuleOp module)>;

  /// Runs every stage on `module`, then extracts the products. On failure
  /// the diagnostics have been emitted to the context and failedStage()
  /// names the stage. A dump that cannot be written is a warning on stderr,
  /// not a failure: it never changes what is compiled.
  mlir::LogicalResult run(mlir::ModuleOp module,
                          const StageCallback &afterStage = {});

  /// The stage that failed in run(), or empty.
  llvm::StringRef failedStage() const { return failedStageName; }

  /// Reports a step done after the pipeline (LLVM optimisation, code
  /// generation, linking) with its times, as JEET_DEBUG reports the stages,
  /// and `note` after them when not empty.
  void reportStep(llvm::StringRef name, const StepClock &clock,
                  llvm::StringRef note = "");

  /// Whether JEET_DEBUG asks for the time of each pass (the steps after the
  /// pipeline print LLVM's).
  bool printPassTimes() const { return settings.printPassTimes; }

  /// The text after each stage (stage::kInput, the stages, the products),
  /// when kept.
  const llvm::StringMap<std::string> &stageIR() const { return kept; }
  llvm::StringMap<std::string> takeStageIR() { return std::move(kept); }

private:
  void begin(mlir::ModuleOp module);
  void record(unsigned index, llvm::StringRef name, llvm::StringRef extension,
              std::string text);
  void printFusionGroups(mlir::ModuleOp module);
  bool wantsText() const { return keepIR || !settings.dumpDir.empty(); }

  const StagedPipeline &pipeline;
  std::string label;
  bool keepIR;
  DebugSettings settings;
  /// The folder of this compilation's dump, once created; empty when
  /// nothing is dumped.
  std::string dumpFolder;
  std::string failedStageName;
  bool succeeded = false;
  std::optional<StepClock> clock;
  llvm::StringMap<std::string> kept;
  mlir::DefaultTimingManager timing;
};

} // namespace jeet

#endif // JEET_PIPELINES_PIPELINERUNNER_H
