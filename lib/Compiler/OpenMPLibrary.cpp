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

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

/// The name the wheel gives its copy (libomp's soname).
static constexpr const char *kBundledOpenMP = "libomp.so.5";

/// Where libomp keeps the record of a process's registration, named by
/// __kmp_reg_status_name: a POSIX shared memory object (which Linux keeps in
/// /dev/shm), or a file in /tmp where shared memory cannot be opened.
static constexpr const char *kRegistrationDirectories[] = {"/dev/shm", "/tmp"};
static constexpr const char *kRegistrationPrefix = "__KMP_REGISTERED_LIB_";

/// Removes empty registration records that name this process, which libomp
/// would otherwise crash on.
///
/// When libomp starts (on the first parallel region) it creates a 1 KiB
/// record named after the process's pid and uid; if one of that name already
/// exists it maps it and reads it without checking its size, and a process
/// reading past the end of an empty one dies of SIGBUS. libomp leaves such an
/// empty record behind whenever it cannot give it its size (a process with
/// RLIMIT_FSIZE under 1 KiB, for one), and the next process that gets the
/// same pid, any time later, crashes. A record named after this process that
/// exists before libomp has started here was left by a dead process (pids
/// are unique among live ones); one that libomp made here is never empty
/// once it has started, so only empty ones go.
static void removeStaleOpenMPRegistrations() {
  std::string name = std::string(kRegistrationPrefix) +
                     std::to_string(getpid()) + "_" + std::to_string(getuid());
  for (const char *directory : kRegistrationDirectories) {
    llvm::SmallString<128> path(directory);
    llvm::sys::path::append(path, name);
    struct stat status;
    if (lstat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
        status.st_size == 0)
      ::unlink(path.c_str());
  }
}

const char *jeet::detail::openmpLibrary() {
  static const std::string path = [] {
    // Every use of libomp by Jeet asks for its path first.
    removeStaleOpenMPRegistrations();
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
