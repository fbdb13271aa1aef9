// Options out of range are rejected, naming the supported values.
// RUN: not jeet-opt %s --jeet-gpu-pipeline=chip=sm_70 2>&1 | FileCheck %s
// RUN: not jeet-opt %s --jeet-gpu-pipeline=format=cubin 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not jeet-opt %s --jeet-gpu-pipeline=block-size=100 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not jeet-opt %s --jeet-gpu-pipeline=target=sass 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not jeet-opt %s --jeet-gpu-kernel-pipeline=target=cuda 2>&1 | FileCheck %s --check-prefix=KERNEL-TARGET
// The emulation target has no chip or PTX format: those options are ignored.
// RUN: jeet-opt %s --jeet-gpu-pipeline="target=emulator chip=sm_70 format=cubin" | FileCheck %s --check-prefix=EMULATOR

// CHECK: error: unsupported GPU chip 'sm_70'; supported chips: sm_80, sm_86, sm_89, sm_90
// FORMAT: error: unsupported GPU binary format 'cubin'; supported formats: isa, bin, fatbin
// BLOCK: error: block-size must be a multiple of 32 between 32 and 1024, got 100
// TARGET: error: unknown GPU target 'sass'; supported targets: ptx, emulator
// KERNEL-TARGET: error: unknown GPU target 'cuda'; supported targets: ptx, emulator
// EMULATOR: gpu.binary @jeet_kernels [#gpu.object<#jeet_emu.target, bin =
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "jeet.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
