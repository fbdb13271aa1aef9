// REQUIRES: gpu-emulator, binutils-ld
// The emulator's objects link with whichever linker is found: lld next to
// LLVM or on PATH, else GNU ld (binutils) as on a machine without lld.
// JEET_EMULATOR_LINKER chooses one; GNU ld's object loads and runs on the
// emulator like lld's.
// DEFINE: %{run} = jeet-run %s --device=gpu --input=2x3xf32=1,-2,3,-4,5,-6
// RUN: env JEET_EMULATOR_LINKER=ld %on_emulator %{run} | FileCheck %s
// RUN: env JEET_EMULATOR_LINKER=ld jeet-translate --jeet-to-emulator-object %s -o %t.so
// RUN: llvm-readelf -h %t.so | FileCheck %s --check-prefix=ELF
// CHECK: 2x3xf32={{\[\[}}2 0 6][0 10 0]]
// ELF: Type: DYN (Shared object file)

// A linker that is not there is named.
// RUN: env JEET_EMULATOR_LINKER=%t.no-such-linker not jeet-translate --jeet-to-emulator-object %s -o %t.bad.so 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: cannot link the kernels of the GPU emulation target: JEET_EMULATOR_LINKER='{{.*}}no-such-linker' is not an executable program
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = jeet.relu %x : tensor<2x3xf32>
  %1 = jeet.add %0, %0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
