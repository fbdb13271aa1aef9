//===- JeetCompileMain.cpp - The jeet-compile driver ----------------------===//
//
// Part of the Jeet project.
//
// Compiles a .mlir graph ahead of time into a shared object that jeet-runner
// (and anything linking libjeet_runtime) loads and runs without LLVM/MLIR.
//
//===----------------------------------------------------------------------===//

#include "jeet/Tools/JeetCompileMain.h"

#include "jeet/Compiler/Artifact.h"
#include "jeet/Tools/PassManagerOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace jeet;
namespace cl = llvm::cl;

namespace {

int fail(const llvm::Twine &message) {
  llvm::errs() << "jeet-compile: error: " << message << "\n";
  return 1;
}

/// What the command line asks for.
struct CompileFlags {
  std::string inputFile, outputFile;
  bool printSignature = false;
  ArtifactOptions artifact;
};

CompileFlags parseFlags(int argc, char **argv) {
  // Options keep pointers to their categories: these outlive the parse.
  static cl::OptionCategory category("jeet-compile options");
  static cl::OptionCategory mlirCategory(
      "MLIR pass-manager options (applied to every stage of the pipeline)");
  cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph.mlir>"),
                                 cl::Required, cl::cat(category));
  cl::opt<std::string> outputFile("o", cl::desc("The artifact to write (.so)"),
                                  cl::value_desc("graph.so"), cl::Required,
                                  cl::cat(category));
  cl::opt<std::string> entry("entry", cl::desc("The function to compile"),
                             cl::init("main"), cl::cat(category));
  cl::opt<std::string> device("device",
                              cl::desc("The device the graph runs on: cpu or "
                                       "gpu"),
                              cl::init("cpu"), cl::cat(category));
  cl::opt<bool> fuse("fuse", cl::desc("Fuse ops into kernels (default true)"),
                     cl::init(true), cl::cat(category));
  cl::opt<int64_t> maxFusionOps(
      "max-fusion-ops", cl::desc("The largest number of ops in one kernel"),
      cl::init(kDefaultMaxFusionOps), cl::cat(category));
  cl::opt<std::string> targetCpu(
      "target-cpu",
      cl::desc("The CPU the host code is compiled for: host, generic or an "
               "LLVM CPU name such as x86-64-v3 (default: host for cpu "
               "artifacts, generic for gpu artifacts); its vector registers "
               "also size the matmuls' register tiles"),
      cl::init(""), cl::cat(category));
  cl::opt<std::string> gpuTarget(
      "gpu-target",
      cl::desc("GPU artifacts: what the kernels are compiled for: ptx "
               "(default) or emulator (the host, run by the CUDA driver "
               "emulator; --gpu-chip and --gpu-format do not apply)"),
      cl::init("ptx"), cl::cat(category));
  cl::opt<std::string> gpuChip(
      "gpu-chip",
      cl::desc("GPU artifacts: the chip to compile for (sm_80, sm_86, sm_89, "
               "sm_90; default sm_90)"),
      cl::init(""), cl::cat(category));
  cl::opt<std::string> gpuFormat(
      "gpu-format",
      cl::desc("GPU artifacts: isa (PTX, JIT-compiled by the driver at load; "
               "default), bin (cubin) or fatbin (both need ptxas)"),
      cl::init(""), cl::cat(category));
  cl::opt<bool> parallel(
      "parallel",
      cl::desc("CPU artifacts: run each kernel on all cores with OpenMP; the "
               "artifact then needs libomp where it runs (its path here is "
               "recorded). Default: single-threaded, libc and libm only"),
      cl::init(false), cl::cat(category));
  cl::opt<bool> mergeParallelRegions(
      "merge-parallel-regions",
      cl::desc("CPU artifacts with --parallel: run adjacent kernels in one "
               "OpenMP region (default true); false gives each kernel its "
               "own region (outlined function), to profile kernel by kernel"),
      cl::init(true), cl::cat(category));
  cl::opt<bool> printSignature(
      "print-signature",
      cl::desc("Print the artifact's signature after writing it"),
      cl::init(false), cl::cat(category));
  registerPassManagerOptions(mlirCategory);
  cl::HideUnrelatedOptions({&category, &mlirCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "jeet-compile: compile a jeet graph into an artifact (.so) that "
      "jeet-runner runs\n\n"
      "JEET_DEBUG=1 prints each stage of the compilation with its time and "
      "the fusion groups; JEET_DUMP_DIR=<dir> writes the IR after each "
      "stage.\n");

  CompileFlags flags;
  flags.inputFile = inputFile;
  flags.outputFile = outputFile;
  flags.printSignature = printSignature;
  ArtifactOptions &options = flags.artifact;
  options.compile.entry = entry;
  options.compile.device = device;
  options.compile.fuse = fuse;
  options.compile.maxFusionOps = maxFusionOps;
  options.compile.gpuTarget = gpuTarget;
  options.targetCpu = targetCpu;
  options.openmp = parallel;
  options.mergeParallelRegions = mergeParallelRegions;
  options.gpuChip = gpuChip;
  options.gpuFormat = gpuFormat;
  return flags;
}

} // namespace

int jeet::jeetCompileMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  CompileFlags flags = parseFlags(argc, argv);
  const std::string &device = flags.artifact.compile.device;
  if (device != "cpu" && device != "gpu")
    return fail("unknown device '" + device + "' (expected cpu or gpu)");
  llvm::StringRef parent = llvm::sys::path::parent_path(flags.outputFile);
  if (!parent.empty() && !llvm::sys::fs::is_directory(parent))
    return fail("cannot write '" + flags.outputFile + "': directory '" +
                parent + "' does not exist");

  auto file = llvm::MemoryBuffer::getFileOrSTDIN(flags.inputFile);
  if (!file)
    return fail("cannot read '" + flags.inputFile +
                "': " + file.getError().message());
  auto info = compileArtifact((*file)->getBuffer(), flags.inputFile,
                              flags.artifact, flags.outputFile);
  if (!info) {
    std::string message = llvm::toString(info.takeError());
    llvm::errs() << message;
    if (!llvm::StringRef(message).ends_with("\n"))
      llvm::errs() << "\n";
    return fail("compilation of '" + flags.inputFile + "' into '" +
                flags.outputFile + "' failed");
  }
  if (flags.printSignature)
    llvm::outs() << info->signature << "\n";
  return 0;
}
