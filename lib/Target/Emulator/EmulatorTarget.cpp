//===- EmulatorTarget.cpp - The GPU emulation target ----------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// #jeet_emu.target turns a gpu.module in the LLVM dialect into a host shared
// object: MLIR's ModuleToObject translates and optimises it (for this CPU,
// with the features the JIT uses), the object is emitted as position-
// independent code, and lld links it (SharedObjectLinker).
//
//===----------------------------------------------------------------------===//

#include "jeet/Target/Emulator/EmulatorTarget.h"

#include "SharedObjectLinker.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Target/LLVM/ModuleToObject.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

using namespace mlir;
using namespace jeet::emu;

#include "jeet/Target/Emulator/EmulatorTargetDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "jeet/Target/Emulator/EmulatorTargetAttrs.cpp.inc"

void JeetEmuDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "jeet/Target/Emulator/EmulatorTargetAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// The host machine
//===----------------------------------------------------------------------===//

namespace {
/// The triple, CPU and features of this machine, as the JIT detects them.
struct HostMachine {
  std::string triple, cpu, features;
};
} // namespace

static FailureOr<HostMachine> detectHostMachine(Operation *module) {
  static std::once_flag initializeOnce;
  std::call_once(initializeOnce, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return module->emitError("cannot detect the host CPU for the emulation "
                             "target: ")
           << llvm::toString(builder.takeError());
  return HostMachine{builder->getTargetTriple().str(), builder->getCPU(),
                     builder->getFeatures().getString()};
}

//===----------------------------------------------------------------------===//
// Serialization
//===----------------------------------------------------------------------===//

namespace {
/// Compiles a gpu.module of LLVM dialect ops for the host: an ELF shared
/// object (`bin`, `fatbin`), host assembly (`isa`) or LLVM bitcode
/// (`offload`).
class HostSerializer : public LLVM::ModuleToObject {
public:
  HostSerializer(Operation &module, const HostMachine &host, int optLevel,
                 const gpu::TargetOptions &options)
      : ModuleToObject(module, host.triple, host.cpu, host.features, optLevel,
                       options.getInitialLlvmIRCallback(),
                       options.getLinkedLlvmIRCallback(),
                       options.getOptimizedLlvmIRCallback(),
                       options.getISACallback()),
        host(host), format(options.getCompilationTarget()) {}

protected:
  FailureOr<SmallVector<char, 0>>
  moduleToObject(llvm::Module &llvmModule) override;

private:
  /// A target machine for code that a shared object holds (PIC).
  FailureOr<std::unique_ptr<llvm::TargetMachine>> createPicTargetMachine();

  const HostMachine &host;
  gpu::CompilationTarget format;
};
} // namespace

FailureOr<std::unique_ptr<llvm::TargetMachine>>
HostSerializer::createPicTargetMachine() {
  std::string error;
  llvm::Triple triple(host.triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return getOperation().emitError("no LLVM target for the host '")
           << host.triple << "': " << error;
  std::optional<llvm::CodeGenOptLevel> level =
      llvm::CodeGenOpt::getLevel(optLevel);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, host.cpu, host.features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, level.value_or(llvm::CodeGenOptLevel::Default)));
  if (!machine)
    return getOperation().emitError("cannot create a target machine for ")
           << host.triple << " (" << host.cpu << ")";
  return machine;
}

FailureOr<SmallVector<char, 0>>
HostSerializer::moduleToObject(llvm::Module &llvmModule) {
  if (format == gpu::CompilationTarget::Offload)
    return ModuleToObject::moduleToObject(llvmModule);
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createPicTargetMachine();
  if (failed(machine))
    return failure();

  if (format == gpu::CompilationTarget::Assembly) {
    FailureOr<SmallString<0>> assembly = translateModuleToISA(
        llvmModule, **machine, [&] { return getOperation().emitError(); });
    if (failed(assembly))
      return failure();
    if (isaCallback)
      isaCallback(*assembly);
    return SmallVector<char, 0>(assembly->begin(), assembly->end());
  }

  SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile))
      return getOperation().emitError(
          "the host target cannot emit object files");
    codegen.run(llvmModule);
  }
  llvm::Expected<SmallVector<char, 0>> library =
      linkSharedObject(StringRef(object.data(), object.size()));
  if (!library)
    return getOperation().emitError(llvm::toString(library.takeError()));
  return std::move(*library);
}

std::optional<SmallVector<char, 0>>
TargetAttr::serializeToObject(Operation *module,
                              const gpu::TargetOptions &options) const {
  if (!isa<gpu::GPUModuleOp>(module)) {
    module->emitError("#jeet_emu.target serializes gpu.module ops only");
    return std::nullopt;
  }
  FailureOr<HostMachine> host = detectHostMachine(module);
  if (failed(host))
    return std::nullopt;
  HostSerializer serializer(*module, *host, getO(), options);
  return serializer.run();
}

Attribute TargetAttr::createObject(Operation *module,
                                   const SmallVector<char, 0> &object,
                                   const gpu::TargetOptions &options) const {
  // A shared object whatever binary format was asked for: there is no
  // fatbin on the host.
  gpu::CompilationTarget format = options.getCompilationTarget();
  if (format == gpu::CompilationTarget::Fatbin)
    format = gpu::CompilationTarget::Binary;
  Builder builder(getContext());
  return gpu::ObjectAttr::get(
      getContext(), *this, format,
      builder.getStringAttr(StringRef(object.data(), object.size())),
      /*properties=*/nullptr, /*kernels=*/nullptr);
}
