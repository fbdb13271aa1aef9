// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{stream-min-bytes=4096 prefetch-distance=256 datapath-bits=256}),canonicalize,cse)' | FileCheck %s
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=256}),canonicalize,cse)' | FileCheck %s --check-prefix=SMALL
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{stream-min-bytes=4096 prefetch-distance=0 datapath-bits=256}),canonicalize,cse)' | FileCheck %s --check-prefix=NOPF

// Streaming kernels (buffers of at least stream-min-bytes; 4 KiB here, 16 MiB
// by default). The output %o leaves the function, so the main loop stores it
// non-temporally when it is 64-byte aligned (checked once at run time) and
// plainly otherwise; each input read by this kernel only is prefetched 256
// bytes (64 elements) ahead, clamped to its last element. The remainder
// (2000 = 125 * 16) is empty here.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @stream
// CHECK-SAME: (%[[A:.*]]: memref<2000xf32>, %[[B:.*]]: memref<2000xf32>, %[[O:.*]]: memref<2000xf32>)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 1999 : index
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[O]]
// CHECK: %[[REM:.*]] = arith.remui %[[PTR]], %[[C64]]
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]]
// CHECK: scf.if %[[ALIGNED]] {
// CHECK: scf.for %[[I:.*]] =
// CHECK: vector.load %[[A]][%[[I]]]
// CHECK: %[[AHEAD:.*]] = arith.addi %[[I]], %[[C64]]
// CHECK: %[[AT:.*]] = arith.minui %[[AHEAD]], %[[LAST]]
// CHECK: memref.prefetch %[[A]][%[[AT]]], read, locality<3>, data
// CHECK: vector.load %[[B]][%[[I]]]
// CHECK: memref.prefetch %[[B]][%[[AT]]], read, locality<3>, data
// CHECK: vector.store %{{.*}}, %[[O]][%[[I]]] {alignment = 64 : i64, nontemporal = true} : memref<2000xf32>, vector<16xf32>
// CHECK: } else {
// CHECK: scf.for
// CHECK: memref.prefetch %[[A]]
// CHECK: memref.prefetch %[[B]]
// CHECK: vector.store %{{.*}}, %[[O]][%{{.*}}] : memref<2000xf32>, vector<16xf32>
// CHECK-NOT: nontemporal
// CHECK: return

// Below the default threshold nothing streams.
// SMALL-LABEL: func.func @stream
// SMALL-NOT: memref.prefetch
// SMALL-NOT: nontemporal
// SMALL-NOT: scf.if
// SMALL: return

// NOPF-LABEL: func.func @stream
// NOPF-NOT: memref.prefetch
// NOPF: nontemporal = true
// NOPF: return
func.func @stream(%a: memref<2000xf32>, %b: memref<2000xf32>, %o: memref<2000xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<2000xf32>, memref<2000xf32>) outs(%o : memref<2000xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// %o is read by the second kernel, so the first stores it plainly; the second
// writes it last and streams it. %a is read by both kernels: no prefetch (the
// second finds it in the cache); %b only by the first and %t only by the
// second are prefetched.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @reused
// CHECK-SAME: (%[[A:.*]]: memref<2048xf32>, %[[B:.*]]: memref<2048xf32>, %[[T:.*]]: memref<2048xf32>, %[[O:.*]]: memref<2048xf32>)
// CHECK-NOT: memref.prefetch %[[A]]
// CHECK: memref.prefetch %[[B]]
// CHECK-NOT: nontemporal
// CHECK: vector.store %{{.*}}, %[[O]]
// CHECK-NOT: memref.prefetch %[[A]]
// CHECK: memref.extract_aligned_pointer_as_index %[[O]]
// CHECK: scf.if
// CHECK-NOT: memref.prefetch %[[A]]
// CHECK: memref.prefetch %[[T]]
// CHECK: vector.store %{{.*}}, %[[O]][%{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: return
func.func @reused(%a: memref<2048xf32>, %b: memref<2048xf32>, %t: memref<2048xf32>, %o: memref<2048xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<2048xf32>, memref<2048xf32>) outs(%o : memref<2048xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%o, %a, %t : memref<2048xf32>, memref<2048xf32>, memref<2048xf32>) outs(%o : memref<2048xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.subf %s, %z : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Outputs that do not leave the function are stored plainly: an allocation
// of the function's own, and an argument that is read through a view later.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @stays
// CHECK-NOT: nontemporal
// CHECK: return
func.func @stays(%a: memref<2048xf32>, %o: memref<2048xf32>, %p: memref<2048xf32>) {
  %tmp = memref.alloc() : memref<2048xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<2048xf32>) outs(%tmp : memref<2048xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  }
  %view = memref.subview %o[0] [1024] [1] : memref<2048xf32> to memref<1024xf32, strided<[1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%tmp : memref<2048xf32>) outs(%o : memref<2048xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = math.absf %x : f32
    linalg.yield %s : f32
  }
  %c0 = arith.constant 0 : index
  %first = memref.load %view[%c0] : memref<1024xf32, strided<[1]>>
  memref.store %first, %p[%c0] : memref<2048xf32>
  memref.dealloc %tmp : memref<2048xf32>
  return
}

// -----

// Rows of 37 f32 do not all start on a 64-byte boundary, so a non-temporal
// store could not stay aligned: plain stores. The input is contiguous, so it
// is prefetched through a flat view at row * 37 + column + 64, which runs on
// into the next rows, up to the last element (64 * 37 - 1).
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @unaligned_rows
// CHECK-SAME: (%[[A:[a-z0-9]+]]: memref<64x37xf32>
// CHECK-DAG: %[[C37:.*]] = arith.constant 37 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 2367 : index
// CHECK-NOT: nontemporal
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[A]] {{.*}} : memref<64x37xf32> into memref<2368xf32>
// CHECK: scf.parallel (%[[ROW:.*]]) =
// CHECK: scf.for %[[COL:.*]] =
// CHECK: %[[R:.*]] = arith.muli %[[ROW]], %[[C37]]
// CHECK: %[[LIN:.*]] = arith.addi %[[COL]], %[[R]]
// CHECK: %[[AHEAD:.*]] = arith.addi %[[LIN]], %[[C64]]
// CHECK: %[[AT:.*]] = arith.minui %[[AHEAD]], %[[LAST]]
// CHECK: memref.prefetch %[[FLAT]][%[[AT]]]
// CHECK-NOT: nontemporal
// CHECK: return
func.func @unaligned_rows(%a: memref<64x37xf32>, %o: memref<64x37xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x37xf32>) outs(%o : memref<64x37xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rows of 64 f16 (128 bytes) keep 32-byte vectors of 16 f16 aligned.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @f16_rows
// CHECK: arith.constant 32 : index
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: vector.store {{.*}} {alignment = 32 : i64, nontemporal = true} : memref<64x64xf16>, vector<16xf16>
// CHECK: return
func.func @f16_rows(%a: memref<64x64xf16>, %o: memref<64x64xf16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf16>) outs(%o : memref<64x64xf16>) {
  ^bb0(%x: f16, %out: f16):
    %s = arith.negf %x : f16
    linalg.yield %s : f16
  }
  return
}
