//===- CallerStream.cpp - Host code on the caller's stream ----------------===//
//
// Part of the Jeet project.
//
// After gpu-async-region, a host function makes a stream of its own, chains
// its GPU work on it and waits at the end. This pass makes the stream an
// argument and drops the wait, so that an execution is queued on whatever
// stream its caller runs it on and returns at once.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/GPU/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace jeet {
#define GEN_PASS_DEF_JEETGPUCALLERSTREAMPASS
#include "jeet/Codegen/GPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

/// The unit attribute that marks the stream argument.
constexpr llvm::StringLiteral kStreamArgAttr = "jeet.stream";

struct CallerStreamPass
    : public jeet::impl::JeetGpuCallerStreamPassBase<CallerStreamPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.isPublic())
      return;
    // Only functions that do GPU work change their signature.
    bool usesGpu = false;
    func.walk([&](Operation *op) {
      usesGpu |= isa<gpu::AsyncOpInterface>(op) || isa<gpu::WaitOp>(op);
    });
    if (!usesGpu)
      return;
    if (failed(check(func)))
      return signalPassFailure();

    OpBuilder builder(func.getContext());
    unsigned index = func.getNumArguments();
    if (failed(
            func.insertArgument(index, builder.getType<gpu::AsyncTokenType>(),
                                builder.getDictionaryAttr(builder.getNamedAttr(
                                    kStreamArgAttr, builder.getUnitAttr())),
                                func.getLoc()))) {
      func.emitError("jeet-gpu-caller-stream: cannot add the stream argument");
      return signalPassFailure();
    }
    Value stream = func.getArgument(index);
    for (auto wait : llvm::make_early_inc_range(func.getOps<gpu::WaitOp>())) {
      if (wait.getAsyncToken()) {
        // The stream the function made: the caller's from now on.
        wait.getAsyncToken().replaceAllUsesWith(stream);
      }
      // The wait at the end, or the start of the chain: both go.
      wait.erase();
    }
  }

  /// Errors for host code that is not one chain of work waited for at the
  /// end only.
  LogicalResult check(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitError("jeet-gpu-caller-stream: expected a host function "
                            "of one block");
    LogicalResult result = success();
    func.walk([&](gpu::WaitOp wait) {
      if (wait->getParentOp() != func) {
        result = wait.emitError("jeet-gpu-caller-stream: the host waits for "
                                "the GPU inside a nested region");
        return;
      }
      if (wait.getAsyncToken()) {
        if (!wait.getAsyncDependencies().empty())
          result = wait.emitError(
              "jeet-gpu-caller-stream: the host code joins several chains "
              "of GPU work; it must be one chain on one stream");
        return;
      }
      Operation *next = wait->getNextNode();
      if (!next || !isa<func::ReturnOp>(next))
        result = wait.emitError(
            "jeet-gpu-caller-stream: the host waits for the GPU before the "
            "end of the function; only a wait right before the return can "
            "be left to the caller");
    });
    return result;
  }
};

} // namespace
