//===- SharedObjectLinker.cpp - Link a host object into a .so -------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// lld's ELF driver, used as a library: it reads its inputs and writes its
// output through files, so the object and the shared object pass through
// two temporary files that are removed afterwards.
//
//===----------------------------------------------------------------------===//

#include "SharedObjectLinker.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace llvm;

/// A temporary file that is removed when it goes out of scope.
namespace {
struct TemporaryFile {
  SmallString<128> path;
  FileRemover remover;
};
} // namespace

static Error createTemporary(StringRef suffix, TemporaryFile &file) {
  if (std::error_code error =
          sys::fs::createTemporaryFile("jeet-emulator", suffix, file.path))
    return createStringError(
        "cannot create a temporary ." + suffix +
        " file for the emulator's kernels: " + error.message());
  file.remover.setFile(file.path);
  return Error::success();
}

Expected<SmallVector<char, 0>> jeet::emu::linkSharedObject(StringRef object) {
  TemporaryFile input, output;
  if (Error error = createTemporary("o", input))
    return std::move(error);
  if (Error error = createTemporary("so", output))
    return std::move(error);
  {
    std::error_code error;
    raw_fd_ostream os(input.path, error);
    if (error)
      return createStringError("cannot write '" + input.path +
                               "': " + error.message());
    os << object;
  }

  // lld keeps its state in globals for the duration of a link, and a link
  // that crashed may leave them unusable.
  static std::mutex mutex;
  static bool usable = true;
  std::lock_guard<std::mutex> lock(mutex);
  if (!usable)
    return createStringError("lld cannot link again in this process after "
                             "an earlier link failed fatally");
  const char *args[] = {"ld.lld", "-shared", "-o", output.path.c_str(),
                        input.path.c_str()};
  std::string log;
  raw_string_ostream logStream(log);
  lld::Result result =
      lld::lldMain(args, logStream, logStream, {{lld::Gnu, &lld::elf::link}});
  usable = result.canRunAgain;
  if (result.retCode != 0)
    return createStringError("linking the kernels into a shared object "
                             "with lld failed: " +
                             log);

  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!buffer)
    return createStringError("cannot read the linked kernels '" + output.path +
                             "': " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  return SmallVector<char, 0>(bytes.begin(), bytes.end());
}
