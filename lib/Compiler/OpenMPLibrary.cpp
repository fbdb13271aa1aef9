//===- OpenMPLibrary.cpp - Where libomp is
//---------------------------------===//
//
// Part of the Jeet project.
//
// The JIT loads libomp for parallel CPU kernels, and parallel artifacts link
// it. An installed Jeet uses the libomp it was built with; the Python wheel,
// which must run where no LLVM is installed, carries a copy next to its
// extension and finds it there, wherever pip put the package.
//
//===----------------------------------------------------------------------===//

#include "CompilerSupport.h"

#include "jeet/Runtime/OpenMP.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>
#include <string>

/// The name the wheel gives its copy (libomp's soname).
static constexpr const char *kBundledOpenMP = "libomp.so.5";

const char *jeet::detail::openmpLibrary() {
  static const std::string path = [] {
    // Every use of libomp by the compiler asks for its path first.
    runtime::removeStaleOpenMPRecords();
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&openmpLibrary), &info) &&
        info.dli_fname) {
      llvm::SmallString<256> bundled(
          llvm::sys::path::parent_path(info.dli_fname));
      llvm::sys::path::append(bundled, kBundledOpenMP);
      if (llvm::sys::path::is_absolute(bundled) &&
          llvm::sys::fs::exists(bundled))
        return std::string(bundled);
    }
    return std::string(JEET_OPENMP_LIBRARY_PATH);
  }();
  return path.c_str();
}
