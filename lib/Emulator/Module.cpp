//===- Module.cpp - Loading emulator objects ------------------------------===//

#include "Module.h"
#include "Streams.h"

#include "jeet/Emulator/KernelABI.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <set>
#include <sys/mman.h>
#include <unistd.h>

using namespace jeet::emulator;

namespace {
#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
constexpr const char *kHostMachineName = "x86-64";
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
constexpr const char *kHostMachineName = "AArch64";
#else
#error "the Jeet GPU emulator supports x86-64 and AArch64 hosts"
#endif
/// e_machine of cubins (ELF for NVIDIA GPUs).
constexpr uint16_t kMachineCuda = 190;
constexpr unsigned char kFatbinMagic[4] = {0x50, 0xed, 0x55, 0xba};
constexpr unsigned char kFatbinWrapperMagic[4] = {0xb1, 0x43, 0x62, 0x46};
/// How far into a text image to look for PTX directives.
constexpr size_t kPtxScanBytes = 4096;
/// Total parameter bytes a launch may pass (CUDA 12.1+, Volta and later).
constexpr int64_t kMaxParamBytes = 32764;
/// CUjit_option values (cuda.h).
constexpr int kJitInfoLogBuffer = 3;
constexpr int kJitInfoLogBufferSize = 4;

constexpr const char *kWhatToDo =
    "the Jeet GPU emulator runs modules compiled with "
    "jeet-gpu-pipeline{target=emulator} (an ELF shared object for the host, "
    "with the __jeet_emu_* symbols of KernelABI.h)";

struct Registry {
  std::map<Module *, std::unique_ptr<Module>> modules;
  std::set<const void *> kernels;
  bool promoted = false;
};

Registry &registry() {
  static Registry *instance = new Registry();
  return *instance;
}

template <typename T> const T *at(const void *image, size_t offset) {
  return reinterpret_cast<const T *>(static_cast<const char *>(image) + offset);
}

/// Size and kernels of a host ELF shared object, from its headers.
void inspectElf(const void *image, ImageInfo &info) {
  const Elf64_Ehdr &header = *at<Elf64_Ehdr>(image, 0);
  size_t size = sizeof(Elf64_Ehdr);
  size = std::max<size_t>(size, header.e_phoff + size_t(header.e_phnum) *
                                                     header.e_phentsize);
  size = std::max<size_t>(size, header.e_shoff + size_t(header.e_shnum) *
                                                     header.e_shentsize);
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    const Elf64_Phdr &segment =
        *at<Elf64_Phdr>(image, header.e_phoff + size_t(i) * header.e_phentsize);
    size = std::max<size_t>(size, segment.p_offset + segment.p_filesz);
  }
  const Elf64_Shdr *dynsym = nullptr;
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr &section =
        *at<Elf64_Shdr>(image, header.e_shoff + size_t(i) * header.e_shentsize);
    if (section.sh_type != SHT_NOBITS)
      size = std::max<size_t>(size, section.sh_offset + section.sh_size);
    if (section.sh_type == SHT_DYNSYM)
      dynsym = &section;
  }
  info.size = size;
  if (!dynsym || dynsym->sh_link >= header.e_shnum || !dynsym->sh_entsize)
    return;
  const Elf64_Shdr &strtab = *at<Elf64_Shdr>(
      image, header.e_shoff + size_t(dynsym->sh_link) * header.e_shentsize);
  const char *names = at<char>(image, strtab.sh_offset);
  size_t prefix = std::strlen(JEET_EMU_KERNEL_PREFIX);
  for (size_t i = 0; i < dynsym->sh_size / dynsym->sh_entsize; ++i) {
    const Elf64_Sym &symbol =
        *at<Elf64_Sym>(image, dynsym->sh_offset + i * dynsym->sh_entsize);
    if (symbol.st_shndx == SHN_UNDEF || symbol.st_name >= strtab.sh_size)
      continue;
    const char *name = names + symbol.st_name;
    if (std::strncmp(name, JEET_EMU_KERNEL_PREFIX, prefix) == 0)
      info.kernels.emplace_back(name + prefix);
  }
  std::sort(info.kernels.begin(), info.kernels.end());
}

std::string join(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? "none" : text;
}

std::string hexBytes(const void *image, size_t count) {
  std::string text;
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  for (size_t i = 0; i < count; ++i) {
    char hex[4];
    std::snprintf(hex, sizeof(hex), "%02x", bytes[i]);
    text += (i ? " " : "") + std::string(hex);
  }
  return text;
}

/// The emulator's symbols become global, so that objects loaded later
/// resolve their __jeet_emu_* calls against it (the runtime dlopens the
/// driver RTLD_LOCAL).
CUresult promoteSelf() {
  Registry &r = registry();
  if (r.promoted)
    return kSuccess;
  Dl_info self;
  if (!dladdr(reinterpret_cast<void *>(&promoteSelf), &self) || !self.dli_fname)
    return fail(kUnknown, "the emulator could not find its own library");
  if (!dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) {
    const char *error = dlerror();
    return fail(kUnknown, std::string("the emulator could not make its "
                                      "symbols global: ") +
                              (error ? error : "dlopen failed"));
  }
  r.promoted = true;
  return kSuccess;
}

/// An anonymous file holding the object, for dlopen.
int writeImage(const void *image, size_t size, std::string &error) {
  int fd = memfd_create("jeet-emulator-module", MFD_CLOEXEC);
  if (fd < 0) {
    error = std::string("memfd_create failed: ") + std::strerror(errno);
    return -1;
  }
  const char *bytes = static_cast<const char *>(image);
  size_t written = 0;
  while (written < size) {
    ssize_t n = write(fd, bytes + written, size - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = std::string("writing the object failed: ") + std::strerror(errno);
      close(fd);
      return -1;
    }
    written += static_cast<size_t>(n);
  }
  return fd;
}

std::string fdPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

void closeModule(Module &module) {
  if (module.handle)
    dlclose(module.handle);
  if (module.fd < 0)
    return;
  // Should the object stay resident, its path must not be reused: dlopen
  // would answer a later module with this one.
  std::string path = fdPath(module.fd);
  if (void *still = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
    dlclose(still);
    return;
  }
  close(module.fd);
}

CUresult rejectImage(const ImageInfo &info) {
  switch (info.kind) {
  case ImageInfo::Kind::Ptx:
    return fail(kInvalidImage, std::string("this is PTX; ") + kWhatToDo +
                                   ". Run PTX on a GPU driver, or compile "
                                   "with target=emulator");
  case ImageInfo::Kind::Cubin:
    return fail(kNoBinaryForGpu,
                std::string("this is a cubin (ELF for NVIDIA GPUs); ") +
                    kWhatToDo + ". Run it on a GPU driver");
  case ImageInfo::Kind::Fatbin:
    return fail(kNoBinaryForGpu, std::string("this is a fatbin; ") + kWhatToDo +
                                     ". Run it on a GPU driver");
  case ImageInfo::Kind::OtherElf:
  case ImageInfo::Kind::Unknown:
    return fail(kInvalidImage,
                "this is " + info.description + "; " + kWhatToDo);
  case ImageInfo::Kind::HostObject:
    break;
  }
  return kSuccess;
}

void writeInfoLog(unsigned numOptions, const int *options, void **values,
                  const std::string &text) {
  char *buffer = nullptr;
  size_t size = 0;
  for (unsigned i = 0; options && values && i < numOptions; ++i) {
    if (options[i] == kJitInfoLogBuffer)
      buffer = static_cast<char *>(values[i]);
    else if (options[i] == kJitInfoLogBufferSize)
      size = reinterpret_cast<uintptr_t>(values[i]);
  }
  if (buffer && size)
    std::snprintf(buffer, size, "%s", text.c_str());
}

/// dlopens the object and checks its ABI version.
CUresult openObject(const void *image, const ImageInfo &info, Module &module) {
  std::string error;
  module.fd = writeImage(image, info.size, error);
  if (module.fd < 0)
    return fail(kUnknown, "loading an emulator object: " + error);
  dlerror();
  module.handle = dlopen(fdPath(module.fd).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module.handle) {
    const char *text = dlerror();
    return fail(kInvalidImage,
                std::string("dlopen of the emulator object failed: ") +
                    (text ? text : "unknown error"));
  }
  for (auto &entry : registry().modules)
    if (entry.second->handle == module.handle)
      return fail(kUnknown, "dlopen answered a new emulator object with one "
                            "already loaded");
  const auto *version = static_cast<const int32_t *>(
      dlsym(module.handle, JEET_EMU_ABI_VERSION_SYMBOL));
  if (!version)
    return fail(kInvalidImage,
                std::string("this host shared object lacks ") +
                    JEET_EMU_ABI_VERSION_SYMBOL +
                    ", so it was not compiled for the emulator; " + kWhatToDo);
  if (*version != JEET_EMU_ABI_VERSION)
    return fail(kInvalidImage,
                "this emulator object follows kernel ABI version " +
                    std::to_string(*version) + ", this emulator implements " +
                    std::to_string(JEET_EMU_ABI_VERSION) +
                    " (rebuild the object and the emulator from the same "
                    "Jeet)");
  module.kernelNames = info.kernels;
  return kSuccess;
}
} // namespace

ImageInfo jeet::emulator::inspectImage(const void *image) {
  ImageInfo info;
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  if (std::memcmp(bytes, ELFMAG, SELFMAG) == 0) {
    const Elf64_Ehdr &header = *at<Elf64_Ehdr>(image, 0);
    if (bytes[EI_CLASS] == ELFCLASS64 && header.e_machine == kMachineCuda) {
      info.kind = ImageInfo::Kind::Cubin;
      return info;
    }
    if (bytes[EI_CLASS] != ELFCLASS64 || bytes[EI_DATA] != ELFDATA2LSB ||
        header.e_machine != kHostMachine || header.e_type != ET_DYN) {
      info.kind = ImageInfo::Kind::OtherElf;
      info.description = "an ELF object of machine " +
                         std::to_string(header.e_machine) + ", type " +
                         std::to_string(header.e_type) +
                         ", not a 64-bit shared object for this host (" +
                         kHostMachineName + ")";
      return info;
    }
    info.kind = ImageInfo::Kind::HostObject;
    inspectElf(image, info);
    return info;
  }
  if (std::memcmp(bytes, kFatbinMagic, 4) == 0 ||
      std::memcmp(bytes, kFatbinWrapperMagic, 4) == 0) {
    info.kind = ImageInfo::Kind::Fatbin;
    return info;
  }
  const char *text = static_cast<const char *>(image);
  size_t length = strnlen(text, kPtxScanBytes);
  std::string head(text, length);
  if (head.find(".version") != std::string::npos ||
      head.find(".target") != std::string::npos ||
      head.find(".entry") != std::string::npos) {
    info.kind = ImageInfo::Kind::Ptx;
    return info;
  }
  info.description = "not a module image the emulator knows (first bytes: " +
                     hexBytes(image, std::min<size_t>(length + 1, 8)) + ")";
  return info;
}

bool jeet::emulator::isLiveKernel(const void *kernel) {
  return registry().kernels.count(kernel) != 0;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

JEET_EMU_EXPORT CUresult cuModuleLoadDataEx(Module **module, const void *image,
                                            unsigned numOptions, int *options,
                                            void **values) {
  if (!initialized())
    return fail(kNotInitialized);
  if (!module || !image)
    return fail(kInvalidValue, "cuModuleLoadData: no image given");
  ImageInfo info = inspectImage(image);
  if (CUresult result = rejectImage(info))
    return result;
  std::lock_guard<std::mutex> lock(deviceMutex());
  if (CUresult result = promoteSelf())
    return result;
  auto loaded = std::make_unique<Module>();
  if (CUresult result = openObject(image, info, *loaded)) {
    closeModule(*loaded);
    return result;
  }
  writeInfoLog(numOptions, options, values,
               "Jeet GPU emulator: loaded " +
                   std::to_string(info.kernels.size()) +
                   " kernel(s) for the host CPU: " + join(info.kernels));
  Module *raw = loaded.get();
  registry().modules[raw] = std::move(loaded);
  *module = raw;
  return kSuccess;
}

JEET_EMU_EXPORT CUresult cuModuleLoadData(Module **module, const void *image) {
  return cuModuleLoadDataEx(module, image, 0, nullptr, nullptr);
}

JEET_EMU_EXPORT CUresult cuModuleUnload(Module *module) {
  std::lock_guard<std::mutex> lock(deviceMutex());
  Registry &r = registry();
  auto it = r.modules.find(module);
  if (it == r.modules.end())
    return fail(kInvalidHandle, "cuModuleUnload of an unknown module");
  // Queued launches may use its kernels.
  queues().flushAll();
  for (auto &kernel : module->kernels)
    r.kernels.erase(kernel.second.get());
  closeModule(*module);
  r.modules.erase(it);
  return kSuccess;
}

namespace {
template <typename T>
const T *lookup(Module &module, const char *prefix, const std::string &name) {
  return static_cast<const T *>(
      dlsym(module.handle, (std::string(prefix) + name).c_str()));
}

CUresult missingSymbol(const std::string &kernel, const char *prefix) {
  return fail(kInvalidImage, "kernel '" + kernel + "' lacks its symbol " +
                                 prefix + kernel + " (KernelABI.h)");
}
} // namespace

JEET_EMU_EXPORT CUresult cuModuleGetFunction(Kernel **function, Module *module,
                                             const char *name) {
  if (!function || !name)
    return fail(kInvalidValue);
  std::lock_guard<std::mutex> lock(deviceMutex());
  Registry &r = registry();
  if (!r.modules.count(module))
    return fail(kInvalidHandle, "cuModuleGetFunction on an unknown module");
  auto cached = module->kernels.find(name);
  if (cached != module->kernels.end()) {
    *function = cached->second.get();
    return kSuccess;
  }
  auto kernel = std::make_unique<Kernel>();
  kernel->name = name;
  kernel->module = module;
  kernel->entry = reinterpret_cast<void (*)(void **)>(
      dlsym(module->handle, (JEET_EMU_KERNEL_PREFIX + kernel->name).c_str()));
  if (!kernel->entry)
    return fail(kNotFound,
                "the emulator object has no kernel '" + kernel->name +
                    "' (it defines: " + join(module->kernelNames) + ")");
  const auto *numParams =
      lookup<int64_t>(*module, JEET_EMU_NUM_PARAMS_PREFIX, kernel->name);
  if (!numParams)
    return missingSymbol(kernel->name, JEET_EMU_NUM_PARAMS_PREFIX);
  const auto *sizes =
      lookup<int64_t>(*module, JEET_EMU_PARAM_SIZES_PREFIX, kernel->name);
  if (*numParams > 0 && !sizes)
    return missingSymbol(kernel->name, JEET_EMU_PARAM_SIZES_PREFIX);
  const auto *shared =
      lookup<int64_t>(*module, JEET_EMU_STATIC_SHARED_PREFIX, kernel->name);
  if (!shared)
    return missingSymbol(kernel->name, JEET_EMU_STATIC_SHARED_PREFIX);
  int64_t total = 0;
  for (int64_t i = 0; i < *numParams; ++i) {
    if (sizes[i] <= 0 || sizes[i] > kMaxParamBytes)
      return fail(kInvalidImage, "kernel '" + kernel->name + "': parameter " +
                                     std::to_string(i) + " has size " +
                                     std::to_string(sizes[i]));
    total += sizes[i];
    kernel->paramSizes.push_back(sizes[i]);
  }
  if (*numParams < 0 || total > kMaxParamBytes)
    return fail(kInvalidImage, "kernel '" + kernel->name + "' takes " +
                                   std::to_string(total) +
                                   " bytes of parameters, more than " +
                                   std::to_string(kMaxParamBytes));
  if (*shared < 0)
    return fail(kInvalidImage, "kernel '" + kernel->name +
                                   "' declares negative shared memory");
  kernel->staticSharedBytes = *shared;
  Kernel *raw = kernel.get();
  module->kernels[kernel->name] = std::move(kernel);
  r.kernels.insert(raw);
  *function = raw;
  return kSuccess;
}
