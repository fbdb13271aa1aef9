//===- Stages.h - Pipelines as lists of named stages ------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// Each of Jeet's pipelines is defined once, as an ordered list of named
// stages (a name and the builder of its passes). The registered pipelines
// (`jeet-cpu-pipeline`, `jeet-gpu-pipeline`) put every stage into one pass
// manager; the compiler runs the same list stage by stage (PipelineRunner.h),
// recording the IR after each under the stage's name for Executable::ir(),
// JEET_DEBUG and JEET_DUMP_DIR. This header holds that structure and the
// stages every device shares (graph, linalg, bufferization).
//
//===----------------------------------------------------------------------===//

#ifndef JEET_PIPELINES_STAGES_H
#define JEET_PIPELINES_STAGES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace jeet {

/// The names of the stages: what Executable::ir() takes, what JEET_DEBUG
/// prints and what JEET_DUMP_DIR names its files after.
namespace stage {
/// The graph as given, before any pass.
inline constexpr llvm::StringLiteral kInput = "jeet";
/// Canonicalized, composites decomposed, ops grouped into jeet.fusion.
inline constexpr llvm::StringLiteral kFused = "fused";
/// CPU: each fusion group one linalg loop nest on tensors.
inline constexpr llvm::StringLiteral kLinalg = "linalg";
/// CPU: on buffers, each intermediate freed after its last use.
inline constexpr llvm::StringLiteral kBufferized = "bufferized";
/// GPU: one outlined kernel per fusion group, launched from the host on one
/// stream.
inline constexpr llvm::StringLiteral kKernels = "kernels";
/// The LLVM dialect (for the GPU: host code, kernels in gpu.binary).
inline constexpr llvm::StringLiteral kLLVM = "llvm";
/// GPU: the PTX of the kernels.
inline constexpr llvm::StringLiteral kPTX = "ptx";
} // namespace stage

/// One stage of a pipeline: the passes between two points where the IR is
/// worth reading.
struct PipelineStage {
  std::string name;
  std::function<void(mlir::OpPassManager &)> build;
};

/// A text that the IR after the last stage holds in another form (the PTX
/// inside gpu.binary): recorded and dumped like a stage.
struct PipelineProduct {
  std::string name;
  /// The extension of its JEET_DUMP_DIR file, without the dot ("ptx").
  std::string fileExtension;
  /// The text, or nothing when the module does not hold it in text form.
  std::function<std::optional<std::string>(mlir::ModuleOp)> extract;
};

/// A pipeline as the list of its stages.
struct StagedPipeline {
  /// The registered name and options, e.g. "jeet-cpu-pipeline{fuse=true
  /// ...}": printed by JEET_DEBUG, and part of the JEET_DUMP_DIR folder name's
  /// hash.
  std::string description;
  std::vector<PipelineStage> stages;
  std::vector<PipelineProduct> products;

  /// Adds the passes of every stage up to and including `last` (of all
  /// stages when `last` is empty) to `pm`.
  void build(mlir::OpPassManager &pm, llvm::StringRef last = {}) const;
  /// stage::kInput, then each stage, then each product: the names whose IR a
  /// compilation records.
  std::vector<std::string> stageNames() const;
};

//===----------------------------------------------------------------------===//
// The stages every device shares
//===----------------------------------------------------------------------===//

/// Graph-level passes: canonicalize, decompose composites, fuse into
/// jeet.fusion groups (with jeet-fuse's multi-reduction groups when
/// `multiReduction`: the CPU lowering tiles them over blocks of rows; the
/// GPU's makes one kernel of those whose rows are at most `maxRowBytes` long,
/// 0 meaning no limit), with `attentionBlockBytes` attention as one
/// group where a block of its rows fits (0: three groups), and with
/// `transposedEpilogues` a matmul's result transposed as its group's
/// epilogue (the CPU lowering's tiles store it transposed).
void buildJeetGraphPipeline(mlir::OpPassManager &pm, bool fuse,
                            int64_t maxFusionOps, bool multiReduction = false,
                            int64_t maxRowBytes = 0,
                            int64_t attentionBlockBytes = 0,
                            bool transposedEpilogues = false);

/// Lowers jeet (with fusion groups) to linalg on tensors.
void buildJeetLowerToLinalgPipeline(mlir::OpPassManager &pm);

/// Bufferizes linalg on tensors: results become caller-owned
/// out-parameters, and every intermediate buffer is freed directly after its
/// last use.
void buildJeetBufferizePipeline(mlir::OpPassManager &pm);

/// Prints pipeline options as their registered pipeline takes them:
/// `name{opt=value ...}`.
template <typename Options>
std::string describePipeline(llvm::StringRef name, const Options &options) {
  std::string text = name.str();
  llvm::raw_string_ostream os(text);
  options.print(os);
  return text;
}

} // namespace jeet

#endif // JEET_PIPELINES_STAGES_H
