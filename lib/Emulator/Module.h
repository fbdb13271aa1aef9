//===- Module.h - Loading emulator objects ----------------------*- C++ -*-===//
//
// A module image handed to cuModuleLoadData(Ex) must be an emulator object:
// an ELF shared object for the host machine, as the GPU emulation target
// (jeet-gpu-pipeline{target=emulator}) writes into gpu.binary. Its size comes
// from its ELF headers (the API passes none). It is written to an anonymous
// in-memory file and dlopen()ed, after the emulator's own symbols have been
// made global so that the object's calls to __jeet_emu_* resolve. PTX,
// cubins and fatbins are refused with a message that says what they are and
// what the emulator runs instead.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_LIB_EMULATOR_MODULE_H
#define JEET_LIB_EMULATOR_MODULE_H

#include "Launch.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace jeet {
namespace emulator {

/// What a module image is.
struct ImageInfo {
  enum class Kind { HostObject, Cubin, Fatbin, Ptx, OtherElf, Unknown };
  Kind kind = Kind::Unknown;
  /// Bytes of a HostObject, from its ELF headers.
  size_t size = 0;
  /// The kernels a HostObject defines (its __jeet_emu_kernel_* symbols).
  std::vector<std::string> kernels;
  /// For OtherElf and Unknown: what it looked like.
  std::string description;
};

/// Recognises an image by its first bytes (and, for ELF, its headers).
ImageInfo inspectImage(const void *image);

/// A loaded emulator object (what a CUmodule points at).
struct Module {
  void *handle = nullptr;
  int fd = -1;
  std::vector<std::string> kernelNames;
  std::map<std::string, std::unique_ptr<Kernel>> kernels;
};

} // namespace emulator
} // namespace jeet

#endif // JEET_LIB_EMULATOR_MODULE_H
