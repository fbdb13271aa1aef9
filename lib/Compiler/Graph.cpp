//===- Graph.cpp - Build jeet graphs op by op -----------------------------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "jeet/Compiler/Graph.h"
#include "jeet/Limits.h"

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
  GraphAttr attr{std::move(name), Kind::I64Array};
  attr.ints = std::move(values);
  return attr;
}

GraphAttr GraphAttr::boolean(std::string name, bool value) {
  GraphAttr attr{std::move(name), Kind::Bool};
  attr.boolValue = value;
  return attr;
}

GraphAttr GraphAttr::i64(std::string name, int64_t value) {
  GraphAttr attr{std::move(name), Kind::I64};
  attr.intValue = value;
  return attr;
}

GraphAttr GraphAttr::string(std::string name, std::string value) {
  GraphAttr attr{std::move(name), Kind::String};
  attr.stringValue = std::move(value);
  return attr;
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
    // A graph builder's error names the op and its operands already; the
    // verifier's "see current operation" note would only print it again in
    // MLIR's generic form.
    context->printOpOnDiagnostic(false);
    return context;
  }();
  return *context;
}

/// The dtype that `dtype` spells (in any of the runtime's spellings) if
/// graphs take it, else an error listing the ones they take.
static llvm::Expected<runtime::DType> parseGraphDType(llvm::StringRef dtype) {
  runtime::StatusOr<runtime::DType> parsed =
      runtime::parseDType(std::string_view(dtype.data(), dtype.size()));
  if (parsed.ok() && jeet::detail::graphElementType(&graphContext(), *parsed))
    return *parsed;
  std::string expected;
  for (runtime::DType candidate : runtime::kDTypes) {
    if (!jeet::detail::graphElementType(&graphContext(), candidate))
      continue;
    if (!expected.empty())
      expected += ", ";
    expected += std::string(runtime::dtypeLongName(candidate)) + "/" +
                runtime::dtypeName(candidate);
  }
  std::string what =
      parsed.ok() ? "dtype '" + dtype.str() + "' cannot be used in a graph"
                  : "unknown dtype '" + dtype.str() + "'";
  return llvm::createStringError(what + " (expected one of " + expected + ")");
}

llvm::Expected<std::string> jeet::canonicalDType(llvm::StringRef dtype) {
  llvm::Expected<runtime::DType> parsed = parseGraphDType(dtype);
  if (!parsed)
    return parsed.takeError();
  return std::string(runtime::dtypeName(*parsed));
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
    llvm::Expected<runtime::DType> parsed = parseGraphDType(dtype);
    if (!parsed)
      return parsed.takeError();
    for (int64_t d : shape)
      if (d < 0)
        return llvm::createStringError("invalid shape " + formatShape(shape) +
                                       ": dimensions must be >= 0");
    if (static_cast<int64_t>(shape.size()) > kMaxTensorRank)
      return llvm::createStringError("invalid shape " + formatShape(shape) +
                                     ": rank " + std::to_string(shape.size()) +
                                     " is beyond Jeet's limit of " +
                                     std::to_string(kMaxTensorRank));
    if (checkedElementCount(shape) < 0)
      return llvm::createStringError(
          "invalid shape " + formatShape(shape) +
          ": more elements than Jeet's limit of 2^40 (" +
          std::to_string(kMaxTensorElements) + ")");
    return RankedTensorType::get(
        shape, jeet::detail::graphElementType(&context, *parsed));
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

llvm::Expected<Graph::ValueId>
Graph::Impl::build(llvm::StringRef opName, llvm::ArrayRef<Value> operands,
                   llvm::ArrayRef<NamedAttribute> attrs, Type result) {
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(opName, &context);
  // Ops with regions and terminators (jeet.fusion, jeet.yield) are made by
  // passes, not written in graphs.
  if (!name || name->getDialectNamespace() != "jeet" ||
      !name->hasTrait<OpTrait::ZeroRegions>() ||
      name->hasTrait<OpTrait::IsTerminator>())
    return llvm::createStringError("unknown jeet op '" + opName.str() + "'");

  DiagnosticCapture diagnostics(context);
  Location loc = UnknownLoc::get(&context);

  // Attribute kinds, before anything reads them. A missing attribute is
  // reported by type inference where it needs it, else by the verifier.
  NamedAttrList attrList(attrs);
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
  // Booleans are one byte each, as in runtime tensors and NumPy arrays.
  bool isBool = type->getElementType().isInteger(1);
  int64_t elementBytes = isBool ? 1 : type->getElementTypeBitWidth() / 8;
  uint64_t expected = type->getNumElements() * elementBytes;
  if (bytes != expected)
    return llvm::createStringError(
        "constant of type " + dtypeOf(type->getElementType()) + " and shape " +
        formatShape(shape) + " needs " + std::to_string(expected) +
        " bytes of data, got " + std::to_string(bytes));
  if (!data && bytes)
    return llvm::createStringError("constant data is null");
  DenseElementsAttr value;
  if (isBool) {
    // MLIR packs booleans into bits: build them one by one.
    const auto *bytesIn = static_cast<const uint8_t *>(data);
    SmallVector<bool> bools(bytesIn, bytesIn + bytes);
    value = DenseElementsAttr::get(*type, ArrayRef<bool>(bools));
  } else {
    value = DenseElementsAttr::getFromRawBuffer(
        *type, llvm::ArrayRef<char>(static_cast<const char *>(data), bytes));
  }
  NamedAttribute attr(StringAttr::get(&impl->context, "value"), value);
  return impl->build(ConstantOp::getOperationName(), {}, {attr}, Type());
}

llvm::Expected<Graph::ValueId> Graph::addOp(llvm::StringRef opName,
                                            llvm::ArrayRef<ValueId> operands,
                                            llvm::ArrayRef<GraphAttr> attrs,
                                            std::optional<TensorSpec> result) {
  std::string fullName =
      opName.starts_with("jeet.") ? opName.str() : "jeet." + opName.str();
  if (fullName == ConstantOp::getOperationName())
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
    case GraphAttr::Kind::String:
      value = StringAttr::get(context, attr.stringValue);
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
