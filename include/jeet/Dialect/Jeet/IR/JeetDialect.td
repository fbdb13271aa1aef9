//===- JeetDialect.td - The jeet dialect -------------------*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_DIALECT_JEET_IR_JEETDIALECT_TD
#define JEET_DIALECT_JEET_IR_JEETDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Jeet_Dialect : Dialect {
  let name = "jeet";
  let summary = "Declarative tensor graphs with value semantics";
  let description = [{
    The `jeet` dialect captures a tensor graph as it was declared by a
    frontend: elementwise arithmetic with numpy broadcasting, matrix products,
    shape manipulation, reductions and a few composites. Every op works on
    statically shaped builtin ranked tensors of `f32`, `f16`, `bf16`, `i32`,
    `i64` or `i1` (booleans: the results of comparisons) and has value
    semantics; each op says which of these it takes. `jeet.fusion` groups
    ops into one kernel; it is made by the `jeet-fuse` pass.
  }];
  let cppNamespace = "::jeet";
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

// Every element type of the dialect: ops that move or convert elements
// (shape ops, constants, cast, select, concat, ...) take all of them.
def Jeet_Tensor : StaticShapeTensorOf<[F32, F16, BF16, I32, I64, I1]>;
// Numbers: the element types of arithmetic.
def Jeet_NumericTensor : StaticShapeTensorOf<[F32, F16, BF16, I32, I64]>;
def Jeet_FloatTensor : StaticShapeTensorOf<[F32, F16, BF16]>;
def Jeet_IntegerTensor : StaticShapeTensorOf<[I32, I64]>;
// Booleans, and integers for the bitwise form of the logical ops.
def Jeet_LogicalTensor : StaticShapeTensorOf<[I1, I32, I64]>;
def Jeet_BoolTensor : StaticShapeTensorOf<[I1]>;

// Every tensor an op takes, returns or holds in its regions is within Jeet's
// size limits (jeet/Limits.h): rank 64 at most, and at most 2^40 elements
// counting the non-zero dimensions only, so that element and byte counts
// never overflow and no loop runs 2^63 times over an empty tensor.
def Jeet_WithinSizeLimits : NativeOpTrait<"WithinSizeLimits"> {
  let cppNamespace = "::jeet";
}

// An elementwise op whose scalar function is one cheap instruction or about
// that (an add, a product, a compare, a select, a conversion): a loop nest
// computes a short chain of them again from the tensors it reads rather than
// reading their result from memory, which costs about as much. Divisions,
// powers, remainders and transcendentals do not have it.
def Jeet_CheapScalar : NativeOpTrait<"CheapScalar"> {
  let cppNamespace = "::jeet";
}

#endif // JEET_DIALECT_JEET_IR_JEETDIALECT_TD
