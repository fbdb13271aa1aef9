//===- InitAllJeet.h - Register everything Jeet defines ---------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_INITALLJEET_H
#define JEET_INITALLJEET_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace jeet {

/// Adds the jeet dialect and every upstream dialect, extension and LLVM IR
/// translation interface. In the self-contained Python extension
/// (JEET_STATIC_LLVM) it adds only what registerJeetCompilerDialects adds.
void registerAllJeetDialects(mlir::DialectRegistry &registry);

/// Adds the jeet dialect and the upstream dialects, extensions and LLVM IR
/// translations that graphs meet in the Jeet pipelines, and no others.
void registerJeetCompilerDialects(mlir::DialectRegistry &registry);

/// Registers Jeet's passes and named pipelines, and every upstream pass.
void registerAllJeetPasses();

} // namespace jeet

#endif // JEET_INITALLJEET_H
