//===- PipelineRunner.cpp - Run a pipeline stage by stage -----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Pipelines/PipelineRunner.h"

#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cstdlib>
#include <ctime>

using namespace mlir;
using namespace jeet;

/// JEET_DEBUG's lines on stderr all start with this.
static constexpr llvm::StringLiteral kDebugPrefix = "jeet: ";

static void printDebugLine(const llvm::Twine &text) {
  llvm::errs() << kDebugPrefix << text << "\n";
}

/// The JEET_DEBUG level that adds the time of each pass.
static constexpr llvm::StringLiteral kPassTimesLevel = "2";

DebugSettings DebugSettings::fromEnvironment() {
  DebugSettings settings;
  if (const char *debug = std::getenv(kDebugEnvVar.data())) {
    settings.printStages =
        !llvm::StringRef(debug).empty() && llvm::StringRef(debug) != "0";
    settings.printPassTimes = llvm::StringRef(debug) == kPassTimesLevel;
  }
  if (const char *dir = std::getenv(kDumpDirEnvVar.data()))
    settings.dumpDir = dir;
  return settings;
}

/// The CPU time the calling thread has used, in seconds.
static double threadCpuSeconds() {
  timespec now;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0)
    return 0;
  return static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9;
}

StepClock::StepClock()
    : wallStart(std::chrono::steady_clock::now()),
      cpuStart(threadCpuSeconds()) {}

double StepClock::wallSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       wallStart)
      .count();
}

double StepClock::cpuSeconds() const { return threadCpuSeconds() - cpuStart; }

/// "  04 llvm   138.600 ms   cpu  52.100 ms": a step's wall time, then the
/// CPU time of the compiling thread.
static std::string formatStep(llvm::StringRef index, llvm::StringRef name,
                              const StepClock &clock) {
  return llvm::formatv("  {0,2} {1,-12} {2,9:f3} ms   cpu {3,9:f3} ms", index,
                       name, clock.wallSeconds() * 1e3,
                       clock.cpuSeconds() * 1e3)
      .str();
}

/// Whether `fusion` is reshapes alone (constants aside): a view, no kernel.
static bool isViewGroup(FusionOp fusion) {
  bool any = false;
  for (Operation &op : fusion.getBody().front().without_terminator()) {
    if (isa<ConstantOp>(op))
      continue;
    if (!isa<ReshapeOp>(op))
      return false;
    any = true;
  }
  return any;
}

std::vector<std::vector<std::string>> jeet::listKernels(ModuleOp module) {
  std::vector<std::vector<std::string>> groups;
  module.walk([&](FusionOp fusion) {
    if (isViewGroup(fusion))
      return;
    std::vector<std::string> names;
    for (Operation &op : fusion.getBody().front().without_terminator())
      if (!isa<ConstantOp>(op))
        names.push_back(op.getName().getStringRef().str());
    groups.push_back(std::move(names));
  });
  return groups;
}

int64_t jeet::countViewGroups(ModuleOp module) {
  int64_t views = 0;
  module.walk([&](FusionOp fusion) { views += isViewGroup(fusion); });
  return views;
}

static std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

PipelineRunner::PipelineRunner(const StagedPipeline &pipeline,
                               llvm::StringRef label, bool keepIR,
                               DebugSettings settings)
    : pipeline(pipeline), label(label.str()), keepIR(keepIR),
      settings(std::move(settings)) {
  // --mlir-timing and friends, where the tool registered them.
  applyDefaultTimingManagerCLOptions(timing);
  if (this->settings.printPassTimes) {
    timing.setEnabled(true);
    timing.setDisplayMode(DefaultTimingManager::DisplayMode::Tree);
  }
}

// The timing manager prints its report (when enabled) as it is destroyed.
PipelineRunner::~PipelineRunner() {
  if (settings.printStages && succeeded && clock)
    printDebugLine(formatStep("", "total", *clock));
}

void PipelineRunner::begin(ModuleOp module) {
  clock.emplace();
  std::string input;
  if (wantsText() || settings.printStages)
    input = printModule(module);
  // The same graph compiled with the same options gets the same folder.
  std::string id = label;
  if (!settings.dumpDir.empty() || settings.printStages) {
    uint64_t hash = llvm::xxh3_64bits(pipeline.description + "\n" + input);
    id += "-" + llvm::utohexstr(hash, /*LowerCase=*/true, /*Width=*/16);
  }
  if (!settings.dumpDir.empty()) {
    llvm::SmallString<128> folder(settings.dumpDir);
    llvm::sys::path::append(folder, id);
    if (std::error_code ec = llvm::sys::fs::create_directories(folder))
      llvm::errs() << kDebugPrefix << "warning: " << kDumpDirEnvVar
                   << ": cannot create '" << folder << "': " << ec.message()
                   << "; the stages are not dumped\n";
    else
      dumpFolder = folder.str().str();
  }
  if (settings.printStages)
    printDebugLine("compiling " + id + " with " + pipeline.description +
                   (dumpFolder.empty() ? "" : "; dumping to " + dumpFolder));
  record(0, stage::kInput, "mlir", std::move(input));
}

void PipelineRunner::record(unsigned index, llvm::StringRef name,
                            llvm::StringRef extension, std::string text) {
  if (!dumpFolder.empty()) {
    llvm::SmallString<128> path(dumpFolder);
    llvm::sys::path::append(
        path, llvm::formatv("{0:d2}-{1}.{2}", index, name, extension).str());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
    if (!ec) {
      os << text;
      os.close();
      ec = os.error();
    }
    if (ec)
      llvm::errs() << kDebugPrefix << "warning: " << kDumpDirEnvVar
                   << ": cannot write '" << path << "': " << ec.message()
                   << "\n";
  }
  if (keepIR)
    kept[name] = std::move(text);
}

void PipelineRunner::printFusionGroups(ModuleOp module) {
  std::vector<std::vector<std::string>> groups = listKernels(module);
  int64_t views = countViewGroups(module);
  printDebugLine(llvm::formatv(
      "     {0} fusion group(s), one kernel each{1}:", groups.size(),
      views ? llvm::formatv(" (and {0} of reshapes alone: views, no kernel)",
                            views)
                  .str()
            : std::string()));
  for (auto [i, ops] : llvm::enumerate(groups))
    printDebugLine(llvm::formatv("       kernel {0}: {1}", i,
                                 ops.empty() ? std::string("(copy)")
                                             : llvm::join(ops, " + ")));
}

LogicalResult PipelineRunner::run(ModuleOp module,
                                  const StageCallback &afterStage) {
  begin(module);
  TimingScope root = timing.getRootScope();
  unsigned index = 0;
  for (const PipelineStage &step : pipeline.stages) {
    ++index;
    PassManager pm = PassManager::on<ModuleOp>(module.getContext());
    step.build(pm);
    // The module is verified once per stage (below) rather than after each
    // of the ~40 passes: those walks of the whole module were ~10% of the
    // compile time of the matmul and the MLP. A stage whose output is
    // invalid still fails with the verifier's diagnostic; jeet-opt keeps
    // MLIR's -verify-each to find the pass at fault.
    pm.enableVerifier(false);
    // --mlir-print-ir-after-all and friends, where the tool registered them
    // (it fails, changing nothing, where none did).
    (void)applyPassManagerCLOptions(pm);
    TimingScope scope = root.nest(step.name);
    pm.enableTiming(scope);
    StepClock stageClock;
    LogicalResult result = pm.run(module);
    if (mlir::succeeded(result))
      result = mlir::verify(module);
    if (settings.printStages)
      printDebugLine(formatStep(llvm::formatv("{0:d2}", index).str(), step.name,
                                stageClock) +
                     (mlir::failed(result) ? "  FAILED" : ""));
    if (mlir::failed(result)) {
      failedStageName = step.name;
      return failure();
    }
    if (wantsText())
      record(index, step.name, "mlir", printModule(module));
    if (settings.printStages && step.name == stage::kFused)
      printFusionGroups(module);
    if (afterStage)
      afterStage(step.name, module);
  }
  succeeded = true;
  if (!wantsText())
    return success();
  for (const PipelineProduct &product : pipeline.products)
    if (std::optional<std::string> text = product.extract(module))
      record(++index, product.name, product.fileExtension, std::move(*text));
  return success();
}

void PipelineRunner::reportStep(llvm::StringRef name, const StepClock &clock,
                                llvm::StringRef note) {
  if (settings.printStages)
    printDebugLine(formatStep("", name, clock) +
                   (note.empty() ? "" : "   " + note.str()));
}
