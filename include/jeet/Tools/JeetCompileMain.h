//===- JeetCompileMain.h - The jeet-compile driver --------------*- C++ -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_TOOLS_JEETCOMPILEMAIN_H
#define JEET_TOOLS_JEETCOMPILEMAIN_H

namespace jeet {

/// Compiles a .mlir graph into an artifact (.so): the whole of
/// `jeet-compile`. Returns the process exit code.
int jeetCompileMain(int argc, char **argv);

} // namespace jeet

#endif // JEET_TOOLS_JEETCOMPILEMAIN_H
