//===- JeetDialect.cpp - The jeet dialect ---------------------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"

using namespace mlir;
using namespace jeet;

#include "jeet/Dialect/Jeet/IR/JeetOpsDialect.cpp.inc"

void JeetDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "jeet/Dialect/Jeet/IR/JeetOps.cpp.inc"
      >();
}

Operation *JeetDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult jeet::verifyWithinSizeLimits(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank() || !shaped.hasStaticShape() ||
        isWithinSizeLimits(shaped))
      return success();
    if (shaped.getRank() > kMaxTensorRank)
      return op->emitOpError() << what << " #" << index << " has type " << type
                               << " of rank " << shaped.getRank()
                               << ", beyond Jeet's limit of " << kMaxTensorRank;
    return op->emitOpError()
           << what << " #" << index << " has type " << type
           << " with more elements than Jeet's limit of 2^40 ("
           << kMaxTensorElements << ")";
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (failed(check(arg.getType(), "region argument", arg.getArgNumber())))
          return failure();
  if (auto constant = dyn_cast<ConstantOp>(op))
    return check(constant.getValue().getType(), "value", 0);
  return success();
}
