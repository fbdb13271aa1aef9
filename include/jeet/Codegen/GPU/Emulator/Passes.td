//===- Passes.td - Kernel code generation for the emulator -*- tablegen -*-===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#ifndef JEET_CODEGEN_GPU_EMULATOR_PASSES_TD
#define JEET_CODEGEN_GPU_EMULATOR_PASSES_TD

include "mlir/Pass/PassBase.td"

def JeetGpuLowerToEmulatorPass
    : Pass<"jeet-gpu-lower-to-emulator", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lowers the kernels of a gpu.module to the LLVM dialect for "
                "the host, calling the CUDA driver emulator";
  let description = [{
    The emulation target's counterpart of `convert-gpu-to-nvvm`: it takes a
    `gpu.module` after every Jeet GPU pass and lowers its kernels for the
    host CPU following the kernel ABI of `include/jeet/Emulator/KernelABI.h`,
    so that `libjeet_cuda_emulator.so` can run each kernel one emulated
    thread at a time:

    - each kernel reads its thread's state once, at entry
      (`__jeet_emu_thread_state()`); `gpu.thread_id`, `gpu.block_id`,
      `gpu.block_dim`, `gpu.grid_dim` and `gpu.lane_id` read its fields;
    - `gpu.barrier` calls `__jeet_emu_barrier(site)` and `gpu.shuffle`
      calls `__jeet_emu_shuffle32` (f32 through bitcasts, 64-bit values as
      two 32-bit halves);
    - workgroup attributions become views at static offsets (16-byte
      aligned) into the block's shared memory, the thread state's `shared`,
      and `gpu.dynamic_shared_memory` a view of the bytes after them;
      private attributions become stack allocations;
    - with `checks` (the default), every load and store of global memory
      (`memref.load/store`, `vector.load/store` with their alignment) is
      preceded by `__jeet_emu_check_global(address, bytes, flags,
      alignment, site)` and every access of workgroup memory by
      `__jeet_emu_check_shared`; constants (`memref.get_global`) and private
      memory are not checked. `site` names the op and its location,
      e.g. "vector.load at graph.mlir:3:8";
    - each kernel `K` keeps its name (with `gpu.kernel`, so launches still
      find it) and gets the exported entry `__jeet_emu_kernel_K(void
      **params)`, which unpacks the launch's parameters as `gpu-to-llvm`
      passes them (memref descriptors expanded into their fields, in order),
      with `__jeet_emu_num_params_K`, `__jeet_emu_param_sizes_K` and
      `__jeet_emu_static_shared_bytes_K`; the module defines
      `__jeet_emu_abi_version`.

    Everything else in the module (arith, math, memref, vector, cf, index)
    is lowered with the upstream conversions to LLVM, the GPU address spaces
    becoming the host's single one; math functions without an LLVM
    intrinsic become libm calls. The pass runs where `convert-gpu-to-nvvm`
    does in `jeet-gpu-pipeline`: after `convert-scf-to-cf`,
    `expand-strided-metadata` and `lower-affine`.

    Before:
    ```mlir
    gpu.func @k(%a: memref<256xf32>) workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<256xf32>
      memref.store %v, %tile[%t] : memref<256xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      gpu.return
    }
    ```
    After:
    ```mlir
    llvm.func internal @k(%alloc: !llvm.ptr, %aligned: !llvm.ptr, %offset: i64, %size: i64, %stride: i64) attributes {gpu.kernel} {
      %state = llvm.call @__jeet_emu_thread_state() : () -> !llvm.ptr
      ... %t = llvm.load (thread id x of %state)
      ... %p = llvm.getelementptr %aligned[%t]
      llvm.call @__jeet_emu_check_global(%p, %c4, %read, %c4, %site_load) : ...
      %v = llvm.load %p : !llvm.ptr -> f32
      ... %q = the element %t of the tile at offset 0 of the state's shared memory
      llvm.call @__jeet_emu_check_shared(%q, %c4, %write, %site_store) : ...
      llvm.store %v, %q : f32, !llvm.ptr
      llvm.call @__jeet_emu_barrier(%site_barrier) : (!llvm.ptr) -> ()
      llvm.return
    }
    llvm.func @__jeet_emu_kernel_k(%params: !llvm.ptr) { ... llvm.call @k(...) }
    llvm.mlir.global external constant @__jeet_emu_num_params_k(5 : i64) : i64
    llvm.mlir.global external constant @__jeet_emu_param_sizes_k(dense<8> : tensor<5xi64>) : !llvm.array<5 x i64>
    llvm.mlir.global external constant @__jeet_emu_static_shared_bytes_k(1024 : i64) : i64
    llvm.mlir.global external constant @__jeet_emu_abi_version(1 : i32) : i32
    ```
  }];
  let options = [
    Option<"checks", "checks", "bool", /*default=*/"true",
           "Check every global and workgroup memory access through the "
           "emulator (__jeet_emu_check_global/shared)">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // JEET_CODEGEN_GPU_EMULATOR_PASSES_TD
