//===- JeetRunMain.h - The jeet-run driver ----------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_TOOLS_JEETRUNMAIN_H
#define JEET_TOOLS_JEETRUNMAIN_H

namespace jeet {

/// Compiles a .mlir graph and runs it: the whole of `jeet-run`. Returns the
/// process exit code.
int jeetRunMain(int argc, char **argv);

} // namespace jeet

#endif // JEET_TOOLS_JEETRUNMAIN_H
