// RUN: jeet-opt %s --split-input-file --jeet-cpu-outline-kernels="min-kernels=2" | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-cpu-outline-kernels | FileCheck %s --check-prefix=FEW

// Two kernels, at the threshold: each moves into a private noinline
// function of its own, called in its place with the buffers it uses; the
// constants it uses are copied into it, not passed.
// CHECK-LABEL: func.func @two_kernels
// CHECK-SAME: (%[[A:.*]]: memref<16xf32>, %[[B:.*]]: memref<16xf32>, %[[S:.*]]: f32)
// CHECK-NEXT: call @[[K0:jeet_kernel[_0-9]*]](%[[S]], %[[A]]) : (f32, memref<16xf32>) -> ()
// CHECK-NEXT: call @[[K1:jeet_kernel[_0-9]*]](%[[B]]) : (memref<16xf32>) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @[[K0]](%[[KS:.*]]: f32, %[[KA:.*]]: memref<16xf32>) attributes {passthrough = ["noinline"]}
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 16 : index
// CHECK: scf.for
// CHECK: memref.store %[[KS]], %[[KA]]
// CHECK: return
// CHECK: func.func private @[[K1]](%{{.*}}: memref<16xf32>) attributes {passthrough = ["noinline"]}
// CHECK: linalg.fill

// FEW-LABEL: func.func @two_kernels
// FEW-NOT: call
// FEW: scf.for
// FEW: linalg.fill
// FEW-NOT: jeet_kernel
func.func @two_kernels(%a: memref<16xf32>, %b: memref<16xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %s, %a[%i] : memref<16xf32>
  }
  linalg.fill ins(%zero : f32) outs(%b : memref<16xf32>)
  return
}

// -----

// A kernel that allocates stays inline (its allocation must be able to stop
// the graph's function when it fails), and so do ops without regions; a
// buffer allocated in the function is passed to the kernels that use it.
// CHECK-LABEL: func.func @allocating
// CHECK: %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT: call @{{jeet_kernel[_0-9]*}}(%[[T]])
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.alloc() : memref<4xf32>
// CHECK: call @{{jeet_kernel[_0-9]*}}(%[[T]], %{{.*}})
// CHECK-NEXT: memref.copy
// CHECK-NEXT: memref.dealloc %[[T]]
func.func @allocating(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<16xf32>
  linalg.fill ins(%one : f32) outs(%t : memref<16xf32>)
  scf.for %i = %c0 to %c16 step %c1 {
    %scratch = memref.alloc() : memref<4xf32>
    memref.dealloc %scratch : memref<4xf32>
  }
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %t[%i] : memref<16xf32>
    memref.store %v, %out[%i] : memref<16xf32>
  }
  memref.copy %t, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  return
}

// -----

// Private functions (kernels made earlier, jeet_matmul_tile) are left alone.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: call
// CHECK: linalg.fill
// CHECK: linalg.fill
func.func private @helper(%a: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<16xf32>)
  linalg.fill ins(%zero : f32) outs(%a : memref<16xf32>)
  return
}
