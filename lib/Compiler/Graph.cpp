//===- Graph.cpp - Build jeet graphs op by op -----------------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Graph.h"

#include "CompilerSupport.h"

#include "jeet/Dialect/Jeet/IR/JeetDialect.h"
#include "jeet/Dialect/Jeet/IR/JeetOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace jeet;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

GraphAttr GraphAttr::i64Array(std::string name, std::vector<int64_t> values) {
  GraphAttr attr;
  attr.name = std::move(name);
  attr.kind = Kind::I64Array;
  attr.ints = std::move(values);
  return attr;
}

GraphAttr GraphAttr::boolean(std::string name, bool value) {
  GraphAttr attr;
  attr.name = std::move(name);
  attr.kind = Kind::Bool;
  attr.boolValue = value;
  return attr;
}

GraphAttr GraphAttr::i64(std::string name, int64_t value) {
  GraphAttr attr;
  attr.name = std::move(name);
  attr.kind = Kind::I64;
  attr.intValue = value;
  return attr;
}

llvm::Expected<std::string> jeet::canonicalDType(llvm::StringRef dtype) {
  if (dtype == "f32" || dtype == "float32")
    return std::string("f32");
  if (dtype == "f16" || dtype == "float16")
    return std::string("f16");
  if (dtype == "bf16" || dtype == "bfloat16")
    return std::string("bf16");
  if (dtype == "i32" || dtype == "int32")
    return std::string("i32");
  return llvm::createStringError(
      "unknown dtype '" + dtype.str() +
      "' (expected one of float32/f32, float16/f16, bfloat16/bf16, "
      "int32/i32)");
}

static Type elementType(MLIRContext *context, llvm::StringRef dtype) {
  if (dtype == "f32")
    return Float32Type::get(context);
  if (dtype == "f16")
    return Float16Type::get(context);
  if (dtype == "bf16")
    return BFloat16Type::get(context);
  if (dtype == "i32")
    return IntegerType::get(context, 32);
  return nullptr;
}

static std::string dtypeOf(Type type) {
  if (std::optional<std::string> name = jeet::detail::dtypeName(type))
    return *name;
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

static std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(
                        shape, [](int64_t d) { return std::to_string(d); }),
                    ", ") +
         "]";
}

/// The context all graphs are built in: the jeet and func dialects only.
/// Graphs are printed to text and parsed again by the compiler's own context,
/// so nothing built here is shared with it.
static MLIRContext &graphContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registry.insert<JeetDialect, func::FuncDialect>();
    auto *context = new MLIRContext(registry);
    context->loadAllAvailableDialects();
    return context;
  }();
  return *context;
}

namespace {
/// Collects the diagnostics emitted while it lives, as text (errors and their
/// notes), instead of printing them.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          append(diag);
          return success();
        }) {}

  std::string take(llvm::StringRef fallback) {
    return text.empty() ? fallback.str() : text;
  }

private:
  void append(Diagnostic &diag) {
    if (!text.empty())
      text += "\n";
    text += diag.str();
    for (Diagnostic &note : diag.getNotes())
      text += "\nnote: " + note.str();
  }
  std::string text;
  ScopedDiagnosticHandler handler;
};
} // namespace

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

struct Graph::Impl {
  Impl() : context(graphContext()), builder(&context) {
    Location loc = UnknownLoc::get(&context);
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    func = func::FuncOp::create(builder, loc, "main",
                                builder.getFunctionType({}, {}));
    body = func.addEntryBlock();
    builder.setInsertionPointToEnd(body);
  }

  llvm::Expected<Value> lookup(ValueId id) const {
    if (id < 0 || id >= static_cast<ValueId>(values.size()))
      return llvm::createStringError("no value with id " + std::to_string(id) +
                                     " in the graph (it has " +
                                     std::to_string(values.size()) + ")");
    return values[id];
  }

  llvm::Expected<RankedTensorType> tensorType(llvm::ArrayRef<int64_t> shape,
                                              llvm::StringRef dtype) {
    auto name = canonicalDType(dtype);
    if (!name)
      return name.takeError();
    for (int64_t d : shape)
      if (d < 0)
        return llvm::createStringError("invalid shape " + formatShape(shape) +
                                       ": dimensions must be >= 0");
    return RankedTensorType::get(shape, elementType(&context, *name));
  }

  ValueId add(Value value) {
    values.push_back(value);
    return static_cast<ValueId>(values.size()) - 1;
  }

  llvm::Expected<ValueId> build(llvm::StringRef opName,
                                llvm::ArrayRef<Value> operands,
                                llvm::ArrayRef<NamedAttribute> attrs,
                                Type result);

  MLIRContext &context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  Block *body;
  std::vector<Value> values;
  std::vector<ValueId> outputs;
};

/// The attributes each op cannot do without (checked before type inference
/// reads them).
static llvm::ArrayRef<llvm::StringLiteral>
requiredAttributes(llvm::StringRef opName) {
  static const llvm::StringLiteral permutation[] = {"permutation"};
  static const llvm::StringLiteral axes[] = {"axes"};
  static const llvm::StringLiteral axis[] = {"axis"};
  static const llvm::StringLiteral value[] = {"value"};
  if (opName == "jeet.transpose")
    return permutation;
  if (opName == "jeet.reduce_sum" || opName == "jeet.reduce_max" ||
      opName == "jeet.reduce_mean")
    return axes;
  if (opName == "jeet.softmax")
    return axis;
  if (opName == "jeet.constant")
    return value;
  return {};
}

llvm::Expected<Graph::ValueId>
Graph::Impl::build(llvm::StringRef opName, llvm::ArrayRef<Value> operands,
                   llvm::ArrayRef<NamedAttribute> attrs, Type result) {
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(opName, &context);
  if (!name || name->getDialectNamespace() != "jeet" ||
      opName == "jeet.fusion" || opName == "jeet.yield")
    return llvm::createStringError("unknown jeet op '" + opName.str() + "'");

  DiagnosticCapture diagnostics(context);
  Location loc = UnknownLoc::get(&context);

  // Attribute kinds and presence, before anything reads them.
  NamedAttrList attrList(attrs);
  for (llvm::StringLiteral required : requiredAttributes(opName))
    if (!attrList.get(required))
      return llvm::createStringError("'" + opName.str() +
                                     "' needs the attribute '" +
                                     required.str() + "'");
  if (failed(name->verifyInherentAttrs(attrList, [&] {
        return emitError(loc) << "'" << opName << "' op ";
      })))
    return llvm::createStringError(
        diagnostics.take("invalid attributes for '" + opName.str() + "'"));

  // Operand count, before type inference reads the operands.
  std::optional<unsigned> numOperands;
  if (name->hasTrait<OpTrait::ZeroOperands>())
    numOperands = 0;
  else if (name->hasTrait<OpTrait::OneOperand>())
    numOperands = 1;
  else if (name->hasTrait<OpTrait::NOperands<2>::Impl>())
    numOperands = 2;
  if (numOperands && *numOperands != operands.size())
    return llvm::createStringError("'" + opName.str() + "' takes " +
                                   std::to_string(*numOperands) + " operand" +
                                   (*numOperands == 1 ? "" : "s") + ", given " +
                                   std::to_string(operands.size()));

  // Created with a placeholder result type when the op infers its own.
  auto inferrable = name->hasInterface<InferTypeOpInterface>();
  if (!result && !inferrable)
    return llvm::createStringError("'" + opName.str() +
                                   "' needs its result type");
  Type placeholder = result;
  if (!placeholder)
    placeholder = operands.empty()
                      ? RankedTensorType::get({}, builder.getF32Type())
                      : operands.front().getType();

  OperationState state(loc, *name);
  state.addOperands(operands);
  state.addAttributes(attrList);
  state.addTypes(placeholder);
  Operation *op = builder.create(state);

  auto fail = [&](llvm::StringRef fallback) {
    op->erase();
    return llvm::createStringError(diagnostics.take(fallback));
  };

  if (inferrable) {
    auto iface = cast<InferTypeOpInterface>(op);
    SmallVector<Type, 1> inferred;
    if (failed(iface.inferReturnTypes(
            &context, loc, op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), inferred)))
      return fail("'" + opName.str() + "' op: type inference failed");
    if (inferred.size() != 1)
      return fail("'" + opName.str() + "' op: expected one result");
    if (result && result != inferred.front()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "'" << opName << "' op: the requested result type " << result
         << " differs from the inferred " << inferred.front();
      return fail(text);
    }
    op->getResult(0).setType(inferred.front());
  }

  if (failed(mlir::verify(op)))
    return fail("'" + opName.str() + "' op does not verify");
  return add(op->getResult(0));
}

Graph::Graph() : impl(std::make_unique<Impl>()) {}
Graph::~Graph() = default;

llvm::Expected<Graph::ValueId> Graph::addInput(llvm::ArrayRef<int64_t> shape,
                                               llvm::StringRef dtype) {
  auto type = impl->tensorType(shape, dtype);
  if (!type)
    return type.takeError();
  BlockArgument arg =
      impl->body->addArgument(*type, UnknownLoc::get(&impl->context));
  return impl->add(arg);
}

llvm::Expected<Graph::ValueId> Graph::addConstant(llvm::ArrayRef<int64_t> shape,
                                                  llvm::StringRef dtype,
                                                  const void *data,
                                                  size_t bytes) {
  auto type = impl->tensorType(shape, dtype);
  if (!type)
    return type.takeError();
  int64_t elementBytes = type->getElementTypeBitWidth() / 8;
  uint64_t expected = type->getNumElements() * elementBytes;
  if (bytes != expected)
    return llvm::createStringError(
        "constant of type " + dtypeOf(type->getElementType()) + " and shape " +
        formatShape(shape) + " needs " + std::to_string(expected) +
        " bytes of data, got " + std::to_string(bytes));
  if (!data && bytes)
    return llvm::createStringError("constant data is null");
  DenseElementsAttr value = DenseElementsAttr::getFromRawBuffer(
      *type, llvm::ArrayRef<char>(static_cast<const char *>(data), bytes));
  NamedAttribute attr(StringAttr::get(&impl->context, "value"), value);
  return impl->build("jeet.constant", {}, {attr}, Type());
}

llvm::Expected<Graph::ValueId> Graph::addOp(llvm::StringRef opName,
                                            llvm::ArrayRef<ValueId> operands,
                                            llvm::ArrayRef<GraphAttr> attrs,
                                            std::optional<TensorSpec> result) {
  std::string fullName =
      opName.starts_with("jeet.") ? opName.str() : "jeet." + opName.str();
  if (fullName == "jeet.constant")
    return llvm::createStringError(
        "add constants with Graph::addConstant, not addOp");
  SmallVector<Value> values;
  for (ValueId id : operands) {
    auto value = impl->lookup(id);
    if (!value)
      return value.takeError();
    values.push_back(*value);
  }
  MLIRContext *context = &impl->context;
  SmallVector<NamedAttribute> namedAttrs;
  for (const GraphAttr &attr : attrs) {
    Attribute value;
    switch (attr.kind) {
    case GraphAttr::Kind::I64Array:
      value = DenseI64ArrayAttr::get(context, attr.ints);
      break;
    case GraphAttr::Kind::Bool:
      value = BoolAttr::get(context, attr.boolValue);
      break;
    case GraphAttr::Kind::I64:
      value = IntegerAttr::get(IntegerType::get(context, 64), attr.intValue);
      break;
    }
    namedAttrs.emplace_back(StringAttr::get(context, attr.name), value);
  }
  Type resultType;
  if (result) {
    auto type = impl->tensorType(result->shape, result->dtype);
    if (!type)
      return type.takeError();
    resultType = *type;
  }
  return impl->build(fullName, values, namedAttrs, resultType);
}

llvm::Error Graph::markOutput(ValueId value) {
  auto v = impl->lookup(value);
  if (!v)
    return v.takeError();
  impl->outputs.push_back(value);
  return llvm::Error::success();
}

llvm::Expected<TensorSpec> Graph::type(ValueId value) const {
  auto v = impl->lookup(value);
  if (!v)
    return v.takeError();
  auto type = cast<RankedTensorType>(v->getType());
  return TensorSpec{
      std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
      dtypeOf(type.getElementType())};
}

int64_t Graph::numValues() const { return impl->values.size(); }
int64_t Graph::numInputs() const { return impl->body->getNumArguments(); }
int64_t Graph::numOutputs() const { return impl->outputs.size(); }

llvm::Expected<std::string> Graph::print() const {
  if (impl->outputs.empty())
    return llvm::createStringError(
        "the graph has no outputs: mark at least one with markOutput");
  SmallVector<Value> results;
  for (ValueId id : impl->outputs)
    results.push_back(impl->values[id]);

  OpBuilder::InsertionGuard guard(impl->builder);
  impl->builder.setInsertionPointToEnd(impl->body);
  auto ret = func::ReturnOp::create(impl->builder,
                                    UnknownLoc::get(&impl->context), results);
  impl->func.setFunctionType(impl->builder.getFunctionType(
      impl->body->getArgumentTypes(), ValueRange(results).getTypes()));

  std::string text;
  {
    DiagnosticCapture diagnostics(impl->context);
    if (failed(mlir::verify(*impl->module))) {
      ret->erase();
      return llvm::createStringError(
          diagnostics.take("the graph does not verify"));
    }
    llvm::raw_string_ostream os(text);
    OpPrintingFlags flags;
    flags.enableDebugInfo(false);
    impl->module->print(os, flags);
  }
  ret->erase();
  return text;
}
