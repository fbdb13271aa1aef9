// REQUIRES: gpu-emulator
// The emulated GPU says what it is wherever a user sees it: the device's
// description in --print-stats and --list-devices, the times of --benchmark
// and --copy-bandwidth (host CPU time, never GPU speed), and the pipeline
// JEET_DEBUG prints (auto resolved to the emulation target).
// RUN: %on_emulator jeet-run %s --device=gpu --input=4xf32=1,-2,3,-4 --benchmark=2 --print-stats | FileCheck %s --check-prefix=TOOL
// RUN: jeet-compile %s -o %t.so --device=gpu --gpu-target=emulator
// RUN: %on_emulator jeet-runner %t.so --input=4xf32=1,-2,3,-4 --benchmark=2 --print-stats | FileCheck %s --check-prefix=RUNNER
// RUN: %on_emulator jeet-runner --list-devices | FileCheck %s --check-prefix=LIST
// RUN: %on_emulator jeet-runner --copy-bandwidth=65536 --benchmark=3 | FileCheck %s --check-prefix=COPY
// RUN: not jeet-runner --copy-bandwidth=0 2>&1 | FileCheck %s --check-prefix=COPY-BAD
// RUN: not %on_emulator env JEET_EMULATOR_MEMORY=1M jeet-runner --copy-bandwidth=4194304 2>&1 | FileCheck %s --check-prefix=COPY-OOM
// RUN: not env JEET_CUDA_DRIVER=%t.missing.so jeet-runner --copy-bandwidth=1024 2>&1 | FileCheck %s --check-prefix=COPY-NODRIVER
// RUN: %on_emulator env JEET_DEBUG=1 jeet-run %s --device=gpu --input=4xf32=1,-2,3,-4 2>&1 | FileCheck %s --check-prefix=DEBUG

// TOOL: 4xf32=[1 0 3 0]
// TOOL: benchmark: 2 runs, median {{[0-9.]+}} ms, min {{[0-9.]+}} ms (emulated GPU: host CPU time, not GPU speed)
// TOOL: device: gpu (cuda:0: Jeet GPU emulator (CPU), sm_90, driver {{[0-9.]+}} (emulated: kernels run on the host CPU; no GPU speed))
// RUNNER: 4xf32=[1 0 3 0]
// RUNNER: benchmark: 2 runs, {{.*}} (emulated GPU: host CPU time, not GPU speed)
// RUNNER: device time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms (CUDA events around each execution's work) (emulated GPU: host CPU time, not GPU speed)
// RUNNER: device: cuda:0 (Jeet GPU emulator (CPU), {{.*}}(emulated: kernels run on the host CPU; no GPU speed))
// LIST: cuda:0: available (Jeet GPU emulator (CPU), {{.*}}(emulated: kernels run on the host CPU; no GPU speed))
// COPY: copy: 65536 bytes, 3 runs, median {{[0-9.]+}} ms, min {{[0-9.]+}} ms, {{[0-9.]+}} GB/s (bytes read and written) (emulated GPU: host CPU time, not GPU speed)
// COPY-BAD: jeet-runner: error: --copy-bandwidth: expected a byte count, given '0'
// COPY-OOM: jeet-runner: error: --copy-bandwidth: cuda:0: out of memory allocating 4194304 bytes
// COPY-NODRIVER: jeet-runner: error: no CUDA driver: dlopen {{.*}}.missing.so failed
// DEBUG: jeet-gpu-pipeline{{.*}} target=emulator
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
