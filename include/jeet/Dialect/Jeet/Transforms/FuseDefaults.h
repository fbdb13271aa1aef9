//===- FuseDefaults.h - Defaults of jeet-fuse -------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// The defaults of jeet-fuse's options, in a header of their own (no MLIR) so
// that the pass, the pipelines, the compiler API, the tools and Python share
// one value.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_TRANSFORMS_FUSEDEFAULTS_H
#define JEET_DIALECT_JEET_TRANSFORMS_FUSEDEFAULTS_H

#include <cstdint>

namespace jeet {

/// The largest number of ops in one fusion group (jeet-fuse's `max-ops`, the
/// pipelines' `max-fusion-ops`). Large enough that real graphs are never
/// split by it; it bounds the size of one kernel for generated graphs.
inline constexpr int64_t kDefaultMaxFusionOps = 64;

} // namespace jeet

#endif // JEET_DIALECT_JEET_TRANSFORMS_FUSEDEFAULTS_H
