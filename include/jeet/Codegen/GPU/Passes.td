//===- Passes.td - GPU code generation passes --------------*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CODEGEN_GPU_PASSES_TD
#define JEET_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Kernels: formation on tensors, mapping to blocks and threads on buffers
// (lib/Codegen/GPU/FormKernels.cpp, MapKernels.cpp and the strategies that
// Strategies.h declares)
//===----------------------------------------------------------------------===//

def JeetGpuFormKernelsPass : Pass<"jeet-gpu-form-kernels", "::mlir::ModuleOp"> {
  let summary = "Lowers each jeet.fusion group to one scf.forall over output "
                "tiles, the future kernel";
  let description = [{
    Lowers every `jeet.fusion` group to linalg on tensors (the same lowering
    as `jeet-lower-to-linalg`) and then tiles the group's result over its
    parallel dimensions into one `scf.forall` mapped to GPU blocks
    (`#gpu.block<linear_dim_i>`), fusing every other op of the group into the
    tile. One forall is one kernel: the fill, the matmul and its epilogue, or
    the fill and the reduction with its prologue, all run in the same tile.
    Tile sizes: 64x64 output tiles for groups with a matmul, 8 rows per
    tile for row reductions (one reduced dimension, innermost in every input
    that it indexes: a warp per row), up to 256 outputs per tile for other
    reductions (one thread each), and up to 1024
    elements along the innermost dimensions for elementwise groups. A group
    with no parallel dimension (a reduction to a scalar) is one tile.

    A multi-reduction group (`jeet-fuse` with `multi-reduction`: softmax,
    layernorm) whose reductions reduce the same trailing dimensions is one
    kernel: its last row op is tiled over blocks of 8 rows (4, 2 or 1 where
    8 rows would pass 32 KiB) with the reduced dimensions whole, the
    reductions (a warp per row) and the row ops fused into the tile, and the
    group inputs that several ops of the tile read (the rows) copied once
    into a tile tensor, which becomes workgroup memory: a row is read from
    global memory once, within 32 KiB of staged rows per block. A longer
    row (one per block, shared by its warps) is not staged: each pass over
    it reads it from global memory, where the first pass left it in L2. A
    group of a single such row is split at its reductions (below), so that
    its last row ops run on many blocks rather than one.
    The GPU pipeline runs `jeet-fuse` with `max-row-bytes` set and no limit,
    so that reductions over leading axes keep a group per reduction (three
    kernels for a softmax over the first axis). Other
    multi-reduction groups (from `jeet-fuse` without `max-row-bytes`:
    reductions over leading axes) are split at their reductions: a reduction
    is not fused into the ops over its own rows, so it is a kernel of its
    own, launched before its readers.

    A producer whose tile would be larger than a block's workgroup memory
    (48 KiB) is not fused into the tile: it is a kernel of its own, launched
    first. A kernel formed before (a forall) is read, never cloned into a
    tile.

    A tile's temporaries are its own: every `tensor.empty` inside a kernel's
    forall becomes a `bufferization.alloc_tensor`, which no later CSE merges
    with an equal `tensor.empty` outside. Merged, the tile would write a
    buffer that the other blocks write too, or that an earlier forall of the
    same kernel reads on other blocks (bufferization orders the foralls of a
    kernel one after another; the blocks of one launch run at once).

    Before:
    ```mlir
    %r = jeet.fusion(%a, %b) : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32> {
    ^bb0(%x: tensor<4096xf32>, %y: tensor<4096xf32>):
      %s = jeet.add %x, %y : tensor<4096xf32>, tensor<4096xf32> -> tensor<4096xf32>
      jeet.yield %s : tensor<4096xf32>
    }
    ```
    After:
    ```mlir
    %r = scf.forall (%i) = (0) to (4096) step (1024) shared_outs(%o = %e) -> (tensor<4096xf32>) {
      ... linalg.generic on the 1024-element slices ...
    } {mapping = [#gpu.block<linear_dim_0>]}
    ```
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def JeetGpuMapKernelsPass : Pass<"jeet-gpu-map-kernels", "::mlir::func::FuncOp"> {
  let summary = "Turns each bufferized kernel forall into one gpu.launch and "
                "host buffers into gpu.alloc/gpu.dealloc";
  let description = [{
    Runs after bufferization. Every top-level `scf.forall` (a kernel formed by
    `jeet-gpu-form-kernels`; the foralls that share its `jeet.kernel` value
    together) becomes one `gpu.launch`: its iterations are the blocks
    (linearized into the x dimension of the grid; block `b` runs tile `b` of
    each of the kernel's foralls, with a barrier between), and the linalg ops
    of its body become loops that the block's `threads` threads share,
    thread `t` taking the linearized iterations `t, t + threads, ...` of the
    parallel dimensions (consecutive threads touch consecutive elements of
    the innermost dimension, so accesses coalesce; the bound of the loop is
    the check for partial tiles). Reduction dimensions stay sequential inside
    a thread, which keeps its outputs in registers across them and stores
    them once; an op with no parallel dimension runs on thread 0. A row
    reduction (one reduced dimension, innermost in its inputs, a combiner
    with a neutral element on 32-bit values) takes a warp per row instead:
    warp `w` takes rows `w, w + warps, ...`, lane `l` folds the row's
    elements `l, l + 32, ...` (or, where the inputs allow 16-byte accesses,
    its vectors of 4 floats `l, l + 32, ...`), a butterfly of
    `gpu.shuffle xor` combines the lanes and lane 0 folds the result into
    the output. When the tile has
    fewer rows than the block has warps (both known), each row takes
    warps/rows warps: thread `t` of a row's threads folds the elements `t,
    t + threads, ...`, each warp's butterfly, a slot per warp in workgroup
    memory, a barrier, and the row's first thread folds its warps' slots into
    the output;
    `gpu.barrier` separates the ops of the body. Buffers allocated
    inside a tile become workgroup (shared) memory.

    Matmuls (a contraction with one K dimension, after the fill of its
    accumulator, an output tile of at most 64x64) are register-tiled when
    `threads` is 256: for each K-tile, the threads stage the 64x16 tile of A
    and the 16x64 tile of B in workgroup memory (coalesced loads clamped into
    the operands, zero outside them), `gpu.barrier`, each thread accumulates
    a 4x4 register tile (rows `ty + 16 i`, columns `4 tx + j`, read from the
    B tile with one vector load a step) with FMAs,
    `gpu.barrier`. Batch dimensions are a loop around it. f16/bf16 operands
    accumulate in f32. The elementwise op that is the only reader of a
    temporary accumulator (the epilogue) is applied to the register tile,
    in bounds, before the store, and the accumulator buffer disappears.
    Top-level linalg ops left outside any forall become a launch of one
    block.

    The barrier between a block's tiles orders nothing across blocks: a
    forall of a kernel that reads or writes a buffer that an earlier forall
    of the same launch writes (or reads, for a write) other than through the
    same tile (the same subview, as the same function of the induction
    variables, over the same iteration space) starts a launch of its own.
    `jeet-gpu-form-kernels` forms no such kernel; this is the check under
    it, on buffers.

    On the host side, `memref.alloc`/`memref.dealloc` become
    `gpu.alloc`/`gpu.dealloc` (the runtime's caching allocator), contiguous
    `memref.copy` becomes `gpu.memcpy`. (`jeet-gpu-sink-globals` moves the
    `memref.get_global` that a kernel reads into it, before outlining.)
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (1 to 1024)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::ub::UBDialect"
  ];
}

//===----------------------------------------------------------------------===//
// Globals read by kernels (lib/Codegen/GPU/SinkGlobals.cpp)
//===----------------------------------------------------------------------===//

def JeetGpuSinkGlobalsPass : Pass<"jeet-gpu-sink-globals", "::mlir::func::FuncOp"> {
  let summary = "Moves each memref.get_global a gpu.launch reads into it";
  let description = [{
    Runs right before `gpu-kernel-outlining`. A constant tensor is a
    `memref.global` of the host module; a `gpu.launch` that reads one through
    a `memref.get_global` defined above it would pass the host's address to
    the kernel as an argument. This pass clones the `memref.get_global` into
    the launch's body for its uses there; outlining then takes the global
    into the kernel's `gpu.module`, where it lives in device memory.
    Canonicalization and CSE between `jeet-gpu-map-kernels` and outlining
    merge such a clone with an identical `memref.get_global` above the launch
    (the same global copied to a graph output too, say), so the sinking
    happens here, after them. A view of a global that the launch reads (the
    taps of a constant depthwise filter: `memref.subview`s and reshapes,
    any `ViewLikeOpInterface` op) is cloned into it with its
    `memref.get_global`, so that the kernel makes the view of the device's
    copy (a dynamic offset of the view, defined above the launch, becomes
    the kernel's argument instead of the host's address).

    Before:
    ```mlir
    %g = memref.get_global @cst : memref<4xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
      %e = memref.load %g[%c0] : memref<4xf32>
      ...
    }
    memref.copy %g, %out : memref<4xf32> to memref<4xf32>
    ```
    After:
    ```mlir
    %g = memref.get_global @cst : memref<4xf32>
    gpu.launch ... {
      %g1 = memref.get_global @cst : memref<4xf32>
      %e = memref.load %g1[%c0] : memref<4xf32>
      ...
    }
    memref.copy %g, %out : memref<4xf32> to memref<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
}

//===----------------------------------------------------------------------===//
// Outlined kernels (lib/Codegen/GPU/MergeModules.cpp)
//===----------------------------------------------------------------------===//

def JeetGpuMergeModulesPass : Pass<"jeet-gpu-merge-modules", "::mlir::ModuleOp"> {
  let summary = "Moves every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` makes one `gpu.module` per kernel; this pass moves
    all kernels (and the globals they read) into the first one and points
    every `gpu.launch_func` at it, so that a graph is one PTX module, loaded
    once, with one `.entry` per kernel.

    Before:
    ```mlir
    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.launch_func @f_kernel_0::@f_kernel_0 ...
    gpu.module @f_kernel { gpu.func @f_kernel(...) kernel {...} }
    gpu.module @f_kernel_0 { gpu.func @f_kernel_0(...) kernel {...} }
    ```
    After:
    ```mlir
    gpu.launch_func @f_kernel::@f_kernel ...
    gpu.launch_func @f_kernel::@f_kernel_0 ...
    gpu.module @f_kernel {
      gpu.func @f_kernel(...) kernel {...}
      gpu.func @f_kernel_0(...) kernel {...}
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def JeetGpuAlignWorkgroupMemoryPass
    : Pass<"jeet-gpu-align-workgroup-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Aligns each kernel's workgroup memory to 16 bytes";
  let description = [{
    Runs after `gpu-kernel-outlining`: every workgroup attribution of a
    `gpu.func` gets `llvm.align = 16` (`.shared .align 16` in the PTX, where
    `convert-gpu-to-nvvm` would leave the element's alignment), unless it
    asks for more. `jeet-gpu-map-kernels` counts on it: it reads and writes
    a tile's buffers in workgroup memory (the staged rows of a softmax or
    layernorm kernel) with 16-byte vector accesses, which need a 16-byte
    aligned base (`ld.shared.v4.f32`).

    Before:
    ```mlir
    gpu.module @kernels {
      gpu.func @rows(%out: memref<1x8192xf32>)
          workgroup(%rows: memref<1x8192xf32, #gpu.address_space<workgroup>>)
          kernel {
        gpu.return
      }
    }
    ```
    After:
    ```mlir
    gpu.module @kernels {
      gpu.func @rows(%out: memref<1x8192xf32>)
          workgroup(%rows: memref<1x8192xf32, #gpu.address_space<workgroup>>
                    {llvm.align = 16 : i64})
          kernel {
        gpu.return
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Host code (lib/Codegen/GPU/CallerStream.cpp)
//===----------------------------------------------------------------------===//

def JeetGpuCallerStreamPass : Pass<"jeet-gpu-caller-stream", "::mlir::func::FuncOp"> {
  let summary = "Makes a host function queue its GPU work on a stream its "
                "caller gives and return without waiting";
  let description = [{
    Runs after `gpu-async-region`, on the public functions of the host:
    there, the function creates a stream (`gpu.wait async` with no
    dependency, which `gpu-to-llvm` lowers to `mgpuStreamCreate`), chains
    every launch, copy and allocation on it, and waits for it at the end
    (`gpu.wait` on the last token: `mgpuStreamSynchronize` and
    `mgpuStreamDestroy`). This pass gives the function a new last argument,
    `!gpu.async.token {jeet.stream}`, which `gpu-to-llvm` turns into the
    stream pointer its caller passes; the chain starts from it, and the wait
    at the end goes. The function then queues its work in order on the
    caller's stream and returns at once: the caller decides when to wait,
    and executions queued one after another on a stream need no host
    synchronisation between them.

    The host must not wait in the middle of the function (a `gpu.wait` that
    is not its last op before `return`), and the work must form one chain
    (no `gpu.wait async` joining several tokens): both are errors.

    Before:
    ```mlir
    func.func @main(%a: memref<256xf32>, %out: memref<256xf32>) {
      %0 = gpu.wait async
      %1 = gpu.launch_func async [%0] @kernels::@k ... args(%a : memref<256xf32>, %out : memref<256xf32>)
      gpu.wait [%1]
      return
    }
    ```
    After:
    ```mlir
    func.func @main(%a: memref<256xf32>, %out: memref<256xf32>,
                    %stream: !gpu.async.token {jeet.stream}) {
      %1 = gpu.launch_func async [%stream] @kernels::@k ... args(%a : memref<256xf32>, %out : memref<256xf32>)
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // JEET_CODEGEN_GPU_PASSES_TD
