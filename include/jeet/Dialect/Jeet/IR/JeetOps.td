//===- JeetOps.td - Operations of the jeet dialect ---------*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_IR_JEETOPS_TD
#define JEET_DIALECT_JEET_IR_JEETOPS_TD

include "jeet/Dialect/Jeet/IR/JeetDialect.td"
include "jeet/Dialect/Jeet/IR/JeetInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Jeet_Op<string mnemonic, list<Trait> traits = []>
    : Op<Jeet_Dialect, mnemonic, [Jeet_WithinSizeLimits] # traits>;

// The type inference of ops whose result has the type of their `input`.
defvar Jeet_InferInputType = [{
  ::llvm::LogicalResult $cppClass::inferReturnTypes(
      ::mlir::MLIRContext *, ::std::optional<::mlir::Location>,
      Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
    results.push_back(adaptor.getInput().getType());
    return ::mlir::success();
  }
}];

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Jeet_ConstantOp : Jeet_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "A tensor constant";
  let description = [{
    Produces a tensor whose elements are given by the dense elements
    attribute `value` (`dense<...>` or `dense_resource<...>`); the result
    type is the attribute's type.

    ```mlir
    %0 = jeet.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

// Binary elementwise ops broadcast their operands with numpy's rules: shapes
// are aligned on the right and a dimension of size 1 stretches to the other.
// Both operands have the same element type; the result type is inferred.
// Where the scalar function is one arith op on floats and one on integers,
// `floatOp` and `intOp` name them; otherwise the op defines `buildScalar`.
class Jeet_BinaryElementwiseOp<string mnemonic, string what,
                               string floatOp = "", string intOp = "",
                               Type tensorType = Jeet_Tensor>
    : Jeet_Op<mnemonic, [Pure, InferTypeOpAdaptor,
                         DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]> {
  let summary = "Elementwise " # what # " with numpy broadcasting";
  let description = [{
    Computes the elementwise }] # what # [{ of two tensors. The operands
    broadcast with numpy's rules (shapes aligned on the right, a dimension of
    size 1 stretches) and must have the same element type.

    ```mlir
    %r = jeet.}] # mnemonic # [{ %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::jeet::detail::inferBroadcastResultType(
          getOperationName(), location, adaptor.getLhs().getType(),
          adaptor.getRhs().getType(), results);
    }
  }] # !if(!empty(floatOp), "", [{
    ::mlir::Value $cppClass::buildScalar(::mlir::OpBuilder &builder,
                                         ::mlir::Location loc,
                                         ::mlir::ValueRange operands) {
      return ::jeet::detail::buildFloatOrIntOp<}] # floatOp # ", " # intOp #
      [{>(builder, loc, operands);
    }
  }]);
}

def Jeet_AddOp : Jeet_BinaryElementwiseOp<"add", "sum",
    "::mlir::arith::AddFOp", "::mlir::arith::AddIOp">;
def Jeet_SubOp : Jeet_BinaryElementwiseOp<"sub", "difference",
    "::mlir::arith::SubFOp", "::mlir::arith::SubIOp">;
def Jeet_MulOp : Jeet_BinaryElementwiseOp<"mul", "product",
    "::mlir::arith::MulFOp", "::mlir::arith::MulIOp">;
// Integer division is defined everywhere, as XLA defines it: x / 0 = -1 and
// INT_MIN / -1 = INT_MIN (no trap; numpy gives 0 and INT_MIN).
def Jeet_DivOp : Jeet_BinaryElementwiseOp<"div",
    "quotient (integers round toward zero; x / 0 = -1 and "
    "INT_MIN / -1 = INT_MIN)">;
def Jeet_MaxOp : Jeet_BinaryElementwiseOp<"max",
    "maximum (NaN if either operand is NaN; -0.0 < +0.0)",
    "::mlir::arith::MaximumFOp", "::mlir::arith::MaxSIOp">;
def Jeet_MinOp : Jeet_BinaryElementwiseOp<"min",
    "minimum (NaN if either operand is NaN; -0.0 < +0.0)",
    "::mlir::arith::MinimumFOp", "::mlir::arith::MinSIOp">;
def Jeet_PowOp : Jeet_BinaryElementwiseOp<"pow", "power `lhs ** rhs`",
    "", "", Jeet_FloatTensor>;

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

// The result type is the operand's; it is inferred, so a wrong result type in
// generic form is reported with both types. Where the scalar function is a
// math op (in f32 for f16/bf16), `mathOp` names it; otherwise the op defines
// `buildScalar`.
class Jeet_UnaryElementwiseOp<string mnemonic, string what,
                              Type tensorType = Jeet_FloatTensor,
                              string mathOp = "", list<Trait> traits = []>
    : Jeet_Op<mnemonic, traits # [Pure, InferTypeOpAdaptor,
                         DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]> {
  let summary = "Computes " # what # " elementwise";
  let description = [{
    Computes }] # what # [{ of every element. The result has the
    operand's type.

    ```mlir
    %r = jeet.}] # mnemonic # [{ %x : tensor<4x3xf32>
    ```
  }];
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDefinition = Jeet_InferInputType # !if(!empty(mathOp), "", [{
    ::mlir::Value $cppClass::buildScalar(::mlir::OpBuilder &builder,
                                         ::mlir::Location loc,
                                         ::mlir::ValueRange operands) {
      return ::jeet::detail::buildMathOpInF32<}] # mathOp #
      [{>(builder, loc, operands);
    }
  }]);
}

// A unary op whose scalar function is one math op.
class Jeet_UnaryMathOp<string mnemonic, string what, string mathOp>
    : Jeet_UnaryElementwiseOp<mnemonic, what, Jeet_FloatTensor, mathOp>;

let hasFolder = 1 in {
def Jeet_NegOp : Jeet_UnaryElementwiseOp<"neg", "the negation", Jeet_Tensor>;
def Jeet_AbsOp : Jeet_UnaryElementwiseOp<"abs", "the absolute value",
                                         Jeet_Tensor>;
def Jeet_ReluOp : Jeet_UnaryElementwiseOp<"relu",
    "the rectifier `max(x, 0)` (NaN stays NaN, -0.0 becomes +0.0)",
    Jeet_Tensor>;
}
def Jeet_ExpOp : Jeet_UnaryMathOp<"exp", "the exponential",
                                  "::mlir::math::ExpOp">;
def Jeet_LogOp : Jeet_UnaryMathOp<"log", "the natural logarithm",
                                  "::mlir::math::LogOp">;
def Jeet_SqrtOp : Jeet_UnaryMathOp<"sqrt", "the square root",
                                   "::mlir::math::SqrtOp">;
def Jeet_RsqrtOp : Jeet_UnaryMathOp<"rsqrt", "the reciprocal square root",
                                    "::mlir::math::RsqrtOp">;
def Jeet_TanhOp : Jeet_UnaryMathOp<"tanh", "the hyperbolic tangent",
                                   "::mlir::math::TanhOp">;
def Jeet_SigmoidOp : Jeet_UnaryElementwiseOp<"sigmoid",
    "the logistic sigmoid `1 / (1 + exp(-x))`">;
def Jeet_GeluOp : Jeet_UnaryElementwiseOp<"gelu",
    "the GELU activation in its tanh form "
    "`0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`",
    Jeet_FloatTensor, "",
    [DeclareOpInterfaceMethods<Jeet_CompositeOpInterface>]>;

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Jeet_MatmulOp : Jeet_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "Matrix product with broadcast batch dimensions";
  let description = [{
    Multiplies `(..., M, K)` by `(..., K, N)` giving `(..., M, N)`, as numpy's
    `matmul` does for operands of rank 2 or more: the leading batch
    dimensions broadcast with numpy's rules.

    ```mlir
    %c = jeet.matmul %a, %b : tensor<8x64x32xf32>, tensor<32x16xf32> -> tensor<8x64x16xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$lhs, Jeet_Tensor:$rhs);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// The type the products are summed in: f32 for f16 and bf16.
    ::mlir::Type getAccumulatorType();
  }];
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Jeet_TransposeOp : Jeet_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "Permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %t = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Jeet_ReshapeOp : Jeet_Op<"reshape", [Pure]> {
  let summary = "Reinterprets a tensor with another shape";
  let description = [{
    Keeps the elements in row-major order and gives them the result's shape;
    the element counts must agree.

    ```mlir
    %r = jeet.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$input);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Jeet_BroadcastToOp : Jeet_Op<"broadcast_to",
    [Pure, DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]> {
  let summary = "Broadcasts a tensor to a shape";
  let description = [{
    Expands the input to the result's shape with numpy's broadcasting rules.

    ```mlir
    %b = jeet.broadcast_to %x : tensor<3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$input);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// A reduction names its combiner (an arith::AtomicRMWKind) for floats and,
// unless it takes floats only, for integers; sums combine f16 and bf16
// elements in f32 (`widensLowPrecision`), and a mean divides by the number
// of elements.
class Jeet_ReductionOp<string mnemonic, string what, string floatCombiner,
                       string intCombiner, bit widensLowPrecision,
                       bit mean = 0, Type tensorType = Jeet_Tensor,
                       list<Trait> traits = []>
    : Jeet_Op<mnemonic, traits # [Pure, InferTypeOpAdaptor,
                         DeclareOpInterfaceMethods<Jeet_ReductionOpInterface>]> {
  let summary = "Reduces a tensor to its " # what # " over `axes`";
  let description = [{
    Reduces the input to its }] # what # [{ over the dimensions listed in
    `axes` (each in `[0, rank)`, no repeats). With `keepdims` the reduced
    dimensions stay as size 1; otherwise they are dropped. Elements are
    combined with `}] # floatCombiner # [{`}] #
    !if(!empty(intCombiner), "",
        " (floats) or `" # intCombiner # "` (integers)") #
    [{ from the combiner's identity}] #
    !if(widensLowPrecision, ", f16 and bf16 in f32", "") # [{.

    ```mlir
    %s = jeet.}] # mnemonic # [{ %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins tensorType:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::jeet::detail::inferReductionResultType(
          getOperationName(), location, adaptor.getInput().getType(),
          adaptor.getAxesAttr(), adaptor.getKeepdims(), results);
    }
    ::mlir::Type $cppClass::getAccumulatorType(::mlir::Type elementType) {
      return }] # !if(widensLowPrecision,
                      "::jeet::detail::widenLowPrecisionFloat(elementType)",
                      "elementType") # [{;
    }
    ::mlir::arith::AtomicRMWKind
    $cppClass::getCombiningKind(::mlir::Type accumulatorType) {
      return }] # !if(!empty(intCombiner),
          "::mlir::arith::AtomicRMWKind::" # floatCombiner,
          "::llvm::isa<::mlir::FloatType>(accumulatorType)\n"
          "        ? ::mlir::arith::AtomicRMWKind::" # floatCombiner # "\n"
          "        : ::mlir::arith::AtomicRMWKind::" # intCombiner) # [{;
    }
    bool $cppClass::isMean() { return }] # !if(mean, "true", "false") # [{; }
  }];
}

def Jeet_ReduceSumOp : Jeet_ReductionOp<"reduce_sum", "sum", "addf", "addi",
                                        /*widensLowPrecision=*/1>;
def Jeet_ReduceMaxOp : Jeet_ReductionOp<"reduce_max", "maximum", "maximumf",
                                        "maxs", /*widensLowPrecision=*/0>;
def Jeet_ReduceMeanOp : Jeet_ReductionOp<"reduce_mean", "mean", "addf", "",
    /*widensLowPrecision=*/1, /*mean=*/1, Jeet_FloatTensor,
    [DeclareOpInterfaceMethods<Jeet_CompositeOpInterface>]>;

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

def Jeet_SoftmaxOp : Jeet_Op<"softmax",
    [Pure, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<Jeet_CompositeOpInterface>]> {
  let summary = "Softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`, which is in
    `[0, rank)`. `jeet-decompose` rewrites it into primitive ops.

    ```mlir
    %s = jeet.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Jeet_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Jeet_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = Jeet_InferInputType;
}

//===----------------------------------------------------------------------===//
// Conversion
//===----------------------------------------------------------------------===//

def Jeet_CastOp : Jeet_Op<"cast",
    [Pure, DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]> {
  let summary = "Converts the element type of a tensor";
  let description = [{
    Converts every element to the result's element type: floats round to
    nearest even, float to integer truncates toward zero, integer to float
    rounds to nearest. Shapes must agree.

    ```mlir
    %h = jeet.cast %x : tensor<4xf32> -> tensor<4xf16>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$input);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def Jeet_FusionOp : Jeet_Op<"fusion",
    [IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "A group of ops that runs as one kernel";
  let description = [{
    Holds a group of jeet ops that is compiled into one kernel. The region
    is isolated from above: its block arguments are the `inputs`, and
    `jeet.yield` returns the group's results. Made by `jeet-fuse`.

    ```mlir
    %r = jeet.fusion (%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> {
    ^bb0(%x: tensor<16xf32>, %y: tensor<16xf32>):
      %s = jeet.add %x, %y : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
      %t = jeet.relu %s : tensor<16xf32>
      jeet.yield %t : tensor<16xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Jeet_Tensor>:$inputs);
  let results = (outs Variadic<Jeet_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body
  }];
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs)>
  ];
}

def Jeet_YieldOp : Jeet_Op<"yield",
    [Pure, ReturnLike, Terminator, HasParent<"FusionOp">]> {
  let summary = "Returns the results of a jeet.fusion region";
  let description = [{
    Terminates the region of a `jeet.fusion`; its operands are the fusion's
    results and have the fusion's result types.

    ```mlir
    jeet.yield %t : tensor<16xf32>
    ```
  }];
  let arguments = (ins Variadic<Jeet_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // JEET_DIALECT_JEET_IR_JEETOPS_TD
