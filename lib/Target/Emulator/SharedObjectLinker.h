//===- SharedObjectLinker.h - Link a host object into a .so -----*- C++ -*-===//
//
// Part of the Jeet project.
//
// Internal to lib/Target/Emulator.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_TARGET_EMULATOR_SHAREDOBJECTLINKER_H
#define JEET_LIB_TARGET_EMULATOR_SHAREDOBJECTLINKER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace jeet {
namespace emu {

/// Links one relocatable ELF object (position-independent code) into an ELF
/// shared object with the system's linker and returns its bytes. Undefined
/// symbols stay undefined: they resolve when the shared object is loaded.
/// The error names the linker and carries its messages.
llvm::Expected<llvm::SmallVector<char, 0>>
linkSharedObject(llvm::StringRef object);

} // namespace emu
} // namespace jeet

#endif // JEET_LIB_TARGET_EMULATOR_SHAREDOBJECTLINKER_H
