//===- Passes.h - Passes on the jeet dialect --------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_TRANSFORMS_PASSES_H
#define JEET_DIALECT_JEET_TRANSFORMS_PASSES_H

#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/Dialect/Jeet/Transforms/FuseDefaults.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace jeet {

#define GEN_PASS_DECL
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"

} // namespace jeet

#endif // JEET_DIALECT_JEET_TRANSFORMS_PASSES_H
