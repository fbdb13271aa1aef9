//===- Artifact.cpp - Load and run graphs compiled ahead of time ----------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Runtime/Artifact.h"

#include "jeet/Runtime/CudaDevice.h"
#include "jeet/Runtime/Device.h"
#include "jeet/Runtime/HostABI.h"
#include "jeet/Runtime/OpenMP.h"

#include <dlfcn.h>
#include <elf.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

using namespace jeet::runtime;

//===----------------------------------------------------------------------===//
// TensorType and ArtifactSignature
//===----------------------------------------------------------------------===//

static std::string joinTypes(const std::vector<TensorType> &types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i)
    s += (i ? "," : "") + types[i].str();
  return s;
}

std::string ArtifactSignature::str() const {
  std::string s = "v" + std::to_string(version) + " entry=" + entry +
                  " device=" + device + " inputs=" + joinTypes(inputs) +
                  " outputs=" + joinTypes(outputs) +
                  " kernels=" + std::to_string(kernels) +
                  " arena=" + std::to_string(arenaBytes);
  if (!chip.empty())
    s += " chip=" + chip;
  if (ptxVersion)
    s += " ptx=" + std::to_string(ptxVersion);
  if (!format.empty())
    s += " format=" + format;
  return s;
}

static StatusOr<std::vector<TensorType>> parseTypes(const std::string &list) {
  std::vector<TensorType> types;
  if (list.empty())
    return types;
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    std::string item = list.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    StatusOr<TensorType> type = TensorType::parse(item);
    if (!type.ok())
      return type.status();
    types.push_back(std::move(*type));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return types;
}

StatusOr<ArtifactSignature> ArtifactSignature::parse(const std::string &text) {
  std::istringstream stream(text);
  std::string word;
  ArtifactSignature sig;
  if (!(stream >> word) || word.size() < 2 || word[0] != 'v')
    return invalidArgument("bad artifact signature '" + text +
                           "': it must start with a version (v1)");
  char *end = nullptr;
  long version = std::strtol(word.c_str() + 1, &end, 10);
  if (*end != '\0' || version < 1)
    return invalidArgument("bad artifact signature '" + text +
                           "': bad version '" + word + "'");
  sig.version = static_cast<int>(version);
  if (sig.version != kArtifactVersion)
    return invalidArgument("artifact ABI version " + std::to_string(version) +
                           ", this runtime loads version " +
                           std::to_string(kArtifactVersion));
  bool haveEntry = false, haveDevice = false, haveInputs = false,
       haveOutputs = false;
  while (stream >> word) {
    size_t eq = word.find('=');
    if (eq == std::string::npos)
      return invalidArgument("bad artifact signature '" + text + "': field '" +
                             word + "' is not key=value");
    std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "entry") {
      sig.entry = value;
      haveEntry = true;
    } else if (key == "device") {
      if (value != "cpu" && value != "gpu")
        return invalidArgument("bad artifact signature '" + text +
                               "': unknown device '" + value + "'");
      sig.device = value;
      haveDevice = true;
    } else if (key == "inputs" || key == "outputs") {
      StatusOr<std::vector<TensorType>> types = parseTypes(value);
      if (!types.ok())
        return types.status().withContext("bad artifact signature '" + text +
                                          "': " + key);
      (key == "inputs" ? sig.inputs : sig.outputs) = std::move(*types);
      (key == "inputs" ? haveInputs : haveOutputs) = true;
    } else if (key == "kernels") {
      long long kernels = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || kernels < 0)
        return invalidArgument("bad artifact signature '" + text +
                               "': bad kernel count '" + value + "'");
      sig.kernels = kernels;
    } else if (key == "arena") {
      unsigned long long bytes = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || value[0] == '-')
        return invalidArgument("bad artifact signature '" + text +
                               "': bad arena size '" + value + "'");
      sig.arenaBytes = bytes;
    } else if (key == "chip") {
      if (value.size() < 4 || value.compare(0, 3, "sm_") != 0 ||
          value.find_first_not_of("0123456789", 3) != std::string::npos)
        return invalidArgument("bad artifact signature '" + text +
                               "': bad chip '" + value + "'");
      sig.chip = value;
    } else if (key == "ptx") {
      long ptx = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || ptx < 0)
        return invalidArgument("bad artifact signature '" + text +
                               "': bad PTX version '" + value + "'");
      sig.ptxVersion = static_cast<int>(ptx);
    } else if (key == "format") {
      sig.format = value;
    }
  }
  if (!haveEntry || !haveDevice || !haveInputs || !haveOutputs)
    return invalidArgument("bad artifact signature '" + text +
                           "': it needs entry=, device=, inputs= and "
                           "outputs=");
  return sig;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {
/// dlopen/dlclose with the error text.
struct Library {
  void *handle = nullptr;
  ~Library() {
    if (handle)
      dlclose(handle);
  }
  void *release() {
    void *h = handle;
    handle = nullptr;
    return h;
  }
};

/// How many Artifacts use each dlopen handle.
std::mutex &loadedMutex() {
  static std::mutex *mutex = new std::mutex();
  return *mutex;
}
std::map<void *, int> &loadedCount() {
  static auto *count = new std::map<void *, int>();
  return *count;
}

std::string dlerrorText() {
  const char *error = dlerror();
  return error ? error : "unknown dlopen error";
}

/// Checks that `path` is a complete ELF shared object for this machine
/// before dlopen sees it: dlopen maps a truncated file and crashes (SIGBUS)
/// on the first access past its end. Reads the headers only, and the
/// file's size: an artifact with its weights inside can be tens of
/// megabytes (reading all of efficientnet_b0's 21 MB a byte at a time, as
/// this check did, took ~130 ms of each load).
Status checkElf(const std::string &path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file)
    return invalidArgument(path + ": cannot load: " + std::strerror(errno));
  auto bad = [&](const std::string &why) {
    return invalidArgument(path + ": cannot load: " + why);
  };
  std::streamoff end = file.tellg();
  if (end < 0)
    return bad("cannot read its size");
  uint64_t size = static_cast<uint64_t>(end);
  // `count` bytes at `offset`, which the caller has checked lie in the file.
  auto readAt = [&](uint64_t offset, void *out, size_t count) {
    file.seekg(static_cast<std::streamoff>(offset));
    file.read(static_cast<char *>(out), static_cast<std::streamsize>(count));
    return static_cast<bool>(file);
  };
  Elf64_Ehdr header;
  if (size < sizeof(header) || !readAt(0, &header, sizeof(header)) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return bad("not a shared object (no ELF header)");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || sizeof(void *) != 8)
    return bad("not a 64-bit ELF file");
  if (header.e_type != ET_DYN)
    return bad("an ELF file, but not a shared object");
  auto fits = [&](uint64_t offset, uint64_t count, uint64_t entry) {
    return offset <= size && count * entry <= size - offset;
  };
  auto truncated = [&](uint64_t needed) {
    return bad("truncated: it needs " + std::to_string(needed) +
               " bytes, the file has " + std::to_string(size));
  };
  if (!fits(header.e_phoff, header.e_phnum, header.e_phentsize) ||
      header.e_phentsize < sizeof(Elf64_Phdr))
    return truncated(header.e_phoff +
                     uint64_t(header.e_phnum) * header.e_phentsize);
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    if (!readAt(header.e_phoff + uint64_t(i) * header.e_phentsize, &segment,
                sizeof(segment)))
      return bad("cannot read its program headers");
    if (segment.p_type == PT_LOAD &&
        !fits(segment.p_offset, 1, segment.p_filesz))
      return truncated(segment.p_offset + segment.p_filesz);
  }
  if (header.e_shoff &&
      !fits(header.e_shoff, header.e_shnum, header.e_shentsize))
    return truncated(header.e_shoff +
                     uint64_t(header.e_shnum) * header.e_shentsize);
  return Status();
}

/// Opens the artifact and reads its signature.
Status openArtifact(const std::string &path, Library &library,
                    ArtifactSignature &signature) {
  JEET_RETURN_IF_ERROR(checkElf(path));
  // A parallel artifact runs libomp, which must not meet a stale record.
  removeStaleOpenMPRecords();
  dlerror();
  // RTLD_NOW: a symbol the runtime does not provide fails here, with its
  // name, rather than at the first call. RTLD_LOCAL: two artifacts may be
  // loaded at once.
  library.handle =
      dlopen(path.find('/') == std::string::npos ? ("./" + path).c_str()
                                                 : path.c_str(),
             RTLD_NOW | RTLD_LOCAL);
  if (!library.handle)
    return invalidArgument(path + ": cannot load: " + dlerrorText());
  auto *text = static_cast<const char *>(
      dlsym(library.handle, "jeet_artifact_signature"));
  if (!text)
    return invalidArgument(path + ": not a Jeet artifact (no "
                                  "jeet_artifact_signature symbol)");
  StatusOr<ArtifactSignature> parsed = ArtifactSignature::parse(text);
  if (!parsed.ok())
    return parsed.status().withContext(path);
  signature = std::move(*parsed);
  return Status();
}
} // namespace

StatusOr<ArtifactSignature> Artifact::readSignature(const std::string &path) {
  Library library;
  ArtifactSignature signature;
  JEET_RETURN_IF_ERROR(openArtifact(path, library, signature));
  return signature;
}

StatusOr<std::unique_ptr<Artifact>>
Artifact::load(const std::string &path, int cudaOrdinal, bool cudaGraphs) {
  Library library;
  std::unique_ptr<Artifact> artifact(new Artifact());
  artifact->path_ = path;
  JEET_RETURN_IF_ERROR(openArtifact(path, library, artifact->signature_));
  const ArtifactSignature &sig = artifact->signature_;

  auto run = reinterpret_cast<void (*)(void **)>(
      dlsym(library.handle, "jeet_artifact_run"));
  auto init =
      reinterpret_cast<void (*)()>(dlsym(library.handle, "jeet_artifact_init"));
  auto fini =
      reinterpret_cast<void (*)()>(dlsym(library.handle, "jeet_artifact_fini"));
  if (!run || !init || !fini)
    return invalidArgument(path + ": broken Jeet artifact (missing " +
                           (!run    ? "jeet_artifact_run"
                            : !init ? "jeet_artifact_init"
                                    : "jeet_artifact_fini") +
                           ")");

  if (sig.device == "gpu") {
    StatusOr<CudaDevice *> cuda = getCudaDevice(cudaOrdinal);
    if (!cuda.ok())
      return deviceUnavailable(path +
                               ": a GPU artifact, but the GPU is "
                               "unavailable: " +
                               cuda.status().message());
    CudaDevice &gpu = **cuda;
    if (!sig.chip.empty()) {
      int needed = std::atoi(sig.chip.c_str() + 3);
      if (gpu.computeCapability() < needed)
        return deviceUnavailable(
            path + ": compiled for " + sig.chip + ", but " + gpu.name() + " (" +
            gpu.description() + ") has compute capability " +
            std::to_string(gpu.computeCapability() / 10) + "." +
            std::to_string(gpu.computeCapability() % 10) +
            " (compile it again with jeet-compile --gpu-chip=sm_" +
            std::to_string(gpu.computeCapability()) + ")");
    }
    if (sig.format == "isa" && sig.ptxVersion) {
      int needed = minDriverVersionForPtx(sig.ptxVersion);
      if (needed > 0 && gpu.driverVersion() < needed)
        return deviceUnavailable(
            path + ": its PTX (ISA " + std::to_string(sig.ptxVersion / 10) +
            "." + std::to_string(sig.ptxVersion % 10) + ") needs driver " +
            formatDriverVersion(needed) + " or newer, " + gpu.name() +
            " has driver " + formatDriverVersion(gpu.driverVersion()) +
            " (update the NVIDIA driver, or compile with "
            "--gpu-format=bin)");
    }
    JEET_RETURN_IF_ERROR(gpu.activate());
    artifact->device_ = &gpu;
  } else {
    artifact->device_ = &getHostDevice();
  }

  // Module loads (GPU) happen here, on the chosen device.
  // dlopen of a loaded file returns the same handle: the module's globals
  // (its loaded GPU module) are shared, so init runs on the first load only
  // and fini on the last unload.
  std::lock_guard<std::mutex> lock(loadedMutex());
  int &users = loadedCount()[library.handle];
  if (users == 0) {
    Device *previous = &currentDevice();
    setCurrentDevice(artifact->device_);
    takeLastError().ignore();
    init();
    Status status = takeLastError();
    setCurrentDevice(previous == &getHostDevice() ? nullptr : previous);
    if (!status.ok()) {
      loadedCount().erase(library.handle);
      fini();
      takeLastError().ignore();
      return status.withContext(path + ": initialisation failed");
    }
  }
  ++users;

  EntryInfo info;
  info.label = EntryInfo::makeLabel(sig.entry, sig.inputs, sig.outputs);
  info.inputs = sig.inputs;
  info.outputs = sig.outputs;
  info.arenaBytes = sig.arenaBytes;
  info.takesStream = sig.device == "gpu";
  info.cudaGraphs = cudaGraphs;
  artifact->entry_ =
      std::make_unique<CompiledEntry>(std::move(info), run, *artifact->device_);
  artifact->fini_ = fini;
  artifact->handle_ = library.release();
  return artifact;
}

Artifact::~Artifact() {
  if (!handle_)
    return;
  std::lock_guard<std::mutex> lock(loadedMutex());
  auto it = loadedCount().find(handle_);
  if (it != loadedCount().end() && --it->second == 0) {
    loadedCount().erase(it);
    Device *previous = &currentDevice();
    setCurrentDevice(device_);
    fini_();
    takeLastError().ignore();
    setCurrentDevice(previous == &getHostDevice() ? nullptr : previous);
  }
  dlclose(handle_);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

static Status checkTensors(const std::vector<Tensor> &tensors,
                           const std::vector<TensorType> &types,
                           const std::string &entry, const char *what) {
  if (tensors.size() != types.size())
    return invalidArgument("'" + entry + "' takes " +
                           std::to_string(types.size()) + " " + what +
                           "s, given " + std::to_string(tensors.size()));
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].defined())
      return invalidArgument(std::string(what) + " #" + std::to_string(i) +
                             " of '" + entry + "' is undefined");
    if (tensors[i].shape() != types[i].shape ||
        tensors[i].dtype() != types[i].dtype)
      return invalidArgument(std::string(what) + " #" + std::to_string(i) +
                             " of '" + entry + "' expects " + types[i].str() +
                             ", given " + tensors[i].typeString());
  }
  return Status();
}

Status Artifact::checkInputs(const std::vector<Tensor> &inputs) const {
  return checkTensors(inputs, signature_.inputs, signature_.entry, "argument");
}

Status Artifact::run(const std::vector<Tensor> &inputs,
                     const std::vector<Tensor> &outputs) const {
  ExecutionOptions options;
  options.wait = true;
  return run(inputs, outputs, options);
}

Status Artifact::run(const std::vector<Tensor> &inputs,
                     const std::vector<Tensor> &outputs,
                     const ExecutionOptions &options) const {
  JEET_RETURN_IF_ERROR(checkInputs(inputs));
  JEET_RETURN_IF_ERROR(
      checkTensors(outputs, signature_.outputs, signature_.entry, "result"));
  return entry_->run(inputs, outputs, options);
}

StatusOr<std::vector<Tensor>> Artifact::allocateOutputs() const {
  std::vector<Tensor> outputs;
  for (const TensorType &type : signature_.outputs) {
    StatusOr<Tensor> t = Tensor::empty(*device_, type.shape, type.dtype);
    if (!t.ok())
      return t.status();
    outputs.push_back(std::move(*t));
  }
  return outputs;
}

StatusOr<std::vector<Tensor>>
Artifact::runOnHost(const std::vector<Tensor> &inputs) {
  JEET_RETURN_IF_ERROR(checkInputs(inputs));
  std::vector<Tensor> onDevice;
  for (const Tensor &t : inputs) {
    if (t.device() == device_) {
      onDevice.push_back(t);
      continue;
    }
    StatusOr<Tensor> copy = t.to(*device_);
    if (!copy.ok())
      return copy.status();
    onDevice.push_back(std::move(*copy));
  }
  StatusOr<std::vector<Tensor>> outputs = allocateOutputs();
  if (!outputs.ok())
    return outputs.status();
  JEET_RETURN_IF_ERROR(run(onDevice, *outputs));
  if (device_->kind() == DeviceKind::Host)
    return outputs;
  std::vector<Tensor> host;
  for (const Tensor &t : *outputs) {
    StatusOr<Tensor> copy = t.to(getHostDevice());
    if (!copy.ok())
      return copy.status();
    host.push_back(std::move(*copy));
  }
  return host;
}
