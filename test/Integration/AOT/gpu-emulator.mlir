// GPU artifacts for the emulation target: the same host code as for PTX,
// with the kernels' host shared object embedded instead of PTX. The
// signature says so (no chip or PTX version for the loader to check).
// RUN: rm -rf %t && mkdir -p %t
// RUN: jeet-compile %s -o %t/g.so --device=gpu --gpu-target=emulator --print-signature | FileCheck %s --check-prefix=SIG
// SIG: v1 entry=main device=gpu inputs=4x8xf32,8xf32 outputs=4x8xf32,4xf32 kernels={{[1-9][0-9]*}} format=emulator{{$}}

// RUN: %python %S/Inputs/artifact-emulator-object.py %t/g.so %t/kernels.so | FileCheck %s --check-prefix=EMBEDDED
// RUN: llvm-nm -D --defined-only %t/kernels.so | FileCheck %s --check-prefix=KERNELS
// EMBEDDED: embedded objects=1
// KERNELS-DAG: R __jeet_emu_abi_version
// KERNELS-DAG: T __jeet_emu_kernel_main_kernel

// Unknown targets are named with the supported ones.
// RUN: not jeet-compile %s -o %t/bad.so --device=gpu --gpu-target=sass 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: unknown GPU target 'sass'; supported targets: ptx, emulator
func.func @main(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %0 = jeet.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = jeet.relu %0 : tensor<4x8xf32>
  %2 = jeet.reduce_sum %1 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4xf32>
}
