// The emulation target's gpu.binary holds a host ELF shared object that
// exports the kernel ABI of include/jeet/Emulator/KernelABI.h: one entry and
// its metadata per kernel, the ABI version; the kernels themselves are not
// exported, and the emulator's functions (and libm's) are left to resolve
// when the emulator loads it.
// RUN: jeet-translate --jeet-to-emulator-object %s -o %t.so
// RUN: llvm-readelf -h %t.so | FileCheck %s --check-prefix=ELF
// RUN: llvm-nm -D --defined-only %t.so | FileCheck %s --check-prefix=DEFINED
// RUN: llvm-nm -D --undefined-only %t.so | FileCheck %s --check-prefix=UNDEFINED
// RUN: llvm-nm -D %t.so | FileCheck %s --check-prefix=HIDDEN

// ELF: Class: ELF64
// ELF: Type: DYN (Shared object file)
// ELF-NOT: NVIDIA CUDA
// ELF: Machine:

// DEFINED-DAG: R __jeet_emu_abi_version
// DEFINED-DAG: T __jeet_emu_kernel_main_kernel{{$}}
// DEFINED-DAG: R __jeet_emu_num_params_main_kernel{{$}}
// DEFINED-DAG: R __jeet_emu_param_sizes_main_kernel{{$}}
// DEFINED-DAG: R __jeet_emu_static_shared_bytes_main_kernel{{$}}
// DEFINED-DAG: T __jeet_emu_kernel_main_kernel_0{{$}}
// DEFINED-DAG: R __jeet_emu_num_params_main_kernel_0{{$}}
// DEFINED-DAG: R __jeet_emu_param_sizes_main_kernel_0{{$}}
// DEFINED-DAG: R __jeet_emu_static_shared_bytes_main_kernel_0{{$}}
// HIDDEN-NOT: {{ main_kernel(_0)?$}}

// UNDEFINED-DAG: U __jeet_emu_barrier
// UNDEFINED-DAG: U __jeet_emu_check_global
// UNDEFINED-DAG: U __jeet_emu_check_shared
// UNDEFINED-DAG: U __jeet_emu_shuffle32
// UNDEFINED-DAG: U __jeet_emu_thread_state
// UNDEFINED-DAG: U expf

// In jeet-gpu-pipeline, the object is the gpu.binary's.
// RUN: jeet-opt %s --jeet-gpu-pipeline=target=emulator | FileCheck %s --check-prefix=BINARY
// BINARY: gpu.binary @jeet_kernels [#gpu.object<#jeet_emu.target, bin = "\7FELF

// With format=isa the target gives host assembly instead, for reading.
// RUN: jeet-opt %s --pass-pipeline='builtin.module(jeet-gpu-kernel-pipeline, convert-scf-to-cf, expand-strided-metadata, lower-affine, jeet-emulator-attach-target, gpu.module(jeet-gpu-lower-to-emulator), gpu-module-to-binary{format=isa})' | FileCheck %s --check-prefix=ISA
// ISA: gpu.binary @jeet_kernels [#gpu.object<#jeet_emu.target, assembly = "
// ISA-SAME: __jeet_emu_kernel_main_kernel:
func.func @main(%x: tensor<64x256xf32>, %w: tensor<256x64xf32>) -> (tensor<64x64xf32>, tensor<64xf32>) {
  %0 = jeet.matmul %x, %w : tensor<64x256xf32>, tensor<256x64xf32> -> tensor<64x64xf32>
  %1 = jeet.exp %0 : tensor<64x64xf32>
  %2 = jeet.reduce_max %1 {axes = array<i64: 1>} : tensor<64x64xf32> -> tensor<64xf32>
  return %1, %2 : tensor<64x64xf32>, tensor<64xf32>
}
