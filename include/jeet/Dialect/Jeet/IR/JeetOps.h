//===- JeetOps.h - Operations of the jeet dialect ---------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_IR_JEETOPS_H
#define JEET_DIALECT_JEET_IR_JEETOPS_H

#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/Dialect/Jeet/IR/JeetInterfaces.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "jeet/Dialect/Jeet/IR/JeetOps.h.inc"

namespace jeet {

/// Returns the numpy broadcast of two static shapes, or std::nullopt when they
/// are not broadcast-compatible.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Returns true when `from` broadcasts to `to` with numpy's rules.
bool isBroadcastableTo(llvm::ArrayRef<int64_t> from,
                       llvm::ArrayRef<int64_t> to);

/// Returns the number of elements of a static shape, or std::nullopt when the
/// count does not fit in an int64_t (or a dimension is dynamic).
std::optional<int64_t> getNumElements(llvm::ArrayRef<int64_t> shape);

/// Returns the shape of a reduction of `shape` over `axes`.
llvm::SmallVector<int64_t> reducedShape(llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<int64_t> axes,
                                        bool keepdims);

} // namespace jeet

#endif // JEET_DIALECT_JEET_IR_JEETOPS_H
