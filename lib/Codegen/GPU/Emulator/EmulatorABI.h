//===- EmulatorABI.h - Kernel ABI of the GPU emulation target ---*- C++ -*-===//
//
// Part of the Jeet project.
//
// Internal to lib/Codegen/GPU/Emulator: the steps of
// jeet-gpu-lower-to-emulator and the pieces of include/jeet/Emulator/
// KernelABI.h they share (functions, the thread state's layout, sites).
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_CODEGEN_GPU_EMULATOR_EMULATORABI_H
#define JEET_LIB_CODEGEN_GPU_EMULATOR_EMULATORABI_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace jeet {
namespace emu {

//===----------------------------------------------------------------------===//
// ABI pieces
//===----------------------------------------------------------------------===//

/// Fields of JeetEmuThreadState, in order.
enum class ThreadStateField : unsigned {
  ThreadId = 0,
  BlockId = 1,
  BlockDim = 2,
  GridDim = 3,
  Shared = 4,
  LaneId = 5,
};

/// The LLVM type of JeetEmuThreadState.
mlir::LLVM::LLVMStructType getThreadStateType(mlir::MLIRContext *context);

/// The declaration of the ABI function `name` in `module`, added on first
/// use.
mlir::LLVM::LLVMFuncOp declareFunction(mlir::OpBuilder &builder,
                                       mlir::Operation *module,
                                       llvm::StringRef name, mlir::Type result,
                                       llvm::ArrayRef<mlir::Type> params);

/// "<op name> at <file>:<line>:<col>": how reports name the op `op`.
std::string describeSite(mlir::Operation *op);

/// The NUL-terminated site strings of one gpu.module, as private constant
/// globals (one per distinct text).
class SiteStrings {
public:
  explicit SiteStrings(mlir::Operation *module) : module(module) {}
  /// The global holding `describeSite(op)`, created on first use.
  mlir::LLVM::GlobalOp getOrCreate(mlir::Operation *op);
  /// Its address, at the builder's insertion point.
  mlir::Value address(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Operation *op);

private:
  mlir::Operation *module;
  llvm::StringMap<mlir::LLVM::GlobalOp> globals;
};

//===----------------------------------------------------------------------===//
// Steps of jeet-gpu-lower-to-emulator
//===----------------------------------------------------------------------===//

/// What a kernel turned into by lowerKernelsToFunctions.
struct KernelInfo {
  std::string name;
  /// Bytes of its workgroup attributions (KernelABI.h's static shared
  /// bytes).
  int64_t staticSharedBytes = 0;
};

/// Step 1, before the conversion to LLVM: in every gpu.func of `module`,
/// the gpu ops become reads of the thread state and calls into the emulator,
/// and workgroup (private) attributions become views into the block's shared
/// memory (stack allocations); then each gpu.func becomes a func.func of the
/// same name. Reports what cannot be emulated.
mlir::LogicalResult lowerKernelsToFunctions(
    mlir::gpu::GPUModuleOp module, const mlir::LLVMTypeConverter &converter,
    SiteStrings &sites, llvm::SmallVectorImpl<KernelInfo> &kernels);

/// Which memory an access touches, for the emulator's checks.
enum class MemoryKind {
  /// Device memory, checked against the live allocations.
  Global,
  /// The block's shared memory, checked for bounds and races.
  Shared,
  /// Constants in the object and thread-private memory: not checked.
  Unchecked,
};

/// The loads and stores to check, with the memory they touch and the site
/// global that names them.
struct CheckedAccess {
  MemoryKind kind;
  mlir::LLVM::GlobalOp site;
};
using CheckedAccesses = llvm::DenseMap<mlir::Operation *, CheckedAccess>;

/// Step 2a: finds the memref/vector loads and stores of `module` and what
/// they touch (from the memref's address space and where it comes from).
CheckedAccesses collectCheckedAccesses(mlir::gpu::GPUModuleOp module,
                                       SiteStrings &sites);

/// Step 2b: patterns that lower memref.load/store and vector.load/store like
/// the upstream conversions, each access preceded by its check. They take
/// precedence over the upstream patterns for the accesses in `accesses`.
void populateCheckedAccessPatterns(const mlir::LLVMTypeConverter &converter,
                                   const CheckedAccesses &accesses,
                                   mlir::RewritePatternSet &patterns);

/// Step 3, after the conversion to LLVM: each kernel gets its gpu.kernel
/// attribute back, internal linkage, the exported entry
/// `__jeet_emu_kernel_<name>(void **params)` and its metadata symbols; the
/// module gets `__jeet_emu_abi_version`.
mlir::LogicalResult addEntryPoints(mlir::gpu::GPUModuleOp module,
                                   llvm::ArrayRef<KernelInfo> kernels);

/// Step 3 too: defines the compiler runtime functions that LLVM's backend
/// may call for the module on some hosts and that the host's libraries may
/// lack (`__truncsfbf2`, for bf16 results), hidden in the object.
void addHostBuiltins(mlir::gpu::GPUModuleOp module);

} // namespace emu
} // namespace jeet

#endif // JEET_LIB_CODEGEN_GPU_EMULATOR_EMULATORABI_H
