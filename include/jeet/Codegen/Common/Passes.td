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
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Byte alignment of every offset in the arena (a power of two; "
           "the runtime's allocations are 256-byte aligned, which vector "
           "accesses rely on)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"
  ];
}

#endif // JEET_CODEGEN_COMMON_PASSES_TD
