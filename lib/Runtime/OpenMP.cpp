//===- OpenMP.cpp - Living with libomp's process records ------------------===//
//
// Part of the Jeet project.
//
// When libomp starts in a process (on its first parallel region) it creates a
// 1 KiB record of its registration named after the process's pid and uid: a
// POSIX shared memory object, which Linux keeps in /dev/shm, or a file in
// /tmp where shared memory cannot be opened. If one of that name already
// exists it maps it and reads it without checking its size, and reading past
// the end of an empty one kills the process with SIGBUS. libomp leaves such
// an empty record behind whenever it cannot give it its size (a process with
// RLIMIT_FSIZE under 1 KiB, for one), and the next process that gets the
// same pid, any time later, crashes in its first parallel region.
//
// A record named after this process that exists before libomp has started
// here was left by a dead process (pids are unique among live ones); the one
// libomp makes here is never empty once it has started. So empty ones go.
//
//===----------------------------------------------------------------------===//

#include "jeet/Runtime/OpenMP.h"

#include <mutex>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

/// The folders of libomp's records (see above), and the start of their names
/// (libomp's __kmp_reg_status_name).
static constexpr const char *kRecordDirectories[] = {"/dev/shm/", "/tmp/"};
static constexpr const char *kRecordPrefix = "__KMP_REGISTERED_LIB_";

void jeet::runtime::removeStaleOpenMPRecords() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::string name = std::string(kRecordPrefix) + std::to_string(getpid()) +
                       "_" + std::to_string(getuid());
    for (const char *directory : kRecordDirectories) {
      std::string path = directory + name;
      struct stat status;
      if (lstat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
          status.st_size == 0)
        unlink(path.c_str());
    }
  });
}
