//===- Graph.h - Build jeet graphs op by op ---------------------*- C++ -*-===//
//
// Part of the Jeet project.
//
// The graph-building API that frontends (Python, C++) embed: add inputs, add
// jeet ops by name with operands and attributes, mark outputs, and print the
// graph as an MLIR module holding `func.func @main`. Every op is checked as it
// is added (MLIR's type inference and verifier): an invalid op is returned as
// an error carrying the diagnostic, never a crash. The printed text has no
// locations and canonical value names, so graphs of equal structure, shapes
// and dtypes print equal text: the key of Compiler::compileCached.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_COMPILER_GRAPH_H
#define JEET_COMPILER_GRAPH_H

#include "jeet/Compiler/Compiler.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace jeet {

/// An attribute of an op added to a Graph, in the form the dialect's generic
/// syntax uses: `array<i64: ...>`, a bool, an i64 integer or a string.
struct GraphAttr {
  enum class Kind { I64Array, Bool, I64, String };

  std::string name;
  Kind kind = Kind::I64;
  std::vector<int64_t> ints; ///< Kind::I64Array
  bool boolValue = false;    ///< Kind::Bool
  int64_t intValue = 0;      ///< Kind::I64
  std::string stringValue;   ///< Kind::String

  static GraphAttr i64Array(std::string name, std::vector<int64_t> values);
  static GraphAttr boolean(std::string name, bool value);
  static GraphAttr i64(std::string name, int64_t value);
  static GraphAttr string(std::string name, std::string value);
};

/// A jeet graph under construction. Values are identified by dense ids
/// (0, 1, 2, ...) in the order they are created. Not thread-safe; graphs on
/// different threads are independent.
class Graph {
public:
  using ValueId = int64_t;

  Graph();
  ~Graph();
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  /// Adds a graph input (a `@main` argument). dtype: "f32", "f16", "bf16",
  /// "i32", "i64", "i1" (also "float32", "float16", "bfloat16", "int32",
  /// "int64", "bool").
  llvm::Expected<ValueId> addInput(llvm::ArrayRef<int64_t> shape,
                                   llvm::StringRef dtype);

  /// Adds a `jeet.constant` whose value is `bytes` of C-contiguous host data
  /// of the given shape and dtype (f16/bf16: raw 16-bit patterns).
  llvm::Expected<ValueId> addConstant(llvm::ArrayRef<int64_t> shape,
                                      llvm::StringRef dtype, const void *data,
                                      size_t bytes);

  /// Adds the jeet op `opName` ("jeet.add" or "add") on `operands`. The
  /// result type is inferred when the op infers it (`result` then, if given,
  /// must agree); ops that do not (reshape, broadcast_to, cast) need
  /// `result`. Errors carry the verifier's diagnostic, naming the op and the
  /// offending shapes.
  llvm::Expected<ValueId> addOp(llvm::StringRef opName,
                                llvm::ArrayRef<ValueId> operands,
                                llvm::ArrayRef<GraphAttr> attrs = {},
                                std::optional<TensorSpec> result = {});

  /// Marks a value as a result of `@main` (in the order of the calls). A
  /// value may be an output more than once.
  llvm::Error markOutput(ValueId value);

  /// The type of a value.
  llvm::Expected<TensorSpec> type(ValueId value) const;

  int64_t numValues() const;
  int64_t numInputs() const;
  int64_t numOutputs() const;

  /// Verifies the whole graph and prints it as a module holding
  /// `func.func @main`, without locations. Needs at least one output.
  llvm::Expected<std::string> print() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Canonical MLIR dtype name ("f32", "f16", "bf16", "i32", "i64", "i1") for
/// any accepted spelling, or an error naming the bad one.
llvm::Expected<std::string> canonicalDType(llvm::StringRef dtype);

} // namespace jeet

#endif // JEET_COMPILER_GRAPH_H
