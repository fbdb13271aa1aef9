//===- JeetDialect.h - The jeet dialect -------------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_IR_JEETDIALECT_H
#define JEET_DIALECT_JEET_IR_JEETDIALECT_H

#include "mlir/IR/Dialect.h"

#include "jeet/Dialect/Jeet/IR/JeetOpsDialect.h.inc"

#endif // JEET_DIALECT_JEET_IR_JEETDIALECT_H
