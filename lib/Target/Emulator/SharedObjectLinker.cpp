//===- SharedObjectLinker.cpp - Link a host object into a .so -------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// The link runs a system linker in a child process. lld's library would link
// in-process, but its ELF driver resets every LLVM command-line option of the
// process on each link (it re-parses -mllvm options), which would undo the
// options of the tool or program that compiles.
//
//===----------------------------------------------------------------------===//

#include "SharedObjectLinker.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

/// The longest a link may take.
static constexpr unsigned kLinkTimeoutSeconds = 120;

namespace {
/// A temporary file, removed when it goes out of scope.
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

/// The environment variable that names the linker to use instead of the
/// search below.
static constexpr StringLiteral kLinkerEnvVar = "JEET_EMULATOR_LINKER";

/// The linker of JEET_EMULATOR_LINKER (a path, or a name found on PATH);
/// else LLVM's linker next to the LLVM Jeet was built with, else ld.lld or
/// the system's ld (binutils) on PATH.
static Expected<std::string> findLinker() {
  if (std::optional<std::string> chosen = sys::Process::GetEnv(kLinkerEnvVar);
      chosen && !chosen->empty()) {
    // A path is taken as it is; a bare name is looked up on PATH.
    if (StringRef(*chosen).contains('/')) {
      if (sys::fs::can_execute(*chosen))
        return *chosen;
    } else if (ErrorOr<std::string> found = sys::findProgramByName(*chosen)) {
      return *found;
    }
    return createStringError("cannot link the kernels of the GPU emulation "
                             "target: " +
                             kLinkerEnvVar + "='" + *chosen +
                             "' is not an executable program");
  }
  SmallString<128> bundled(JEET_LLVM_TOOLS_DIR);
  sys::path::append(bundled, "ld.lld");
  if (sys::fs::can_execute(bundled))
    return std::string(bundled);
  for (StringRef name : {"ld.lld", "ld"})
    if (ErrorOr<std::string> found = sys::findProgramByName(name))
      return *found;
  return createStringError(
      "cannot link the kernels of the GPU emulation target into a shared "
      "object: no linker found (looked for ld.lld in " JEET_LLVM_TOOLS_DIR
      " and ld.lld or ld on PATH; install lld or binutils)");
}

Expected<SmallVector<char, 0>> jeet::emu::linkSharedObject(StringRef object) {
  Expected<std::string> linker = findLinker();
  if (!linker)
    return linker.takeError();
  TemporaryFile input, output, log;
  for (auto [suffix, file] :
       {std::pair<StringRef, TemporaryFile *>{"o", &input},
        {"so", &output},
        {"log", &log}})
    if (Error error = createTemporary(suffix, *file))
      return std::move(error);
  {
    std::error_code error;
    raw_fd_ostream os(input.path, error);
    if (error)
      return createStringError("cannot write '" + input.path +
                               "': " + error.message());
    os << object;
  }

  // Undefined symbols (the emulator's __jeet_emu_* functions, libm) stay
  // undefined and resolve when the emulator loads the shared object.
  StringRef args[] = {*linker, "-shared", "-o", output.path, input.path};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log.path),
                                          StringRef(log.path)};
  std::string error;
  bool executionFailed = false;
  int rc = sys::ExecuteAndWait(*linker, args, std::nullopt, redirects,
                               kLinkTimeoutSeconds, /*MemoryLimit=*/0, &error,
                               &executionFailed);
  if (rc != 0 || executionFailed) {
    std::string message = "linking the kernels of the GPU emulation target "
                          "into a shared object with '" +
                          *linker + "' failed";
    if (!error.empty())
      message += ": " + error;
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> text =
            MemoryBuffer::getFile(log.path))
      if (!(*text)->getBuffer().trim().empty())
        message += ":\n" + (*text)->getBuffer().trim().str();
    return createStringError(message);
  }

  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!buffer)
    return createStringError("cannot read the linked kernels '" + output.path +
                             "': " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  return SmallVector<char, 0>(bytes.begin(), bytes.end());
}
