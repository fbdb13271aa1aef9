// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-gpu-sink-globals))' | FileCheck %s
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-gpu-sink-globals),gpu-kernel-outlining)' | FileCheck %s --check-prefix=OUTLINED

// A constant that a kernel reads and the host copies to an output: the
// launch gets a get_global of its own (canonicalization and CSE before this
// pass merge an earlier clone with the one above), so the outlined kernel
// reads the global from its gpu.module, not the host's address as an
// argument. The copy keeps the host's.
memref.global "private" constant @cst : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
// CHECK-LABEL: func.func @read_and_copied
// CHECK: %[[HOST:.*]] = memref.get_global @cst
// CHECK: gpu.launch
// CHECK-NEXT: %[[DEVICE:.*]] = memref.get_global @cst
// CHECK: memref.load %[[DEVICE]]
// CHECK: gpu.terminator
// CHECK: memref.copy %[[HOST]], %{{.*}}
// OUTLINED-LABEL: func.func @read_and_copied
// OUTLINED-SAME: (%[[OUT:[^:]*]]: memref<4xf32>,
// OUTLINED: gpu.launch_func @read_and_copied_kernel::@read_and_copied_kernel
// OUTLINED-SAME: args(%{{[^:]*}} : index, %[[OUT]] : memref<4xf32>)
// OUTLINED: gpu.module @read_and_copied_kernel
// OUTLINED: gpu.func @read_and_copied_kernel(%{{[^:]*}}: index, %{{[^:]*}}: memref<4xf32>) kernel
// OUTLINED: memref.get_global @cst
// OUTLINED: memref.global "private" constant @cst
func.func @read_and_copied(%out: memref<4xf32>, %copy: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = memref.get_global @cst : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %e = memref.load %g[%c0] : memref<4xf32>
    memref.store %e, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  memref.copy %g, %copy : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Values other than globals that a launch reads stay arguments.
// CHECK-LABEL: func.func @not_a_global
// CHECK: gpu.launch
// CHECK-NOT: memref.get_global
// CHECK: memref.load %arg0
func.func @not_a_global(%in: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %e = memref.load %in[%c0] : memref<4xf32>
    memref.store %e, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A view of a global that a kernel reads (a constant filter's tap: a static
// subview, then a reshape) goes into the launch with its get_global, so the
// outlined kernel makes the view of the global in its gpu.module; the host's
// view stays for the host's own use.
memref.global "private" constant @filter : memref<3x1x2x2xf32> = dense<1.0>
// CHECK-LABEL: func.func @view_of_a_global
// CHECK: %[[HOST:.*]] = memref.subview
// CHECK: gpu.launch
// CHECK-NEXT: %[[G:.*]] = memref.get_global @filter
// CHECK-NEXT: %[[TAP:.*]] = memref.subview %[[G]][0, 0, 1, 1] [3, 1, 1, 1] [1, 1, 1, 1]
// CHECK-NEXT: %[[FLAT:.*]] = memref.collapse_shape %[[TAP]]
// CHECK: memref.load %[[FLAT]]
// CHECK: gpu.terminator
// CHECK: memref.copy %[[HOST]]
// OUTLINED-LABEL: func.func @view_of_a_global
// OUTLINED: gpu.launch_func @view_of_a_global_kernel::@view_of_a_global_kernel
// OUTLINED-SAME: args(%{{[^:]*}} : index, %{{[^:]*}} : memref<3xf32>)
// OUTLINED: gpu.func @view_of_a_global_kernel(%{{[^:]*}}: index, %{{[^:]*}}: memref<3xf32>) kernel
// OUTLINED: memref.get_global @filter
// OUTLINED: memref.subview
// OUTLINED: memref.collapse_shape
func.func @view_of_a_global(%out: memref<3xf32>, %copy: memref<3x1x1x1xf32, strided<[4, 4, 2, 1], offset: 3>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = memref.get_global @filter : memref<3x1x2x2xf32>
  %tap = memref.subview %g[0, 0, 1, 1] [3, 1, 1, 1] [1, 1, 1, 1] : memref<3x1x2x2xf32> to memref<3x1x1x1xf32, strided<[4, 4, 2, 1], offset: 3>>
  %flat = memref.collapse_shape %tap [[0, 1, 2, 3]] : memref<3x1x1x1xf32, strided<[4, 4, 2, 1], offset: 3>> into memref<3xf32, strided<[4], offset: 3>>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %e = memref.load %flat[%c0] : memref<3xf32, strided<[4], offset: 3>>
    memref.store %e, %out[%c0] : memref<3xf32>
    gpu.terminator
  }
  memref.copy %tap, %copy : memref<3x1x1x1xf32, strided<[4, 4, 2, 1], offset: 3>> to memref<3x1x1x1xf32, strided<[4, 4, 2, 1], offset: 3>>
  return
}

// -----

// A view whose offset the host computes (a dynamic subview) goes in too:
// the offset, defined above the launch, is what the kernel takes as an
// argument, not the host's address of the global.
// CHECK-LABEL: func.func @dynamic_view_of_a_global
// CHECK-SAME: (%[[I:[^:]*]]: index
// CHECK: gpu.launch
// CHECK-NEXT: %[[G:.*]] = memref.get_global @table
// CHECK-NEXT: %[[VIEW:.*]] = memref.subview %[[G]][%[[I]]] [4] [1]
// CHECK: memref.load %[[VIEW]]
// OUTLINED-LABEL: func.func @dynamic_view_of_a_global
// OUTLINED: gpu.launch_func @dynamic_view_of_a_global_kernel::@dynamic_view_of_a_global_kernel
// OUTLINED-SAME: args(%{{[^:]*}} : index, %{{[^:]*}} : index, %{{[^:]*}} : memref<4xf32>)
// OUTLINED: gpu.func @dynamic_view_of_a_global_kernel(%{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: memref<4xf32>) kernel
// OUTLINED: memref.get_global @table
// OUTLINED: memref.subview
memref.global "private" constant @table : memref<8xf32> = dense<2.0>
func.func @dynamic_view_of_a_global(%i: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = memref.get_global @table : memref<8xf32>
  %view = memref.subview %g[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %e = memref.load %view[%c0] : memref<4xf32, strided<[1], offset: ?>>
    memref.store %e, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}
