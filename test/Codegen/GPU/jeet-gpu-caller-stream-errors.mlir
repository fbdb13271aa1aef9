// RUN: jeet-opt %s --split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(jeet-gpu-caller-stream))'

// The host waits in the middle: what follows would no longer wait.
func.func @wait_in_the_middle(%a: memref<4xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %0 = gpu.wait async
  %1 = gpu.memcpy async [%0] %b, %a : memref<4xf32>, memref<4xf32>
  // expected-error @+1 {{jeet-gpu-caller-stream: the host waits for the GPU before the end of the function; only a wait right before the return can be left to the caller}}
  gpu.wait [%1]
  %2 = memref.load %b[%c0] : memref<4xf32>
  return
}

// -----

// Two chains joined: the work is not on one stream.
func.func @join(%a: memref<4xf32>, %b: memref<4xf32>) {
  %0 = gpu.wait async
  %1 = gpu.wait async
  // expected-error @+1 {{jeet-gpu-caller-stream: the host code joins several chains of GPU work; it must be one chain on one stream}}
  %2 = gpu.wait async [%0, %1]
  gpu.wait [%2]
  return
}

// -----

// A wait inside a loop of the host code.
func.func @nested(%a: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{jeet-gpu-caller-stream: the host waits for the GPU inside a nested region}}
    %0 = gpu.wait async
    // expected-error @+1 {{jeet-gpu-caller-stream: the host waits for the GPU inside a nested region}}
    gpu.wait [%0]
  }
  return
}
