/*===- NoAbi.c - A host shared object that is not an emulator object ------===*\
 *
 * Defines a kernel's symbols but not __jeet_emu_abi_version: the emulator must
 * refuse it by name instead of running whatever it finds.
 *
\*===----------------------------------------------------------------------===*/

#include "TestKernel.h"

EMU_KERNEL(orphan, 0, 8) { (void)params; }
