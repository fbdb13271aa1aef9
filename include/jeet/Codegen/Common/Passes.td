//===- Passes.td - Code generation passes every device shares -*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CODEGEN_COMMON_PASSES_TD
#define JEET_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Memory (lib/Codegen/Common/PlanMemory.cpp)
//===----------------------------------------------------------------------===//

def JeetPlanMemoryPass : Pass<"jeet-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Places a graph's intermediate buffers in one arena at "
                "offsets planned from their liveness";
  let description = [{
    Runs after bufferization with frees right after last use: on the CPU on
    `memref.alloc`/`memref.dealloc`, on the GPU on the
    `gpu.alloc`/`gpu.dealloc` of the host function (after
    `jeet-gpu-map-kernels`). In each public function that nothing in the
    module calls, every statically shaped buffer allocated at the top level
    of the body and freed once there (an intermediate) lives from its
    allocation to its free. The pass gives each one an offset in one arena
    so that buffers alive at the same time never overlap: buffers are
    placed largest first, each at the lowest offset, a multiple of
    `alignment` bytes, where it overlaps no buffer placed before it whose
    lifetime overlaps its own (a buffer freed before another is allocated
    may share its space). The arena becomes a new last argument of the
    function, `memref<Nxi8> {jeet.arena}`, which the caller supplies; every
    intermediate becomes a `memref.view` into it, and its allocation and
    free disappear. A cached execution then allocates nothing.

    With `coalesce` (the default), a buffer copied whole into a contiguous
    slice of another (a concatenation's input into its slice of the result,
    after `concat-as-copies`) and not written after the copy is placed in
    that slice, and the copy disappears: the kernels that compute it write
    the concatenation directly, and later reads of it read the slice. It
    applies where only such copies write the other buffer, into disjoint
    slices, nothing reads it before the last of them, and the slice starts
    a multiple of 64 bytes in; a buffer goes into one other at most, whose
    lifetime then covers its own, and chains (a concatenation copied into
    another) share the outermost buffer's bytes.

    The function gets a `jeet.memory_plan` attribute: `arena_bytes` (N),
    `intermediate_bytes` (the sum of the intermediates' sizes: what
    allocating each would take), `live_bytes_bound` (the most bytes alive
    at one point of the program: no plan can do with less) and `buffers`
    (how many were placed). Sizes count each buffer rounded up to
    `alignment`. Buffers it cannot place (dynamic shapes, freed in a nested
    region or more than once, or not at all) keep their allocation.

    Before:
    ```mlir
    func.func @main(%a: memref<256xf32>, %out: memref<256xf32>) {
      %0 = memref.alloc() : memref<256xf32>
      linalg.exp ins(%a : memref<256xf32>) outs(%0 : memref<256xf32>)
      %1 = memref.alloc() : memref<256xf32>
      linalg.exp ins(%0 : memref<256xf32>) outs(%1 : memref<256xf32>)
      memref.dealloc %0 : memref<256xf32>
      %2 = memref.alloc() : memref<256xf32>
      linalg.exp ins(%1 : memref<256xf32>) outs(%2 : memref<256xf32>)
      memref.dealloc %1 : memref<256xf32>
      linalg.exp ins(%2 : memref<256xf32>) outs(%out : memref<256xf32>)
      memref.dealloc %2 : memref<256xf32>
      return
    }
    ```
    After (`%2` reuses the space of `%0`, freed before it is allocated):
    ```mlir
    func.func @main(%a: memref<256xf32>, %out: memref<256xf32>,
                    %arena: memref<2048xi8> {jeet.arena})
        attributes {jeet.memory_plan = {arena_bytes = 2048 : i64,
                    buffers = 3 : i64, intermediate_bytes = 3072 : i64,
                    live_bytes_bound = 2048 : i64}} {
      %0 = memref.view %arena[%c0][] : memref<2048xi8> to memref<256xf32>
      ...
      %1 = memref.view %arena[%c1024][] : memref<2048xi8> to memref<256xf32>
      ...
      %2 = memref.view %arena[%c0][] : memref<2048xi8> to memref<256xf32>
      ...
    }
    ```
  }];
  let options = [
    Option<"coalesce", "coalesce", "bool", /*default=*/"true",
           "Put a buffer copied whole into a slice of another, and not "
           "written after, in that slice (a concatenation's input)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Byte alignment of every offset in the arena (a power of two; "
           "the runtime's allocations are 256-byte aligned, which vector "
           "accesses rely on)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"
  ];
}

//===----------------------------------------------------------------------===//
// bf16 (lib/Codegen/Common/ExpandBFloat16.cpp)
//===----------------------------------------------------------------------===//

def JeetExpandBFloat16Pass : Pass<"jeet-expand-bf16"> {
  let summary = "Computes bf16 arithmetic in f32 and rounds f32 to bf16 with "
                "integer operations or the target's conversion";
  let description = [{
    Two steps, on arith and vector ops, scalars and vectors alike:

    1. Arithmetic on bf16 (`arith.addf`, `arith.mulf`, ...) and math ops on
       it (`math.floor`, ...) are computed in f32: operands extended, results
       truncated back (MLIR's `arith-emulate-unsupported-floats` patterns
       with bf16 as the source type, then its
       `math-extend-to-supported-types` patterns with f16, f32 and f64
       supported; `math.fma` stays).
    2. Each `arith.truncf` of f32 to bf16 becomes integer operations on the
       float's bits: round to nearest, ties to even
       (`(bits + 0x7fff + ((bits >> 16) & 1)) >> 16`, whose carry into the
       exponent gives the next binade and, past the largest finite bf16,
       infinity); a NaN keeps its sign and payload, made quiet
       (`(bits >> 16) | 0x40`). Subnormal inputs round like every other
       value. Truncations with an explicit rounding mode are left alone.
       Each `arith.extf` of bf16 to f32 becomes the bits shifted into the
       high half (exact), so that LLVM sees no `fpext` of bf16: its
       InstCombine narrows `floor(fpext x)` to a floor on bf16, which the
       back end would truncate again.

    LLVM 22's x86 back end promotes bf16 arithmetic to f32 itself, but lowers
    the `fptrunc` back to bf16 to `vcvtneps2bf16` on hosts with AVX512-BF16
    (Zen 4, Sapphire Rapids), which flushes subnormal inputs and results to
    zero, and elsewhere to a call of `__truncsfbf2` for each element of a
    vector. After this pass every host, the GPU emulator and NVIDIA's
    `cvt.rn.bf16.f32` round alike, and a vector is rounded by vector
    instructions.

    Before:
    ```mlir
    %r = arith.mulf %a, %b : vector<16xbf16>
    ```
    After (constants splatted to vectors):
    ```mlir
    %ia = arith.bitcast %a : vector<16xbf16> to vector<16xi16>
    %ea = arith.extui %ia : vector<16xi16> to vector<16xi32>
    %sa = arith.shli %ea, %c16 : vector<16xi32>
    %wa = arith.bitcast %sa : vector<16xi32> to vector<16xf32>
    ... (%wb from %b likewise)
    %x = arith.mulf %wa, %wb : vector<16xf32>
    %bits = arith.bitcast %x : vector<16xf32> to vector<16xi32>
    %high = arith.shrui %bits, %c16 : vector<16xi32>
    %odd = arith.andi %high, %c1 : vector<16xi32>
    %bias = arith.addi %odd, %c32767 : vector<16xi32>
    %sum = arith.addi %bits, %bias : vector<16xi32>
    %rounded = arith.shrui %sum, %c16 : vector<16xi32>
    %nan = arith.cmpf uno, %x, %x : vector<16xf32>
    %quiet = arith.ori %high, %c64 : vector<16xi32>
    %chosen = arith.select %nan, %quiet, %rounded : vector<16xi1>, vector<16xi32>
    %narrow = arith.trunci %chosen : vector<16xi32> to vector<16xi16>
    %r = arith.bitcast %narrow : vector<16xi16> to vector<16xbf16>
    ```

    With `conversion=hardware` a truncation is the target's own, whose
    conversion flushes subnormal inputs to zero: a lane whose exponent is
    zero (a zero or a subnormal) gets the exponent of the smallest normal
    binade (`bits | 0x00800000`, exact: the mantissa and its low bits stay),
    which converts to a normal bf16, and its result is lowered by that
    binade again (`- 0x80`, which a carry out of the mantissa leaves as the
    smallest normal bf16). Every lane rounds as with `integer`; NaNs as
    `vcvtneps2bf16` makes them quiet, as `integer` does. About half the
    instructions of `integer` on a 16-lane vector:
    ```mlir
    %bits = arith.bitcast %x : vector<16xf32> to vector<16xi32>
    %exponent = arith.andi %bits, %c0x7f800000 : vector<16xi32>
    %tiny = arith.cmpi eq, %exponent, %c0 : vector<16xi32>
    %lifted = arith.ori %bits, %c0x00800000 : vector<16xi32>
    %chosen = arith.select %tiny, %lifted, %bits : vector<16xi1>, vector<16xi32>
    %y = arith.bitcast %chosen : vector<16xi32> to vector<16xf32>
    %t = arith.truncf %y : vector<16xf32> to vector<16xbf16>
    %tb = arith.bitcast %t : vector<16xbf16> to vector<16xi16>
    %lowered = arith.subi %tb, %c0x80 : vector<16xi16>
    %rb = arith.select %tiny, %lowered, %tb : vector<16xi1>, vector<16xi16>
    %r = arith.bitcast %rb : vector<16xi16> to vector<16xbf16>
    ```
    Fewer instructions are not always faster: on Zen 5 the conversion with
    its lift ran chains of bf16 ops 1.3x slower than `integer` and lone
    casts as fast, so `host` and jeet-compile's `--target-cpu` choose
    `integer` there.
  }];
  let options = [
    Option<"conversion", "conversion", "std::string",
           /*default=*/"\"integer\"",
           "How step 2 rounds f32 to bf16: `integer` (the ops above), "
           "`hardware` (the target's conversion, `vcvtneps2bf16`, with "
           "zeros and subnormals lifted into the smallest binade and the "
           "result lowered back, so that they round as `integer` rounds; "
           "for targets with AVX512-BF16 and AVX512-VL or AVX-NE-CONVERT) "
           "or `host` (this machine's choice: `hardware` where it has them, "
           "except on Zen 5, where `integer` is faster on chains of bf16 "
           "ops; else `integer`)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // JEET_CODEGEN_COMMON_PASSES_TD
