// GPU artifacts: host code calling the runtime's mgpu* ABI, with the PTX of
// one kernel per fusion group embedded. Compiling needs no GPU; running
// needs one (elsewhere the runtime's reason is reported).
// RUN: rm -rf %t && mkdir -p %t
// RUN: jeet-compile %s -o %t/g.so --device=gpu --print-signature | FileCheck %s --check-prefix=SIG
// SIG: v1 entry=main device=gpu inputs=4x8xf32,8xf32 outputs=4x8xf32,4xf32 kernels={{[1-9][0-9]*}} chip=sm_90 ptx=80 format=isa{{$}}

// As many PTX kernels as the signature counts, and PTX that ptxas accepts.
// RUN: %python %S/Inputs/artifact-ptx.py %t/g.so | FileCheck %s --check-prefix=ENTRIES
// ENTRIES: kernels=[[K:[0-9]+]]
// ENTRIES-NEXT: ptx modules=1 entries=[[K]]
// RUN: %python %S/Inputs/artifact-ptx.py %t/g.so --ptx > %t/g.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t/g.ptx -o %t/g.cubin %}

// The ABI is exported; the module is loaded by jeet_artifact_init (not by a
// constructor at dlopen), kernels launch through the runtime.
// RUN: llvm-nm -D %t/g.so | FileCheck %s --check-prefix=SYMS
// RUN: llvm-readelf -d %t/g.so | FileCheck %s --check-prefix=NEEDED
// SYMS-DAG: T jeet_artifact_fini
// SYMS-DAG: T jeet_artifact_init
// SYMS-DAG: T jeet_artifact_run
// SYMS-DAG: R jeet_artifact_signature
// SYMS-DAG: U mgpuLaunchKernel
// SYMS-DAG: U mgpuModuleLoadJIT
// SYMS-DAG: U mgpuModuleUnload
// NEEDED-NOT: NEEDED{{.*}}cuda
// NEEDED-NOT: NEEDED{{.*}}jeet

// Kernels assembled to a cubin at compile time (ptxas) load without the
// driver's JIT.
// RUN: %if ptxas %{ jeet-compile %s -o %t/cubin.so --device=gpu --gpu-format=bin %}
// RUN: %if ptxas %{ llvm-nm -D %t/cubin.so | FileCheck %s --check-prefix=CUBIN %}
// CUBIN: U mgpuModuleLoad{{$}}

// Bad GPU options.
// RUN: not jeet-compile %s -o %t/bad.so --device=gpu --gpu-chip=sm_20 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: unsupported GPU chip 'sm_20'

// Without a GPU the runtime's reason, with one the numbers. The same graph
// compiled for the emulation target gives them on the GPU emulator, and
// the PTX artifact handed to the emulator is refused, naming the target it
// needs.
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(32, dtype=np.float32).reshape(4, 8) - 16)"
// DEFINE: %{inputs} = --input=@%t/x.npy --input=8xf32=1,2,3,4,5,6,7,8
// RUN: %if !cuda-driver %{ not jeet-runner %t/g.so %{inputs} 2>&1 | FileCheck %s --check-prefix=NOGPU %}
// NOGPU: jeet-runner: error: {{.*}}g.so: a GPU artifact, but the GPU is unavailable: {{.+}}
// RUN: %if cuda-driver %{ jeet-runner %t/g.so %{inputs} --print-stats | FileCheck %s --check-prefix=GPU %}
// RUN: jeet-compile %s -o %t/emu.so --device=gpu --gpu-target=emulator
// RUN: %on_emulator jeet-runner %t/emu.so %{inputs} --print-stats | FileCheck %s --check-prefix=GPU
// RUN: %on_emulator not jeet-runner %t/g.so %{inputs} 2>&1 | FileCheck %s --check-prefix=PTX-ON-EMULATOR
// GPU: 4x8xf32={{\[\[}}0 0 0 0 0 0 0 0][0 0 0 0 1 3 5 7][1 3 5 7 9 11 13 15][9 11 13 15 17 19 21 23]]
// GPU-NEXT: 4xf32=[0 16 64 128]
// GPU: device: cuda:0
// GPU: kernels per execution: [[K:[0-9]+]]
// GPU: kernels executed: [[K]]
// PTX-ON-EMULATOR: this is PTX; the Jeet GPU emulator runs modules compiled with jeet-gpu-pipeline{target=emulator}
func.func @main(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %0 = "jeet.add"(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = "jeet.relu"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "jeet.reduce_sum"(%1) {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4xf32>
}
