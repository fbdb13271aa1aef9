//===- OutlineKernels.cpp - One function per kernel of large graphs -------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// Moves each kernel of a function with many kernels into a private function
// of its own (see the pass description in Passes.td): LLVM then compiles the
// kernels one by one instead of one function whose code generation grows
// with the square of its size.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUOUTLINEKERNELSPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kKernelName = "jeet_kernel";
/// LLVM function attributes that the LLVM dialect passes through.
constexpr llvm::StringLiteral kPassthroughAttr = "passthrough";
constexpr llvm::StringLiteral kNoInlineAttr = "noinline";

/// Whether `op`, an op of a function's body, is a kernel that can be moved
/// into a function of its own: it has regions (a loop nest, a linalg op on
/// buffers), no results, and allocates and frees nothing.
bool isOutlinableKernel(Operation *op) {
  if (op->getNumRegions() == 0 || op->getNumResults() != 0 ||
      op->hasTrait<OpTrait::IsTerminator>())
    return false;
  WalkResult allocates = op->walk([](Operation *nested) {
    return isa<memref::AllocOp, memref::ReallocOp, memref::DeallocOp>(nested)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return !allocates.wasInterrupted();
}

/// The values defined outside `kernel` that it uses, in a deterministic
/// order: its operands, then the values its regions use.
SetVector<Value> capturedValues(Operation *kernel) {
  SetVector<Value> captured;
  captured.insert(kernel->operand_begin(), kernel->operand_end());
  getUsedValuesDefinedAbove(kernel->getRegions(), captured);
  return captured;
}

/// Whether `value` is made by an op that can be copied into the kernel's
/// function instead of passed to it (a constant, a global's address).
Operation *copyableDefinition(Value value) {
  Operation *def = value.getDefiningOp();
  if (def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
      (def->hasTrait<OpTrait::ConstantLike>() || isa<memref::GetGlobalOp>(def)))
    return def;
  return nullptr;
}

/// Moves `kernel` into a new private function inserted into `symbols`, and
/// calls it in its place. The constants it copied are added to `copied`.
void outline(Operation *kernel, SymbolTable &symbols,
             SetVector<Operation *> &copied) {
  Location loc = kernel->getLoc();
  SetVector<Value> captured = capturedValues(kernel);
  SmallVector<Value> arguments;
  SmallVector<Operation *> copies;
  for (Value value : captured) {
    if (Operation *def = copyableDefinition(value))
      copies.push_back(def);
    else
      arguments.push_back(value);
  }

  OpBuilder builder(kernel->getContext());
  auto function = func::FuncOp::create(
      builder, loc, kKernelName,
      builder.getFunctionType(ValueRange(arguments).getTypes(), {}));
  function.setPrivate();
  // Inlined back, the kernels would again be one function for LLVM.
  function->setAttr(
      kPassthroughAttr,
      builder.getArrayAttr({builder.getStringAttr(kNoInlineAttr)}));
  symbols.insert(function);

  Block *body = function.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  mapping.map(arguments, body->getArguments());
  for (Operation *def : copies) {
    builder.clone(*def, mapping);
    copied.insert(def);
  }
  builder.clone(*kernel, mapping);
  func::ReturnOp::create(builder, loc);

  OpBuilder atKernel(kernel);
  func::CallOp::create(atKernel, loc, function, arguments);
  kernel->erase();
}

struct JeetCpuOutlineKernelsPass
    : jeet::impl::JeetCpuOutlineKernelsPassBase<JeetCpuOutlineKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (func::FuncOp function :
         llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (function.isPrivate() || function.isExternal())
        continue;
      SmallVector<Operation *> kernels;
      for (Operation &op : function.getBody().getOps())
        if (isOutlinableKernel(&op))
          kernels.push_back(&op);
      if (static_cast<int64_t>(kernels.size()) < minKernels)
        continue;
      SetVector<Operation *> copied;
      for (Operation *kernel : kernels)
        outline(kernel, symbols, copied);
      // Constants that only the kernels used.
      for (Operation *def : copied)
        if (def->use_empty())
          def->erase();
    }
  }
};

} // namespace
