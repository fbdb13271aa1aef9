//===- GpuPasses.td - Jeet's GPU kernel passes -------------*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CONVERSION_GPUPASSES_TD
#define JEET_CONVERSION_GPUPASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// JeetToGPU
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
    Tile sizes: 64x64 output tiles for groups with a matmul, up to 256
    outputs per tile for reductions (one thread each), and up to 1024
    elements along the innermost dimensions for elementwise groups. A group
    with no parallel dimension (a reduction to a scalar) is one tile.

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
    `jeet-gpu-form-kernels`) becomes one `gpu.launch`: its iterations are the
    blocks (linearized into the x dimension of the grid), and the linalg ops
    of its body become loops that the block's `threads` threads share,
    thread `t` taking the linearized iterations `t, t + threads, ...` of the
    parallel dimensions (consecutive threads touch consecutive elements of
    the innermost dimension, so accesses coalesce; the bound of the loop is
    the check for partial tiles). Reduction dimensions stay sequential inside
    a thread, which keeps its outputs in registers across them and stores
    them once; an op with no parallel dimension runs on thread 0;
    `gpu.barrier` separates the ops of the body. Buffers allocated
    inside a tile (a matmul accumulator before its epilogue) become
    workgroup (shared) memory. Top-level linalg ops left outside any forall
    become a launch of one block.

    On the host side, `memref.alloc`/`memref.dealloc` become
    `gpu.alloc`/`gpu.dealloc` (the runtime's caching allocator), contiguous
    `memref.copy` becomes `gpu.memcpy`, and `memref.get_global` used by a
    kernel is moved into it.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::ub::UBDialect"
  ];
}

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

#endif // JEET_CONVERSION_GPUPASSES_TD
