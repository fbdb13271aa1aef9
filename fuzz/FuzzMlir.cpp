//===- FuzzMlir.cpp - Shared part of the MLIR fuzz targets ----------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "FuzzMlir.h"

#include "jeet/GraphSource.h"
#include "jeet/InitAllJeet.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {

const DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    jeet::registerAllJeetDialects(*r);
    return r;
  }();
  return *registry;
}

bool withinCap(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return true;
  if (shaped.getRank() > jeet::fuzz::kMaxFuzzRank)
    return false;
  int64_t count = 1;
  for (int64_t dim : shaped.getShape()) {
    if (ShapedType::isDynamic(dim))
      continue;
    if (dim < 0 || (dim && count > jeet::fuzz::kMaxFuzzElements / dim))
      return false;
    count *= dim;
  }
  return count <= jeet::fuzz::kMaxFuzzElements;
}

/// True when every tensor of the graph is within the caps.
bool isSmallGraph(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    for (Type type : op->getOperandTypes())
      if (!withinCap(type))
        return WalkResult::interrupt();
    for (Type type : op->getResultTypes())
      if (!withinCap(type))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!withinCap(arg.getType()))
            return WalkResult::interrupt();
    for (NamedAttribute attr : op->getAttrs()) {
      if (auto typed = dyn_cast<TypedAttr>(attr.getValue()))
        if (!withinCap(typed.getType()))
          return WalkResult::interrupt();
      if (auto type = dyn_cast<TypeAttr>(attr.getValue()))
        if (auto fn = dyn_cast<FunctionType>(type.getValue()))
          for (Type t :
               llvm::concat<const Type>(fn.getInputs(), fn.getResults()))
            if (!withinCap(t))
              return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

} // namespace

namespace {

/// The context the inputs are parsed in, with its diagnostic handler and the
/// target's compiler, replaced every kInputsPerContext inputs.
struct FuzzContext {
  explicit FuzzContext(jeet::fuzz::GraphCompilerFactory makeCompiler)
      : context(getRegistry(), MLIRContext::Threading::DISABLED),
        discard(&context, [](Diagnostic &) { return success(); }),
        compiler(makeCompiler(context)) {}

  MLIRContext context;
  ScopedDiagnosticHandler discard;
  /// Declared after the context: destroyed before it.
  std::unique_ptr<jeet::fuzz::GraphCompiler> compiler;
  unsigned inputs = 0;
};

FuzzContext &getContext(jeet::fuzz::GraphCompilerFactory makeCompiler) {
  static std::unique_ptr<FuzzContext> current;
  if (!current || current->inputs == jeet::fuzz::kInputsPerContext) {
    current.reset();
    current = std::make_unique<FuzzContext>(makeCompiler);
  }
  ++current->inputs;
  return *current;
}

} // namespace

void jeet::fuzz::runMlirInput(const uint8_t *data, size_t size,
                              GraphCompilerFactory makeCompiler) {
  if (size > kMaxFuzzInputBytes)
    return;
  FuzzContext &fuzzContext = getContext(makeCompiler);
  llvm::SourceMgr sourceMgr;
  // The parser needs a null-terminated buffer: copy.
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz-input.mlir"),
      llvm::SMLoc());
  // As the compiler's entry points parse a graph: only graph ops reach a
  // parser, and the graph arrives verified in the target's context.
  OwningOpRef<ModuleOp> module =
      jeet::parseGraphSource(sourceMgr, fuzzContext.context);
  if (!module)
    return;
  if (!isSmallGraph(*module))
    return;
  fuzzContext.compiler->compile(*module);
}
