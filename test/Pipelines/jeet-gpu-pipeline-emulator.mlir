// The emulation target changes the kernels' code generation alone: the
// kernel stages give the same IR for both targets, and the gpu.module that
// reaches the kernels' lowering (convert-gpu-to-nvvm for PTX,
// jeet-gpu-lower-to-emulator for the emulator) is the same but for its
// target attribute.
// RUN: jeet-opt %s --jeet-gpu-kernel-pipeline=target=ptx -o %t.kernels.ptx.mlir
// RUN: jeet-opt %s --jeet-gpu-kernel-pipeline=target=emulator -o %t.kernels.emulator.mlir
// RUN: diff %t.kernels.ptx.mlir %t.kernels.emulator.mlir
// RUN: jeet-opt %s --jeet-gpu-pipeline=target=ptx --mlir-print-ir-before=convert-gpu-to-nvvm -o /dev/null 2>&1 \
// RUN:   | sed -e '/IR Dump Before/d' -e 's/\[#nvvm.target<[^]]*>\]/[TARGET]/' > %t.before.ptx.mlir
// RUN: jeet-opt %s --jeet-gpu-pipeline=target=emulator --mlir-print-ir-before=jeet-gpu-lower-to-emulator -o /dev/null 2>&1 \
// RUN:   | sed -e '/IR Dump Before/d' -e 's/\[#jeet_emu.target\]/[TARGET]/' > %t.before.emulator.mlir
// RUN: diff %t.before.ptx.mlir %t.before.emulator.mlir
// RUN: FileCheck %s --input-file=%t.before.emulator.mlir --check-prefix=BEFORE
// RUN: jeet-opt %s --jeet-gpu-pipeline=target=emulator | FileCheck %s

// What both lowerings receive: Jeet's kernels, with workgroup memory,
// barriers and warp shuffles.
// BEFORE: gpu.module @jeet_kernels [TARGET] {
// BEFORE: gpu.func @main_kernel(
// BEFORE-SAME: workgroup(
// BEFORE: gpu.barrier
// BEFORE: gpu.func @main_kernel_0(
// BEFORE: gpu.shuffle xor

// The host code is the same as for PTX (launches through the runtime's ABI
// at translation); the binary holds the emulator's shared object.
// CHECK-LABEL: llvm.func @main(
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @jeet_kernels::@main_kernel
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @jeet_kernels::@main_kernel_0
// CHECK: gpu.binary @jeet_kernels [#gpu.object<#jeet_emu.target, bin = "\7FELF
func.func @main(%x: tensor<64x256xf32>, %w: tensor<256x64xf32>) -> tensor<64xf32> {
  %0 = jeet.matmul %x, %w : tensor<64x256xf32>, tensor<256x64xf32> -> tensor<64x64xf32>
  %1 = jeet.reduce_max %0 {axes = array<i64: 1>} : tensor<64x64xf32> -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
