//===- JeetInterfaces.td - Op families of the jeet dialect -*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//
//
// What the ops of one family share, as op interfaces: passes ask
// `isa<ElementwiseOpInterface>` or call `getAxes()` rather than listing ops.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_IR_JEETINTERFACES_TD
#define JEET_DIALECT_JEET_IR_JEETINTERFACES_TD

include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

def Jeet_ElementwiseOpInterface : OpInterface<"ElementwiseOpInterface"> {
  let cppNamespace = "::jeet";
  let description = [{
    An op whose every result element is a scalar function of one element of
    each operand: the element that numpy's broadcasting maps to the result
    element's index. The binary ops broadcast their operands to the result's
    shape; the unary ops keep it; `jeet.broadcast_to` is a broadcast whose
    scalar function is the identity, and `jeet.cast` keeps the shape and
    converts each element.

    `jeet-fuse` chains elementwise ops into one group, and
    `jeet-lower-to-linalg` computes them inside the loop nest of whatever
    reads them, with the scalar function that `buildScalar` builds: the one
    definition of each op's arithmetic.
  }];
  let methods = [
    InterfaceMethod<[{
      Builds the scalar function of the op at the builder's insertion point:
      `operands` holds one element of each tensor operand (of that operand's
      element type), and the returned value is the result element (of the
      result's element type). f16 and bf16 math functions are computed in
      f32.
    }], "::mlir::Value", "buildScalar",
    (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
         "::mlir::ValueRange":$operands)>,
  ];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Jeet_ReductionOpInterface : OpInterface<"ReductionOpInterface"> {
  let cppNamespace = "::jeet";
  let description = [{
    An op that reduces its input over the dimensions `axes`: each result
    element starts from the identity of the combiner and combines every input
    element of its slice in turn, in the accumulator type; a mean then
    divides by the number of elements combined, and the value is converted to
    the result's element type. With `keepdims` the reduced dimensions stay as
    size 1, otherwise they are dropped.

    The combiner is an `arith::AtomicRMWKind`, so that its identity and its
    scalar operation are MLIR's (`arith::getIdentityValueAttr`,
    `arith::getReductionOp`), the same ones the code generators find through
    `arith::getNeutralElement`.
  }];
  let methods = [
    InterfaceMethod<"The tensor that is reduced.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getInput", (ins),
      [{ return $_op.getInput(); }]>,
    InterfaceMethod<"The reduced dimensions of the input.",
      "::llvm::ArrayRef<int64_t>", "getAxes", (ins),
      [{ return $_op.getAxes(); }]>,
    InterfaceMethod<"Whether the reduced dimensions stay as size 1.",
      "bool", "getKeepdims", (ins), [{ return $_op.getKeepdims(); }]>,
    InterfaceMethod<[{
      The type the elements of `elementType` are combined in.
    }], "::mlir::Type", "getAccumulatorType",
    (ins "::mlir::Type":$elementType)>,
    InterfaceMethod<[{
      The combiner of values of `accumulatorType`.
    }], "::mlir::arith::AtomicRMWKind", "getCombiningKind",
    (ins "::mlir::Type":$accumulatorType)>,
    InterfaceMethod<[{
      Whether the combined value is divided by the number of elements
      combined (a mean).
    }], "bool", "isMean">,
    InterfaceMethod<[{
      The value each result element starts from: the combiner's identity.
    }], "::mlir::TypedAttr", "getIdentity",
    (ins "::mlir::Type":$accumulatorType), [{}], [{
      ::mlir::OpBuilder builder($_op->getContext());
      return ::mlir::arith::getIdentityValueAttr(
          $_op.getCombiningKind(accumulatorType), accumulatorType, builder,
          $_op->getLoc());
    }]>,
    InterfaceMethod<[{
      Builds the combination of the running value `accumulator` with the
      next element `value` (both of the accumulator type).
    }], "::mlir::Value", "buildCombine",
    (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
         "::mlir::Value":$accumulator, "::mlir::Value":$value), [{}], [{
      return ::mlir::arith::getReductionOp(
          $_op.getCombiningKind(accumulator.getType()), builder, loc,
          accumulator, value);
    }]>,
  ];
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

def Jeet_CompositeOpInterface : OpInterface<"CompositeOpInterface"> {
  let cppNamespace = "::jeet";
  let description = [{
    An op defined by a small graph of other jeet ops. `jeet-decompose`
    replaces it by that graph, and `jeet-lower-to-linalg` lowers the graph
    in its place where it has no lowering of its own, so the graph is the
    one definition of the op's semantics.
  }];
  let methods = [
    InterfaceMethod<[{
      Builds the jeet ops that compute the op's result from `operands` (in
      place of its own operands, of the same types) at the builder's
      insertion point and returns that result; fails, building nothing,
      where the op has no decomposition.
    }], "::mlir::FailureOr<::mlir::Value>", "decompose",
    (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$operands)>,
  ];
}

#endif // JEET_DIALECT_JEET_IR_JEETINTERFACES_TD
