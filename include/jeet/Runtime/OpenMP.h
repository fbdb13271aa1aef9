//===- OpenMP.h - Living with libomp's process records ----------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_RUNTIME_OPENMP_H
#define JEET_RUNTIME_OPENMP_H

namespace jeet {
namespace runtime {

/// Removes empty libomp registration records named after this process, which
/// would make its first parallel region die of SIGBUS (see OpenMP.cpp). Call
/// it before code that uses libomp first runs: the JIT before it links a
/// parallel graph, the runtime before it loads an artifact. Cheap after the
/// first call, which alone does the work.
void removeStaleOpenMPRecords();

} // namespace runtime
} // namespace jeet

#endif // JEET_RUNTIME_OPENMP_H
