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
// `floatOp` and `intOp` name them (and the op is a Jeet_CheapScalar);
// otherwise the op defines `buildScalar`.
class Jeet_BinaryElementwiseOp<string mnemonic, string what,
                               string floatOp = "", string intOp = "",
                               Type tensorType = Jeet_NumericTensor,
                               string exampleType = "f32">
    : Jeet_Op<mnemonic, [Pure, InferTypeOpAdaptor,
                         DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]
                        # !if(!empty(floatOp), [], [Jeet_CheapScalar])> {
  let summary = "Elementwise " # what # " with numpy broadcasting";
  let description = [{
    Computes the elementwise }] # what # [{ of two tensors. The operands
    broadcast with numpy's rules (shapes aligned on the right, a dimension of
    size 1 stretches) and must have the same element type.

    ```mlir
    %r = jeet.}] # mnemonic # [{ %a, %b : tensor<4x3x}] # exampleType #
    [{>, tensor<3x}] # exampleType # [{> -> tensor<4x3x}] # exampleType # [{>
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
def Jeet_RemOp : Jeet_BinaryElementwiseOp<"rem",
    "remainder of the quotient rounded toward zero (C's `fmod`, numpy's "
    "`fmod`: the sign of `lhs`; integers: x rem 0 = x and INT_MIN rem -1 = "
    "0, the values that `div`'s -1 and INT_MIN give back)">;
def Jeet_MaxOp : Jeet_BinaryElementwiseOp<"max",
    "maximum (NaN if either operand is NaN; -0.0 < +0.0)",
    "::mlir::arith::MaximumFOp", "::mlir::arith::MaxSIOp">;
def Jeet_MinOp : Jeet_BinaryElementwiseOp<"min",
    "minimum (NaN if either operand is NaN; -0.0 < +0.0)",
    "::mlir::arith::MinimumFOp", "::mlir::arith::MinSIOp">;
// The negative exponents' rule is PyTorch's (numpy raises there).
def Jeet_PowOp : Jeet_BinaryElementwiseOp<"pow",
    "power `lhs ** rhs` (integers wrap on overflow, and a negative integer "
    "exponent gives 1 / lhs ** -rhs rounded toward zero, 0 ** -n = 0)">;

// Logical ops on booleans, bitwise on integers (as numpy's `&`, `|`, `^`).
def Jeet_AndOp : Jeet_BinaryElementwiseOp<"and",
    "logical and (bitwise on integers)",
    "::mlir::arith::AndIOp", "::mlir::arith::AndIOp", Jeet_LogicalTensor,
    "i1">;
def Jeet_OrOp : Jeet_BinaryElementwiseOp<"or",
    "logical or (bitwise on integers)",
    "::mlir::arith::OrIOp", "::mlir::arith::OrIOp", Jeet_LogicalTensor, "i1">;
def Jeet_XorOp : Jeet_BinaryElementwiseOp<"xor",
    "logical exclusive or (bitwise on integers)",
    "::mlir::arith::XOrIOp", "::mlir::arith::XOrIOp", Jeet_LogicalTensor,
    "i1">;

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

// A comparison of two tensors of one element type, broadcast with numpy's
// rules, whose result is a tensor of booleans (i1). `floatPredicate` is an
// arith::CmpFPredicate, `intPredicate` an arith::CmpIPredicate for signed
// integers; booleans compare as 0 and 1 (false < true).
class Jeet_CompareOp<string mnemonic, string what, string floatPredicate,
                     string intPredicate, string boolPredicate>
    : Jeet_Op<mnemonic, [Pure, InferTypeOpAdaptor, Jeet_CheapScalar,
                         DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]> {
  let summary = "Elementwise comparison `" # what #
                "` with numpy broadcasting";
  let description = [{
    Compares two tensors element by element, `}] # what # [{`, as numpy
    does: the operands broadcast with numpy's rules and must have the same
    element type; the result is a tensor of booleans (`i1`). A comparison
    with NaN is false, except `ne`, which is true. Integers compare as
    signed numbers, booleans as 0 and 1. Floats of 16 bits compare exactly
    (as f32).

    ```mlir
    %r = jeet.}] # mnemonic # [{ %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$lhs, Jeet_Tensor:$rhs);
  let results = (outs Jeet_BoolTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      if (::mlir::failed(::jeet::detail::inferBroadcastResultType(
              getOperationName(), location, adaptor.getLhs().getType(),
              adaptor.getRhs().getType(), results)))
        return ::mlir::failure();
      results.back() = ::llvm::cast<::mlir::RankedTensorType>(results.back())
                           .clone(::mlir::IntegerType::get(context, 1));
      return ::mlir::success();
    }
    ::mlir::Value $cppClass::buildScalar(::mlir::OpBuilder &builder,
                                         ::mlir::Location loc,
                                         ::mlir::ValueRange operands) {
      return ::jeet::detail::buildComparison(builder, loc, operands,
          ::mlir::arith::CmpFPredicate::}] # floatPredicate # [{,
          ::mlir::arith::CmpIPredicate::}] # intPredicate # [{,
          ::mlir::arith::CmpIPredicate::}] # boolPredicate # [{);
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::jeet::detail::foldComparison(
          adaptor.getLhs(), adaptor.getRhs(), getType(),
          ::mlir::arith::CmpFPredicate::}] # floatPredicate # [{,
          ::mlir::arith::CmpIPredicate::}] # intPredicate # [{,
          ::mlir::arith::CmpIPredicate::}] # boolPredicate # [{);
    }
  }];
}

def Jeet_EqOp : Jeet_CompareOp<"eq", "lhs == rhs", "OEQ", "eq", "eq">;
def Jeet_NeOp : Jeet_CompareOp<"ne", "lhs != rhs", "UNE", "ne", "ne">;
def Jeet_LtOp : Jeet_CompareOp<"lt", "lhs < rhs", "OLT", "slt", "ult">;
def Jeet_LeOp : Jeet_CompareOp<"le", "lhs <= rhs", "OLE", "sle", "ule">;
def Jeet_GtOp : Jeet_CompareOp<"gt", "lhs > rhs", "OGT", "sgt", "ugt">;
def Jeet_GeOp : Jeet_CompareOp<"ge", "lhs >= rhs", "OGE", "sge", "uge">;

def Jeet_SelectOp : Jeet_Op<"select",
    [Pure, InferTypeOpAdaptor, Jeet_CheapScalar,
     DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]> {
  let summary = "Chooses elements of two tensors by a boolean tensor";
  let description = [{
    `condition ? true_value : false_value` element by element, numpy's
    `where`: the three operands broadcast with numpy's rules, the condition
    is a tensor of booleans (`i1`) and the two values have the same element
    type, which is the result's.

    ```mlir
    %r = jeet.select %c, %a, %b : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Jeet_BoolTensor:$condition, Jeet_Tensor:$true_value,
                       Jeet_Tensor:$false_value);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($true_value) `,` type($false_value) `->`
    type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

// The result type is the operand's; it is inferred, so a wrong result type in
// generic form is reported with both types. Where the scalar function is a
// math op (in f32 for f16/bf16), `mathOp` names it; otherwise the op defines
// `buildScalar`.
class Jeet_UnaryElementwiseOp<string mnemonic, string what,
                              Type tensorType = Jeet_FloatTensor,
                              string mathOp = "", list<Trait> traits = [],
                              string exampleType = "f32">
    : Jeet_Op<mnemonic, traits # [Pure, InferTypeOpAdaptor,
                         DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]> {
  let summary = "Computes " # what # " elementwise";
  let description = [{
    Computes }] # what # [{ of every element. The result has the
    operand's type.

    ```mlir
    %r = jeet.}] # mnemonic # [{ %x : tensor<4x3x}] # exampleType # [{>
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
def Jeet_NegOp : Jeet_UnaryElementwiseOp<"neg", "the negation",
                                         Jeet_NumericTensor, "",
                                         [Jeet_CheapScalar]>;
def Jeet_AbsOp : Jeet_UnaryElementwiseOp<"abs", "the absolute value",
                                         Jeet_NumericTensor, "",
                                         [Jeet_CheapScalar]>;
def Jeet_ReluOp : Jeet_UnaryElementwiseOp<"relu",
    "the rectifier `max(x, 0)` (NaN stays NaN, -0.0 becomes +0.0)",
    Jeet_NumericTensor, "", [Jeet_CheapScalar]>;
def Jeet_NotOp : Jeet_UnaryElementwiseOp<"not",
    "the logical negation (bitwise on integers, numpy's `~`)",
    Jeet_LogicalTensor, "", [Jeet_CheapScalar], "i1">;
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
def Jeet_ErfOp : Jeet_UnaryMathOp<"erf", "the error function",
                                  "::mlir::math::ErfOp">;
def Jeet_SinOp : Jeet_UnaryMathOp<"sin", "the sine", "::mlir::math::SinOp">;
def Jeet_CosOp : Jeet_UnaryMathOp<"cos", "the cosine", "::mlir::math::CosOp">;
def Jeet_TanOp : Jeet_UnaryMathOp<"tan", "the tangent", "::mlir::math::TanOp">;
def Jeet_AsinOp : Jeet_UnaryMathOp<"asin",
    "the inverse sine (NaN outside [-1, 1])", "::mlir::math::AsinOp">;
def Jeet_AcosOp : Jeet_UnaryMathOp<"acos",
    "the inverse cosine (NaN outside [-1, 1])", "::mlir::math::AcosOp">;
def Jeet_AtanOp : Jeet_UnaryMathOp<"atan", "the inverse tangent",
                                   "::mlir::math::AtanOp">;
def Jeet_SinhOp : Jeet_UnaryMathOp<"sinh", "the hyperbolic sine",
                                   "::mlir::math::SinhOp">;
def Jeet_CoshOp : Jeet_UnaryMathOp<"cosh", "the hyperbolic cosine",
                                   "::mlir::math::CoshOp">;
def Jeet_AsinhOp : Jeet_UnaryMathOp<"asinh", "the inverse hyperbolic sine",
                                    "::mlir::math::AsinhOp">;
def Jeet_AcoshOp : Jeet_UnaryMathOp<"acosh",
    "the inverse hyperbolic cosine (NaN below 1)", "::mlir::math::AcoshOp">;
def Jeet_AtanhOp : Jeet_UnaryMathOp<"atanh",
    "the inverse hyperbolic tangent (NaN outside [-1, 1], infinite at -1 "
    "and 1)", "::mlir::math::AtanhOp">;
def Jeet_FloorOp : Jeet_UnaryMathOp<"floor",
    "the largest integral value not greater than the element",
    "::mlir::math::FloorOp">;
def Jeet_CeilOp : Jeet_UnaryMathOp<"ceil",
    "the smallest integral value not less than the element",
    "::mlir::math::CeilOp">;
def Jeet_RoundOp : Jeet_UnaryMathOp<"round",
    "the nearest integral value, halves to the even one (numpy's `round`, "
    "PyTorch's `round` and ONNX's `Round`: 2.5 becomes 2.0, -0.5 becomes -0.0)",
    "::mlir::math::RoundEvenOp">;
def Jeet_SigmoidOp : Jeet_UnaryElementwiseOp<"sigmoid",
    "the logistic sigmoid `1 / (1 + exp(-x))`">;
def Jeet_GeluOp : Jeet_UnaryElementwiseOp<"gelu", "the GELU activation",
    Jeet_FloatTensor, "",
    [DeclareOpInterfaceMethods<Jeet_CompositeOpInterface>]> {
  let description = [{
    Computes the GELU activation of every element in one of the two forms
    of PyTorch's `gelu` (and ONNX's `Gelu`), chosen by `approximate`:

    - `"none"` (the default, as in PyTorch and ONNX), the exact form
      `0.5 x (1 + erf(x / sqrt(2)))`;
    - `"tanh"`, the approximation
      `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.

    Before `approximate` existed, `jeet.gelu` was the tanh form: IR written
    then means the exact form now unless it says `approximate = "tanh"`.
    The result has the operand's type.

    ```mlir
    %r = jeet.gelu %x : tensor<4x3xf32>
    %t = jeet.gelu %x {approximate = "tanh"} : tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Jeet_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The values of `approximate`.
    static constexpr ::llvm::StringLiteral kExactForm = "none";
    static constexpr ::llvm::StringLiteral kTanhApproximation = "tanh";
  }];
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Jeet_MatmulOp : Jeet_Op<"matmul",
    [Pure, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<Jeet_CompositeOpInterface>]> {
  let summary = "Matrix product with broadcast batch dimensions";
  let description = [{
    Multiplies `(..., M, K)` by `(..., K, N)` giving `(..., M, N)`, as numpy's
    `matmul` does: the leading batch dimensions broadcast with numpy's
    rules. A 1-D operand is promoted as numpy promotes it: a `(K)` lhs is a
    row `(1, K)` and a `(K)` rhs a column `(K, 1)`, and the promoted
    dimension is dropped from the result (vector-matrix `(K) x (K, N)` is
    `(N)`, matrix-vector `(..., M, K) x (K)` is `(..., M)`, a dot product of
    two vectors is a 0-d tensor). `jeet-decompose` rewrites a product with a
    1-D operand as one of matrices between reshapes, and so a product of
    batches of rows by one matrix, `(..., M, K) x (K, N)` (static shapes,
    the lhs not a transpose): one `(P * M, K) x (K, N)`.

    ```mlir
    %c = jeet.matmul %a, %b : tensor<8x64x32xf32>, tensor<32x16xf32> -> tensor<8x64x16xf32>
    %v = jeet.matmul %a, %x : tensor<8x64x32xf32>, tensor<32xf32> -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Jeet_NumericTensor:$lhs, Jeet_NumericTensor:$rhs);
  let results = (outs Jeet_NumericTensor:$result);
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
    Result dimension `i` is input dimension `permutation[i]`. One that only
    moves dimensions of size 1 (the others keep their order) moves no
    element and canonicalizes to a `jeet.reshape` (a view): PyTorch's
    attention exports `(1, S, D)` to `(S, 1, D)` before its projections.

    ```mlir
    %t = jeet.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Jeet_ReshapeOp : Jeet_Op<"reshape", [Pure]> {
  let summary = "Reinterprets a tensor with another shape";
  let description = [{
    Keeps the elements in row-major order and gives them the result's shape;
    the element counts must agree. A reshape that only adds or removes
    dimensions of size 1 after a `jeet.transpose` (its only reader)
    canonicalizes to a transpose of the input so reshaped, so that two
    transposes on either side of it meet and fold into one (PyTorch's
    attention exports `k.transpose(0, 1)`, `view(1, h, s, d)` and
    `transpose(-2, -1)`).

    ```mlir
    %r = jeet.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$input);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Jeet_ConcatOp : Jeet_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "Joins tensors along one axis";
  let description = [{
    The inputs one after the other along `axis` (in `[0, rank)`), as numpy's
    `concatenate`: they have one rank and one element type, and the same
    sizes in every other dimension.

    ```mlir
    %c = jeet.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Jeet_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Jeet_SliceOp : Jeet_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "A strided slice of a tensor";
  let description = [{
    Element `i` of dimension `d` of the result is element
    `start[d] + i * step[d]` of the input, as Python's and numpy's
    `x[start:stop:step]` in every dimension: `starts`, `stops` and `steps`
    have one entry per dimension; a negative start or stop counts from the
    end, and both are clamped to the dimension (so any value beyond it means
    "to the end"); a step is not 0, and a negative one walks backwards
    (`starts = -1, stops = INT64_MIN, steps = -1` reverses a dimension).

    A slice with positive steps is read in place by the kernels that read it
    (a view of its input), so slices are moved towards the values they
    select: a slice of a `jeet.transpose` that takes one element of every
    dimension the transpose moves canonicalizes to a reshape of a slice of
    the transpose's input, and a slice of a `jeet.reshape` to a reshape of a
    slice of its input where, in every group of dimensions the reshape
    splits or merges, the slice takes one progression of the group's
    elements and the reshape after it only splits dimensions (PyTorch's
    attention exports its Q, K, V split as slices of a transposed copy of
    the packed projection, which then become views of the projection).

    ```mlir
    %s = jeet.slice %x {starts = array<i64: 1, -1>, stops = array<i64: 3, -9223372036854775808>, steps = array<i64: 1, -2>} : tensor<4x6xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$stops, DenseI64ArrayAttr:$steps);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Jeet_GatherOp : Jeet_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "Takes the slices of a tensor that indices name";
  let description = [{
    Numpy's `take(data, indices, axis)` and ONNX's `Gather` (an embedding
    lookup along axis 0): the result has the shape
    `data.shape[:axis] + indices.shape + data.shape[axis + 1:]`, and its
    element at `(i..., j..., k...)` is `data[i..., indices[j...], k...]`.
    Indices are `i32` or `i64`; one in `[-n, 0)` counts from the end (`n`
    the size of `axis`), and one outside `[-n, n)` is clamped to the
    nearest valid index (below `-n`: 0; at or above `n`: `n - 1`), so every
    index reads an element of `data` and the result is always defined. With
    one constant index it is a slice (reshaped): it canonicalizes to a
    `jeet.slice` and a `jeet.reshape`, which kernels read in place
    (PyTorch's attention exports the split of its packed Q, K, V projection
    as three such gathers).

    ```mlir
    %e = jeet.gather %table, %ids {axis = 0 : i64} : tensor<1000x64xf32>, tensor<8x16xi64> -> tensor<8x16x64xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$data, Jeet_IntegerTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices attr-dict `:` type($data) `,` type($indices) `->`
    type($result)
  }];
  let hasCanonicalizer = 1;
}

def Jeet_PadOp : Jeet_Op<"pad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Pads a tensor with a constant";
  let description = [{
    Adds `low[d]` elements before and `high[d]` after dimension `d` (both
    at least 0, one entry per dimension), all equal to `value`, a 0-d tensor
    of the input's element type: numpy's `pad` in `constant` mode.

    ```mlir
    %p = jeet.pad %x, %zero {low = array<i64: 0, 1>, high = array<i64: 2, 1>} : tensor<2x3xf32>, tensor<f32> -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$input, Jeet_Tensor:$value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $value attr-dict `:` type($input) `,` type($value) `->`
    type($result)
  }];
  let hasFolder = 1;
}

def Jeet_BroadcastToOp : Jeet_Op<"broadcast_to",
    [Pure, Jeet_CheapScalar,
     DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]> {
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
                       bit mean = 0, Type tensorType = Jeet_NumericTensor,
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
def Jeet_ReduceMinOp : Jeet_ReductionOp<"reduce_min", "minimum", "minimumf",
                                        "mins", /*widensLowPrecision=*/0>;
def Jeet_ReduceProdOp : Jeet_ReductionOp<"reduce_prod", "product", "mulf",
                                         "muli", /*widensLowPrecision=*/1>;

// Indices are i64, as in numpy, PyTorch and ONNX.
def Jeet_IndexTensor : StaticShapeTensorOf<[I64]>;

// The index of the extreme element along one axis, defined by its
// decomposition: the extreme value, the positions that hold it (or NaN),
// and the least of those positions.
class Jeet_ArgReductionOp<string mnemonic, string what>
    : Jeet_Op<mnemonic, [Pure, InferTypeOpAdaptor,
                         DeclareOpInterfaceMethods<Jeet_CompositeOpInterface>]> {
  let summary = "The index of the " # what # " along one axis";
  let description = [{
    The index (`i64`) along `axis` (in `[0, rank)`) of the }] # what #
    [{ of each slice, as numpy's `arg}] # !substr(mnemonic, 3) # [{`: the
    first such index where several elements are equal, and the first NaN
    where the slice has one. With `keepdims` the axis stays as size 1;
    otherwise it is dropped. `jeet-decompose` rewrites it as
    `reduce_}] # !substr(mnemonic, 3) # [{`, a comparison that marks the
    positions of the result (or NaN), a `select` of their `iota` indices
    (others: the axis size) and a `reduce_min`.

    ```mlir
    %i = jeet.}] # mnemonic # [{ %x {axis = 1 : i64} : tensor<4x8xf32> -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Jeet_NumericTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdims);
  let results = (outs Jeet_IndexTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::jeet::detail::inferArgReductionResultType(
          getOperationName(), location, adaptor.getInput().getType(),
          adaptor.getAxisAttr(), adaptor.getKeepdims(), results);
    }
    ::mlir::FailureOr<::mlir::Value>
    $cppClass::decompose(::mlir::OpBuilder &builder,
                         ::mlir::ValueRange operands) {
      return ::jeet::detail::decomposeArgReduction(
          builder, getLoc(), operands[0], getAxis(), getKeepdims(),
          /*maximum=*/}] # !if(!eq(mnemonic, "argmax"), "true", "false") # [{);
    }
  }];
}

def Jeet_ArgmaxOp : Jeet_ArgReductionOp<"argmax", "maximum">;
def Jeet_ArgminOp : Jeet_ArgReductionOp<"argmin", "minimum">;

//===----------------------------------------------------------------------===//
// Generators
//===----------------------------------------------------------------------===//

def Jeet_IotaOp : Jeet_Op<"iota", [Pure]> {
  let summary = "The indices along one axis";
  let description = [{
    A tensor whose every element is its own index along `axis` (in
    `[0, rank)`), converted to the element type: `iota` of
    `tensor<2x3xi64>` along axis 1 is `[[0, 1, 2], [0, 1, 2]]`. Small ones
    (at most 1024 elements) fold to constants.

    ```mlir
    %i = jeet.iota {axis = 1 : i64} : tensor<2x3xi64>
    ```
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs Jeet_NumericTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The largest iota folded into a constant.
    static constexpr int64_t kMaxFoldedElements = 1024;
  }];
}

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
// Convolution and pooling
//===----------------------------------------------------------------------===//

// The windows of these ops are defined as in ONNX and PyTorch: `strides` and
// `dilations` have one entry per spatial dimension (H, W), each at least 1;
// `padding` is `[top, left, bottom, right]`, each at least 0; an output
// dimension has `(in + begin + end - dilation * (kernel - 1) - 1) / stride +
// 1` elements (rounded down), at least 1.
def Jeet_Conv2dOp : Jeet_Op<"conv2d",
    [Pure, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<Jeet_CompositeOpInterface>]> {
  let summary = "2-D convolution, NCHW input and OIHW filter";
  let description = [{
    The cross-correlation of PyTorch's `conv2d` and ONNX's `Conv`: an input
    `(N, C, H, W)` and a filter `(O, C / groups, KH, KW)` of one element type
    give `(N, O, OH, OW)`; the channels split into `groups` (which divides
    `C` and `O`), and output channel `o` sees the input channels of its
    group. The input is padded with zeros. f16 and bf16 accumulate in f32.
    `jeet-decompose` rewrites it as a zero `pad`, an `im2col` of the
    windows and a `matmul` between reshapes, so the CPU and GPU matmul
    kernels compute it; `jeet-sink-reshapes` then lets an elementwise
    epilogue (bias, activation) join that matmul's kernel.

    ```mlir
    %y = jeet.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Jeet_NumericTensor:$input, Jeet_NumericTensor:$filter,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilations, I64Attr:$groups);
  let results = (outs Jeet_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter attr-dict `:` type($input) `,` type($filter) `->`
    type($result)
  }];
}

def Jeet_Im2colOp : Jeet_Op<"im2col", [Pure, InferTypeOpAdaptor]> {
  let summary = "The sliding windows of an NCHW tensor, one column each";
  let description = [{
    The windows of `kernel_shape` (KH, KW) elements of each channel of an
    input `(N, C, H, W)`, taken every `strides` elements with `dilations`
    between window elements (no padding: pad the input first), as
    `(N, C, KH, KW, OH, OW)`: element `(n, c, kh, kw, oh, ow)` is
    `input[n, c, oh * sh + kh * dh, ow * sw + kw * dw]`. The decompositions
    of `conv2d` and of the poolings take their windows with this op on the
    padded input. It is lowered to one `linalg.generic` whose input map is
    that affine function of the loops, so the copy runs as vector loads
    along `ow` (stride 1) rather than one indexed load per element.

    ```mlir
    %cols = jeet.im2col %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x3x10x10xf32> -> tensor<1x3x3x3x8x8xf32>
    ```
  }];
  let arguments = (ins Jeet_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations);
  let results = (outs Jeet_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

class Jeet_Pool2dOp<string mnemonic, string what>
    : Jeet_Op<mnemonic, [Pure, InferTypeOpAdaptor,
                         DeclareOpInterfaceMethods<Jeet_CompositeOpInterface>]> {
  let summary = "2-D " # what # " pooling of an NCHW tensor";
  let arguments = (ins Jeet_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilations);
  let results = (outs Jeet_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Jeet_MaxPool2dOp : Jeet_Pool2dOp<"max_pool2d", "max"> {
  let description = [{
    The maximum of each `kernel_shape` window of each channel of an input
    `(N, C, H, W)`, as PyTorch's `max_pool2d` and ONNX's `MaxPool`: padding
    is never the maximum (it is -inf), and NaN propagates.
    `jeet-decompose` rewrites a window of up to 49 taps as the elementwise
    `max` of the input padded with -inf (a `pad`, none without padding)
    viewed at each of the kernel's offsets (strided `slice`s: no copy);
    larger windows as a `reduce_max` over the window dimensions of a
    `reshape` of the input where the windows tile it (strides equal to the
    kernel, no padding or dilation), else of an `im2col` of the windows.

    ```mlir
    %y = jeet.max_pool2d %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
    ```
  }];
}

def Jeet_AvgPool2dOp : Jeet_Op<"avg_pool2d",
    [Pure, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<Jeet_CompositeOpInterface>]> {
  let summary = "2-D average pooling of an NCHW tensor";
  let description = [{
    The mean of each `kernel_shape` window of each channel of an input
    `(N, C, H, W)`, as PyTorch's `avg_pool2d` and ONNX's `AveragePool`
    (`dilations` as the max pooling's): with `count_include_pad` (PyTorch's
    default) the padding counts as zeros in the mean; without it (ONNX's
    default) only the window's input elements count. f16 and bf16 sum in
    f32. `jeet-decompose` rewrites a window of up to 49 taps as the sum of
    the input padded with zeros viewed at each of the kernel's offsets (as
    `max_pool2d`), divided by the window size (without padding, or with
    `count_include_pad`) or by a constant of each window's count; larger
    windows as a `reduce_sum` over the window dimensions of a `reshape` of
    the input where the windows tile it (strides equal to the kernel, no
    padding or dilation), else of an `im2col` of the windows.

    ```mlir
    %y = jeet.avg_pool2d %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, count_include_pad = false} : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Jeet_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad);
  let results = (outs Jeet_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Conversion
//===----------------------------------------------------------------------===//

def Jeet_CastOp : Jeet_Op<"cast",
    [Pure, Jeet_CheapScalar,
     DeclareOpInterfaceMethods<Jeet_ElementwiseOpInterface>]> {
  let summary = "Converts the element type of a tensor";
  let description = [{
    Converts every element to the result's element type: floats round to
    nearest even, float to integer truncates toward zero, integer to float
    rounds to nearest, a wider integer wraps to a narrower one (`i64` to
    `i32` keeps the low 32 bits). As numpy does, a number becomes the
    boolean `x != 0` (NaN is true) and a boolean becomes 0 or 1. Shapes must
    agree.

    ```mlir
    %h = jeet.cast %x : tensor<4xf32> -> tensor<4xf16>
    %b = jeet.cast %i : tensor<4xi64> -> tensor<4xi1>
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
