// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-gpu-caller-stream))' | FileCheck %s

// The stream the function made is now its last argument, the chain starts
// from it and the wait at the end is gone: the caller decides when to wait.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[A:[^:]*]]: memref<256xf32>, %[[OUT:[^:]*]]: memref<256xf32>, %[[S:[^:]*]]: !gpu.async.token {jeet.stream})
// CHECK-NOT: gpu.wait
// CHECK: %[[K0:.*]] = gpu.launch_func async [%[[S]]] @kernels::@k
// CHECK: %[[K1:.*]] = gpu.launch_func async [%[[K0]]] @kernels::@k
// CHECK-NOT: gpu.wait
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<256xf32>, %b: memref<256xf32>) kernel {
      gpu.return
    }
  }
  func.func @main(%a: memref<256xf32>, %out: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %0 = gpu.wait async
    %1 = gpu.launch_func async [%0] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<256xf32>, %out : memref<256xf32>)
    %2 = gpu.launch_func async [%1] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<256xf32>, %a : memref<256xf32>)
    gpu.wait [%2]
    return
  }
}

// -----

// A function without GPU work, and a private one, keep their signatures.
// CHECK-LABEL: func.func @host_only
// CHECK-SAME: (%{{[^:]*}}: memref<4xf32>) {
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{[^:]*}}: memref<4xf32>) {
// CHECK: gpu.wait async
func.func @host_only(%a: memref<4xf32>) {
  return
}
func.func private @helper(%a: memref<4xf32>) {
  %0 = gpu.wait async
  gpu.wait [%0]
  return
}
