//===- JeetOpsTest.cpp - Type inference of jeet ops called from C++ -------===//
//
// Part of the Jeet project.
//
// Type inference runs before the verifier checks an op's operand types and
// attributes when the op is built in C++ (an op builder, jeet::Graph), so it
// reports what it cannot work with instead of assuming it. Parsed IR never
// reaches these diagnostics: the verifier checks operand types and required
// attributes first, and the ops whose result type the parser infers take it
// from their operand. This test builds the ops directly.
//
//===----------------------------------------------------------------------===//

#include "jeet/Dialect/Jeet/IR/JeetOps.h"
#include "jeet/Dialect/Jeet/IR/JeetDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mlir;

namespace {

class JeetOpsInference : public ::testing::Test {
protected:
  JeetOpsInference() : builder(&context) {
    context.loadDialect<jeet::JeetDialect>();
  }

  /// Builds `opName` on block arguments of `operandTypes` with `attrs`, runs
  /// its type inference and returns the diagnostic it reports, or "" when
  /// it succeeds.
  std::string inferenceError(llvm::StringRef opName,
                             llvm::ArrayRef<Type> operandTypes,
                             llvm::ArrayRef<NamedAttribute> attrs = {}) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    Location loc = builder.getUnknownLoc();
    Block block;
    for (Type type : operandTypes)
      block.addArgument(type, loc);
    builder.setInsertionPointToEnd(&block);
    OperationState state(loc, opName);
    state.addOperands(block.getArguments());
    state.addAttributes(attrs);
    state.addTypes(RankedTensorType::get({}, builder.getF32Type()));
    Operation *op = builder.create(state);
    SmallVector<Type> inferred;
    LogicalResult result = cast<InferTypeOpInterface>(op).inferReturnTypes(
        &context, loc, op->getOperands(), op->getRawDictionaryAttrs(),
        op->getPropertiesStorage(), op->getRegions(), inferred);
    op->erase();
    return succeeded(result) ? "" : message;
  }

  NamedAttribute attr(llvm::StringRef name, Attribute value) {
    return builder.getNamedAttr(name, value);
  }

  MLIRContext context;
  OpBuilder builder;
  Type f32 = Float32Type::get(&context);
  Type dynamic = RankedTensorType::get({ShapedType::kDynamic, 3}, f32);
  Type unranked = UnrankedTensorType::get(f32);
  Type matrix = RankedTensorType::get({2, 3}, f32);
};

// Binary elementwise ops and matmul share one check of both operands.
TEST_F(JeetOpsInference, BinaryOpsNeedStaticTensors) {
  EXPECT_EQ(inferenceError("jeet.add", {unranked, matrix}),
            "'jeet.add' op expects statically shaped tensors, got "
            "'tensor<*xf32>' and 'tensor<2x3xf32>'");
  EXPECT_EQ(inferenceError("jeet.matmul", {matrix, dynamic}),
            "'jeet.matmul' op expects statically shaped tensors, got "
            "'tensor<2x3xf32>' and 'tensor<?x3xf32>'");
  EXPECT_EQ(inferenceError("jeet.add", {matrix, matrix}), "");
}

TEST_F(JeetOpsInference, TransposeAndReductionsNeedStaticTensors) {
  NamedAttribute permutation =
      attr("permutation", builder.getDenseI64ArrayAttr({1, 0}));
  NamedAttribute axes = attr("axes", builder.getDenseI64ArrayAttr({1}));
  EXPECT_EQ(inferenceError("jeet.transpose", {dynamic}, {permutation}),
            "'jeet.transpose' op expects a statically shaped tensor, got "
            "'tensor<?x3xf32>'");
  EXPECT_EQ(inferenceError("jeet.reduce_sum", {unranked}, {axes}),
            "'jeet.reduce_sum' op expects a statically shaped tensor, got "
            "'tensor<*xf32>'");
  EXPECT_EQ(inferenceError("jeet.transpose", {matrix}, {permutation}), "");
}

// The attributes inference reads: jeet::Graph adds ops without them.
TEST_F(JeetOpsInference, MissingAttributes) {
  EXPECT_EQ(inferenceError("jeet.transpose", {matrix}),
            "'jeet.transpose' op requires attribute 'permutation'");
  EXPECT_EQ(inferenceError("jeet.reduce_max", {matrix}),
            "'jeet.reduce_max' op requires attribute 'axes'");
  EXPECT_EQ(inferenceError("jeet.constant", {}),
            "'jeet.constant' op requires a `value` elements attribute");
}

// The elementwise ops that jeet-fuse and jeet-lower-to-linalg compute again
// in a loop nest rather than read (Jeet_CheapScalar): one instruction or
// about that. A division, a power or a transcendental among them would be
// recomputed per element where its result should be read.
TEST(JeetOpTraits, CheapScalarOps) {
  MLIRContext context;
  context.loadDialect<jeet::JeetDialect>();
  std::vector<std::string> cheap, other;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (!name.hasInterface<jeet::ElementwiseOpInterface>())
      continue;
    (name.hasTrait<jeet::CheapScalar>() ? cheap : other)
        .push_back(name.getStringRef().str());
  }
  llvm::sort(cheap);
  EXPECT_EQ(llvm::join(cheap, " "),
            "jeet.abs jeet.add jeet.and jeet.broadcast_to jeet.cast jeet.eq "
            "jeet.ge jeet.gt jeet.le jeet.lt jeet.max jeet.min jeet.mul "
            "jeet.ne jeet.neg jeet.not jeet.or jeet.relu jeet.select "
            "jeet.sub jeet.xor");
  for (const char *expensive :
       {"jeet.div", "jeet.rem", "jeet.pow", "jeet.exp", "jeet.sigmoid"})
    EXPECT_TRUE(llvm::is_contained(other, expensive)) << expensive;
}

} // namespace
