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
