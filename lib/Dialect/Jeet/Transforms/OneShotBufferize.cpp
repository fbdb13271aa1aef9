//===- OneShotBufferize.cpp - Module bufferization, linear boundaries -----===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// MLIR's one-shot module bufferization, with each function's results matched
// with its arguments in linear time. MLIR's module analysis asks the alias
// analysis about every (returned tensor, tensor argument) pair: a graph of N
// inputs and N outputs made N squared queries. The bodies are analysed,
// copied and bufferized by MLIR's own functions; see the pass description.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferUtils.h"
#include "mlir/Dialect/Bufferization/Transforms/Bufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace jeet {
#define GEN_PASS_DEF_JEETONESHOTBUFFERIZEPASS
#include "jeet/Dialect/Jeet/Transforms/Passes.h.inc"
} // namespace jeet

using namespace mlir;
using namespace mlir::bufferization;
using func_ext::FuncAnalysisState;
using func_ext::FuncOpAnalysisState;

namespace {

/// The func.return ops of `funcOp`, one per block that ends in one.
SmallVector<func::ReturnOp> getReturnOps(func::FuncOp funcOp) {
  SmallVector<func::ReturnOp> returnOps;
  for (Block &block : funcOp.getBody())
    if (auto returnOp = dyn_cast<func::ReturnOp>(block.getTerminator()))
      returnOps.push_back(returnOp);
  return returnOps;
}

/// The functions of `module` (nested modules included), each after the
/// functions it calls; failure where the calls form a cycle.
FailureOr<SmallVector<func::FuncOp>>
orderCalleesFirst(ModuleOp module, SymbolTableCollection &symbols) {
  SmallVector<func::FuncOp> functions;
  module.walk([&](func::FuncOp funcOp) { functions.push_back(funcOp); });
  enum class Mark { OnPath, Done };
  DenseMap<Operation *, Mark> marks;
  SmallVector<func::FuncOp> order;
  // Depth first over the calls; a callee met on the current path is a cycle.
  std::function<LogicalResult(func::FuncOp)> visit =
      [&](func::FuncOp funcOp) -> LogicalResult {
    marks[funcOp] = Mark::OnPath;
    WalkResult calls = funcOp.walk([&](func::CallOp call) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee)
        return WalkResult::advance();
      auto mark = marks.find(callee);
      if (mark != marks.end())
        return mark->second == Mark::OnPath ? WalkResult::interrupt()
                                            : WalkResult::advance();
      return failed(visit(callee)) ? WalkResult::interrupt()
                                   : WalkResult::advance();
    });
    if (calls.wasInterrupted())
      return failure();
    marks[funcOp] = Mark::Done;
    order.push_back(funcOp);
    return success();
  };
  for (func::FuncOp funcOp : functions)
    if (!marks.contains(funcOp) && failed(visit(funcOp)))
      return failure();
  return order;
}

/// What calls of already analysed functions tell about their results: a
/// result equivalent to an argument passed in place is equivalent to the
/// operand (as MLIR's module analysis does before analysing a body).
void unionCallResultsWithOperands(func::FuncOp funcOp,
                                  OneShotAnalysisState &state,
                                  FuncAnalysisState &funcState) {
  funcOp.walk([&](func::CallOp call) {
    auto callee = funcState.symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    auto equivalent = funcState.equivalentFuncArgs.find(callee);
    if (!callee || equivalent == funcState.equivalentFuncArgs.end())
      return;
    for (auto [resultIdx, argIdx] : equivalent->second)
      if (state.isInPlace(call->getOpOperand(argIdx)))
        state.unionEquivalenceClasses(call.getResult(resultIdx),
                                      call.getOperand(argIdx));
  });
}

/// A function without a body: any tensor result may alias any tensor
/// argument.
void matchDeclarationResults(func::FuncOp funcOp,
                             FuncAnalysisState &funcState) {
  FunctionType type = funcOp.getFunctionType();
  for (auto [argIdx, input] : llvm::enumerate(type.getInputs())) {
    if (!isa<TensorType>(input))
      continue;
    for (auto [resultIdx, result] : llvm::enumerate(type.getResults()))
      if (isa<TensorType>(result))
        funcState.aliasingReturnVals[funcOp][argIdx].push_back(resultIdx);
  }
}

/// Records, for each result of the analysed `funcOp`, the argument it is
/// equivalent to (the first in argument order, in every func.return) and,
/// for each argument, the results that may alias it. Each argument's
/// equivalence class and alias set is visited once; returned values are
/// then looked up. Returns the number of class members visited.
int64_t matchResultsWithArguments(func::FuncOp funcOp,
                                  const OneShotAnalysisState &state,
                                  FuncAnalysisState &funcState) {
  int64_t visited = 0;
  // Member of an argument's equivalence class -> that argument's index.
  DenseMap<Value, int64_t> equivalentArg;
  // Member of an argument's alias set -> the set's index in `aliasSetArgs`,
  // which lists the arguments of each set.
  DenseMap<Value, size_t> aliasSet;
  SmallVector<SmallVector<int64_t, 1>> aliasSetArgs;
  for (BlockArgument arg : funcOp.getArguments()) {
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    int64_t argIdx = arg.getArgNumber();
    // An argument already seen belongs to an earlier argument's class.
    if (!equivalentArg.contains(arg))
      state.applyOnEquivalenceClass(arg, [&](Value member) {
        equivalentArg.try_emplace(member, argIdx);
        ++visited;
      });
    // The set's index is read before the walk over the aliases, whose
    // insertions may grow the map (an iterator held across them read freed
    // memory: ASan, an argument with dozens of aliases).
    auto [it, isNew] = aliasSet.try_emplace(arg, aliasSetArgs.size());
    size_t setIdx = it->second;
    if (isNew) {
      aliasSetArgs.emplace_back();
      state.applyOnAliases(arg, [&](Value member) {
        aliasSet.try_emplace(member, setIdx);
        ++visited;
      });
    }
    aliasSetArgs[setIdx].push_back(argIdx);
  }

  SmallVector<func::ReturnOp> returnOps = getReturnOps(funcOp);
  // Aliasing results of each argument, in the order of the func.return ops
  // and their operands, each once.
  DenseMap<int64_t, llvm::SetVector<int64_t>> aliasingResults;
  for (func::ReturnOp returnOp : returnOps)
    for (OpOperand &operand : returnOp->getOpOperands()) {
      if (!isa<RankedTensorType>(operand.get().getType()))
        continue;
      auto set = aliasSet.find(operand.get());
      if (set == aliasSet.end())
        continue;
      for (int64_t argIdx : aliasSetArgs[set->second])
        aliasingResults[argIdx].insert(operand.getOperandNumber());
    }
  for (BlockArgument arg : funcOp.getArguments()) {
    auto results = aliasingResults.find(arg.getArgNumber());
    if (results != aliasingResults.end())
      llvm::append_range(
          funcState.aliasingReturnVals[funcOp][arg.getArgNumber()],
          results->second);
  }

  // A result is equivalent to an argument when every func.return returns a
  // value of that argument's class.
  auto equivalentArgOf = [&](Value value) -> std::optional<int64_t> {
    if (!isa<TensorType>(value.getType()))
      return std::nullopt;
    auto it = equivalentArg.find(value);
    if (it == equivalentArg.end())
      return std::nullopt;
    return it->second;
  };
  if (returnOps.empty())
    return visited;
  for (int64_t i = 0, e = returnOps.front()->getNumOperands(); i < e; ++i) {
    std::optional<int64_t> argIdx =
        equivalentArgOf(returnOps.front()->getOperand(i));
    if (!argIdx)
      continue;
    if (llvm::all_of(ArrayRef(returnOps).drop_front(), [&](auto returnOp) {
          return equivalentArgOf(returnOp->getOperand(i)) == argIdx;
        }))
      funcState.equivalentFuncArgs[funcOp][i] = *argIdx;
  }
  return visited;
}

/// Records which tensor arguments of the analysed `funcOp` are read and
/// which written, from `bufferization.access` where given.
void recordArgumentAccesses(func::FuncOp funcOp,
                            const OneShotAnalysisState &state,
                            FuncAnalysisState &funcState) {
  FunctionType type = funcOp.getFunctionType();
  for (auto [idx, input] : llvm::enumerate(type.getInputs())) {
    if (!isa<TensorType>(input))
      continue;
    bool isRead = true;
    bool isWritten = true;
    if (auto access = funcOp.getArgAttrOfType<StringAttr>(
            idx, BufferizationDialect::kBufferAccessAttrName)) {
      isRead = access.getValue() == "read" || access.getValue() == "read-write";
      isWritten =
          access.getValue() == "write" || access.getValue() == "read-write";
    } else if (!funcOp.getBody().empty()) {
      isRead = state.isValueRead(funcOp.getArgument(idx));
      isWritten = state.isValueWritten(funcOp.getArgument(idx));
    }
    if (isRead)
      funcState.readBbArgs[funcOp].insert(idx);
    if (isWritten)
      funcState.writtenBbArgs[funcOp].insert(idx);
  }
}

/// Creates the global of every tensor constant of `module`, in the order of
/// a walk of the module. Bufferizing a constant makes or finds its global
/// (`getGlobalFor`), and MLIR's module bufferization visits the functions
/// in an order that varies from run to run (it picks them from a map keyed
/// by address): the globals' order and the numbers that make their names
/// unique would vary with it, and so would the object code of the same
/// graph. Made here first, bufferization finds them all.
LogicalResult
createConstantGlobals(ModuleOp module,
                      const OneShotBufferizationOptions &options) {
  SymbolTableCollection symbolTables;
  WalkResult result = module.walk([&](arith::ConstantOp constant) {
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    if (!type || !options.isOpAllowed(constant))
      return WalkResult::advance();
    std::optional<Attribute> memorySpace = options.defaultMemorySpaceFn(type);
    if (!memorySpace)
      return WalkResult::advance();
    if (failed(getGlobalFor(constant, symbolTables, options.bufferAlignment,
                            *memorySpace)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Gives each allocation that a `func.return` returns again a copy of its
/// own. The analysis may place two results with equal contents in one
/// buffer (a `linalg.copy` of a value onto the buffer that holds it writes
/// nothing new, so it is done in place), where every result of a graph is an
/// out-parameter of its own: `buffer-results-to-out-params` replaces a
/// returned allocation with its out-parameter and cannot make one
/// allocation two. (An argument returned twice is copied into both
/// out-parameters there, and callers rely on its equivalence.)
void copyRepeatedResults(ModuleOp module, uint64_t alignment) {
  module.walk([&](func::ReturnOp ret) {
    OpBuilder builder(ret);
    llvm::SmallPtrSet<Value, 8> seen;
    for (OpOperand &operand : ret->getOpOperands()) {
      Value buffer = operand.get();
      auto type = dyn_cast<MemRefType>(buffer.getType());
      if (!type || !type.getLayout().isIdentity() ||
          !buffer.getDefiningOp<memref::AllocOp>() ||
          seen.insert(buffer).second)
        continue;
      SmallVector<Value> dynamicSizes;
      for (auto [dim, size] : llvm::enumerate(type.getShape()))
        if (ShapedType::isDynamic(size))
          dynamicSizes.push_back(
              memref::DimOp::create(builder, ret.getLoc(), buffer, dim));
      auto copy =
          memref::AllocOp::create(builder, ret.getLoc(), type, dynamicSizes,
                                  builder.getI64IntegerAttr(alignment));
      memref::CopyOp::create(builder, ret.getLoc(), buffer, copy);
      operand.set(copy);
    }
  });
}

struct JeetOneShotBufferizePass
    : jeet::impl::JeetOneShotBufferizePassBase<JeetOneShotBufferizePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        LayoutMapOption::IdentityLayoutMap);
    // A copy between strided buffers (a view that had to be made
    // contiguous) is a linalg.copy, lowered to loops with the kernels:
    // memref.copy of such buffers becomes a call of MLIR's runtime library's
    // `memrefCopy`, which neither the JIT nor an artifact links.
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                          Value to) -> LogicalResult {
      auto identity = [](Value v) {
        return cast<MemRefType>(v.getType()).getLayout().isIdentity();
      };
      if (identity(from) && identity(to))
        memref::CopyOp::create(b, loc, from, to);
      else
        linalg::CopyOp::create(b, loc, from, to);
      return success();
    };

    if (failed(createConstantGlobals(module, options)))
      return signalPassFailure();
    BufferizationStatistics statistics;
    OneShotAnalysisState state(module, options);
    if (failed(analyzeModule(module, state, &statistics)))
      return signalPassFailure();
    // The analysis's decisions become copies in the IR; then every op,
    // function signatures included, is rewritten on buffers.
    BufferizationState bufferizationState;
    if (failed(insertTensorCopies(module, state, bufferizationState)) ||
        failed(bufferizeModuleOp(module, options, bufferizationState,
                                 &statistics)))
      return signalPassFailure();
    copyRepeatedResults(module, options.bufferAlignment);
  }

  /// With `report-visits`: a remark on `funcOp` with its tensor results and
  /// arguments and the class members visited to match them.
  void emitVisitsRemark(func::FuncOp funcOp, int64_t visited) {
    if (!reportVisits)
      return;
    auto countTensors = [](TypeRange types) {
      return llvm::count_if(types, llvm::IsaPred<TensorType>);
    };
    funcOp.emitRemark() << "matched " << countTensors(funcOp.getResultTypes())
                        << " tensor results with "
                        << countTensors(funcOp.getArgumentTypes())
                        << " tensor arguments, visiting " << visited
                        << " values";
  }

  /// MLIR's module analysis (`analyzeModuleOp`), callees first, with the
  /// results matched with the arguments in linear time.
  LogicalResult analyzeModule(ModuleOp module, OneShotAnalysisState &state,
                              BufferizationStatistics *statistics) {
    auto &funcState = state.addExtension<FuncAnalysisState>();
    FailureOr<SmallVector<func::FuncOp>> order =
        orderCalleesFirst(module, funcState.symbolTables);
    // Recursive calls: MLIR's analysis, which analyses the bodies of those
    // functions only (it takes the state's function data as it is: empty).
    if (failed(order))
      return analyzeModuleOp(module, state, statistics);
    for (func::FuncOp funcOp : *order) {
      if (!state.getOptions().isOpAllowed(funcOp))
        continue;
      funcState.startFunctionAnalysis(funcOp);
      unionCallResultsWithOperands(funcOp, state, funcState);
      if (failed(analyzeOp(funcOp, state, statistics)))
        return failure();
      if (funcOp.getBody().empty())
        matchDeclarationResults(funcOp, funcState);
      else
        emitVisitsRemark(funcOp,
                         matchResultsWithArguments(funcOp, state, funcState));
      recordArgumentAccesses(funcOp, state, funcState);
      funcState.analyzedFuncOps[funcOp] = FuncOpAnalysisState::Analyzed;
    }
    return success();
  }
};

} // namespace
