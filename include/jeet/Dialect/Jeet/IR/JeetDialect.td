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
    statically shaped builtin ranked tensors of `f32`, `f16`, `bf16` or `i32`
    and has value semantics. `jeet.fusion` groups ops into one kernel; it is
    made by the `jeet-fuse` pass.
  }];
  let cppNamespace = "::jeet";
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Jeet_Tensor : StaticShapeTensorOf<[F32, F16, BF16, I32]>;
def Jeet_FloatTensor : StaticShapeTensorOf<[F32, F16, BF16]>;

// Every tensor an op takes, returns or holds in its regions is within Jeet's
// size limits (jeet/Limits.h): rank 64 at most, and at most 2^40 elements
// counting the non-zero dimensions only, so that element and byte counts
// never overflow and no loop runs 2^63 times over an empty tensor.
def Jeet_WithinSizeLimits : NativeOpTrait<"WithinSizeLimits"> {
  let cppNamespace = "::jeet";
}

#endif // JEET_DIALECT_JEET_IR_JEETDIALECT_TD
