//===- CompilerSupport.h - Pieces the compiler's entry points share -*- C++
//-*-===//
//
// Part of the Jeet project.
//
// Internal to lib/Compiler: used by the JIT path (Compiler.cpp) and the
// ahead-of-time path (Artifact.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_COMPILER_COMPILERSUPPORT_H
#define JEET_LIB_COMPILER_COMPILERSUPPORT_H

#include "jeet/Compiler/Compiler.h"
#include "jeet/Pipelines/PipelineRunner.h"
#include "jeet/Runtime/DType.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Target/TargetMachine.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace jeet {
namespace detail {

/// The MLIR element type of `dtype`, or null for a dtype that Jeet graphs
/// do not take: graphs take every runtime dtype (f32, f16, bf16, i32, i64,
/// i1).
mlir::Type graphElementType(mlir::MLIRContext *context, runtime::DType dtype);

/// The dtype of an element type that Jeet graphs take.
std::optional<runtime::DType> graphDType(mlir::Type type);

/// "f32", "f16", "bf16", "i32", "i64" or "i1" for the element types Jeet
/// graphs take.
std::optional<std::string> dtypeName(mlir::Type type);

/// Checks that a graph's function has a signature Jeet can run (statically
/// shaped tensors of the element types above, at least one result), and
/// records it.
mlir::LogicalResult readSignature(mlir::func::FuncOp func,
                                  std::vector<TensorSpec> &inputs,
                                  std::vector<TensorSpec> &outputs);

/// Parses `sourceMgr`'s buffer as a graph module in `context`
/// (jeet::parseGraphSource, which verifies it), finds
/// `entry` and reads its signature. On failure the diagnostics have been
/// emitted (collect them with DiagnosticCollector) and `error` says what step
/// failed when no diagnostic did.
mlir::OwningOpRef<mlir::ModuleOp>
parseGraph(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
           llvm::StringRef sourceName, llvm::StringRef entry,
           std::vector<TensorSpec> &inputs, std::vector<TensorSpec> &outputs,
           std::string &error);

/// Erases every function of `module` but `entry` and what it calls: other
/// graphs of the file are neither compiled nor counted.
void keepOnlyEntry(mlir::ModuleOp module, mlir::func::FuncOp entry);

/// A target machine for the host CPU (the native target is initialised once).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> createHostTargetMachine();

/// LLVM's O3 module pipeline for `targetMachine` without loop unrolling and
/// interleaving, run on `module`. Jeet's kernels arrive vectorised and
/// register-tiled: the unroller only multiplied the size of their loops
/// (which carry up to 24 vector accumulators), and skipping it halved the
/// time LLVM takes on a 3-layer MLP (its optimisation went from ~550 to
/// ~220 ms under load) with no measurable change in speed. Long blocks
/// outside loops are outlined last (outlineLongBlocks). With
/// `printPassTimes`, LLVM's time per pass goes to stderr (as -time-passes).
void optimizeKernelModule(llvm::Module &module,
                          llvm::TargetMachine &targetMachine,
                          bool printPassTimes);

/// Moves every piece of `maxInstructions` instructions of a longer basic
/// block of `module` into a function of its own, called in its place, so
/// that code generation, which grows with the square of a block's length,
/// sees no block longer than that. A piece computes again the
/// `!invariant.load` chains it uses (the packed entry's argument loads)
/// instead of taking them from the pieces before it; the marks are dropped
/// afterwards. Run after optimisation. Returns the number of pieces moved.
/// Implemented in OutlineLongBlocks.cpp.
size_t outlineLongBlocks(llvm::Module &module, size_t maxInstructions);

/// The object file of `module` (optimised) for `targetMachine`, in memory;
/// with `printPassTimes`, the code generator's time per pass goes to stderr.
llvm::Expected<llvm::SmallVector<char, 0>>
emitObjectFile(llvm::Module &module, llvm::TargetMachine &targetMachine,
               bool printPassTimes);

/// The environment variable that caps the threads of code generation.
inline constexpr llvm::StringLiteral kCompileThreadsEnvVar =
    "JEET_COMPILE_THREADS";

/// The threads code generation may use: JEET_COMPILE_THREADS when set to a
/// positive number, else the cores this process may run on (at most 8).
/// Implemented in ParallelCodegen.cpp.
unsigned codegenThreads();

/// Makes a target machine like the one a compilation started with, for a
/// thread of code generation of its own.
using TargetMachineFactory =
    std::function<llvm::Expected<std::unique_ptr<llvm::TargetMachine>>()>;

/// The object files of one module, to be linked together.
struct ObjectFiles {
  std::vector<std::string> objects;
  /// The instructions of each partition when the module was split.
  std::vector<size_t> partitionInstructions;
  /// Whether the partitions after the first ran on threads of their own
  /// (not when LLVM's pass timing is on, or no thread could start).
  bool inParallel = false;
  /// The CPU time of the caller's thread spent cutting the module.
  double splitSeconds = 0;
  /// The CPU time of the threads other than the caller's.
  double helperCpuSeconds = 0;
  /// Whether the module was cut before optimisation, each partition
  /// optimised on its thread (else it was optimised whole, then cut).
  bool optimizedInParallel = false;

  /// What JEET_DEBUG says of a code generation split in partitions (empty
  /// for one object): the instructions of each object, the time spent
  /// cutting the module and the other threads' CPU time.
  std::string describe() const;
};

/// The object files of `module` (translated, not yet optimised) for
/// `targetMachine`: identical functions merged, optimised
/// (optimizeKernelModule) and generated. One object, or with `threads` > 1 and
/// a module large enough to gain, one per partition, compiled in parallel (the
/// first on the calling thread with `targetMachine`, each other on a thread of
/// its own with a machine from `makeTargetMachine`). When the module's
/// functions fall into partitions of similar size (the matmul tile kernels and
/// the entry), it is cut first and each partition is optimised on its thread
/// too; otherwise (one long entry: the module's size is in the blocks that
/// optimisation outlines) it is optimised whole, then cut. `optimized` is
/// called on the calling thread once its module or partition is optimised
/// (where a caller's report of optimisation ends and code generation's begins).
/// `module` may be changed (functions that partitions share become
/// external). The same module and `threads` give the same objects. With
/// `printPassTimes` the module is optimised whole, the partitions are
/// generated one after the other and LLVM's time per pass goes to stderr.
/// Implemented in ParallelCodegen.cpp.
llvm::Expected<ObjectFiles>
compileObjectFiles(llvm::Module &module, llvm::TargetMachine &targetMachine,
                   const TargetMachineFactory &makeTargetMachine,
                   unsigned threads, bool printPassTimes,
                   llvm::function_ref<void()> optimized);

/// The libomp that parallel CPU code runs with, by absolute path: the copy
/// next to the shared object that holds the compiler when there is one (the
/// Python wheel carries its own), else the one found at build time
/// (JEET_OPENMP_LIBRARY_PATH). Implemented in OpenMPLibrary.cpp.
const char *openmpLibrary();
#define JEET_OPENMP_LIBRARY ::jeet::detail::openmpLibrary()

/// A graph's source text and the diagnostics reported against it, collected
/// as text with their `file:line:col` (the SourceMgr holds the source).
/// While it lives, diagnostics on an op do not print the op after them ("see
/// current operation", MLIR's generic form of a line the message already
/// quotes from the user's file) unless JEET_DEBUG is set.
class DiagnosticCollector {
public:
  DiagnosticCollector(mlir::MLIRContext &context, llvm::StringRef source,
                      llvm::StringRef sourceName)
      : context(context), printedOps(context.shouldPrintOpOnDiagnostic()),
        os(text), handler(sourceMgr, &context, os) {
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, sourceName),
        llvm::SMLoc());
    context.printOpOnDiagnostic(DebugSettings::fromEnvironment().printStages);
  }
  ~DiagnosticCollector() { context.printOpOnDiagnostic(printedOps); }
  llvm::SourceMgr &getSourceMgr() { return sourceMgr; }
  std::string take() {
    os.flush();
    return text;
  }
  /// The diagnostics so far as an error, or `what` when there are none.
  llvm::Error fail(llvm::StringRef what) {
    std::string diagnostics = take();
    return llvm::createStringError(diagnostics.empty() ? what.str()
                                                       : diagnostics);
  }

private:
  mlir::MLIRContext &context;
  bool printedOps;
  llvm::SourceMgr sourceMgr;
  std::string text;
  llvm::raw_string_ostream os;
  mlir::SourceMgrDiagnosticHandler handler;
};

} // namespace detail
} // namespace jeet

#endif // JEET_LIB_COMPILER_COMPILERSUPPORT_H
