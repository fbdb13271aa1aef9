//===- FreezeSquares.cpp - Freeze the operands of integer squares ---------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// jeet-cpu-freeze-squares: `llvm.mul %x, %x` on integers becomes
// `llvm.mul %f, %f` with `%f = llvm.freeze %x`. LLVM 22's loop vectorizer
// asks of a chain of squares of a value that is the same in every lane
// whether each square is one scalar, recursing into both (identical)
// operands without remembering the answer: time 2^(squares). A freeze is not
// such a scalar, so the recursion stops there (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "jeet/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/TypeUtilities.h"

namespace jeet {
#define GEN_PASS_DEF_JEETCPUFREEZESQUARESPASS
#include "jeet/Codegen/CPU/Passes.h.inc"
} // namespace jeet

using namespace mlir;

namespace {

struct JeetCpuFreezeSquaresPass
    : public jeet::impl::JeetCpuFreezeSquaresPassBase<
          JeetCpuFreezeSquaresPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](LLVM::MulOp square) {
      Value x = square.getLhs();
      if (x != square.getRhs() || !isa<IntegerType>(getElementTypeOrSelf(x)) ||
          x.getDefiningOp<LLVM::FreezeOp>())
        return;
      OpBuilder builder(square);
      Value frozen = LLVM::FreezeOp::create(builder, square.getLoc(), x);
      square->setOperands({frozen, frozen});
    });
  }
};

} // namespace
