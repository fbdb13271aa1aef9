//===- SeparateEntryBlock.cpp - A function's body out of its entry --------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// MLIR's conversion of a function signature checks, for each use of a
// converted argument in the block that holds the argument's new value,
// whether the use comes after it; with thousands of arguments and one block
// of thousands of ops that is quadratic. An entry block that only branches
// to the body keeps every use in another block.
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUSEPARATEENTRYBLOCKPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

struct JeetCpuSeparateEntryBlockPass
    : public jeet::impl::JeetCpuSeparateEntryBlockPassBase<
          JeetCpuSeparateEntryBlockPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal() || function.getNumArguments() == 0)
      return;
    Block &entry = function.front();
    Block *body = entry.splitBlock(entry.begin());
    OpBuilder builder = OpBuilder::atBlockEnd(&entry);
    cf::BranchOp::create(builder, function.getLoc(), body);
  }
};

} // namespace
