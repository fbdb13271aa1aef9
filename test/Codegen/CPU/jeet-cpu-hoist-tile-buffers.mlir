// RUN: jeet-opt %s --allow-unregistered-dialect --split-input-file --jeet-cpu-hoist-tile-buffers | FileCheck %s
// RUN: jeet-opt %s --allow-unregistered-dialect --split-input-file --jeet-cpu-hoist-tile-buffers="max-bytes=1024" | FileCheck %s --check-prefix=SMALL

// The tile buffer of each iteration becomes one stack buffer per thread at
// the region's start, and its free goes; the second loop of the region
// reuses the first's slot, and a second buffer of the same type live in the
// same iteration gets a slot of its own.
// CHECK-LABEL: func.func @tiles
// CHECK:         omp.parallel {
// CHECK-NEXT:      %[[B:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
// CHECK-NEXT:      %[[A:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
// CHECK-NEXT:      omp.wsloop {
// CHECK:             "test.tile"(%{{.*}}, %[[A]])
// CHECK-NOT:         memref.dealloc
// CHECK:           omp.wsloop {
// CHECK:             "test.tile"(%{{.*}}, %[[A]])
// CHECK-NEXT:        "test.tile"(%{{.*}}, %[[B]])
// CHECK-NOT:       memref.alloc(
// CHECK-NOT:       memref.dealloc
// CHECK:           omp.terminator
// A buffer over max-bytes stays on the heap.
// SMALL-LABEL: func.func @tiles
// SMALL-NOT:     memref.alloca
// SMALL:         memref.alloc()
// SMALL:         memref.dealloc
func.func @tiles() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
        %acc = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
        "test.tile"(%i, %acc) : (index, memref<64x64xf32>) -> ()
        memref.dealloc %acc : memref<64x64xf32>
        omp.yield
      }
    }
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
        %acc = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
        %acc2 = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
        "test.tile"(%i, %acc) : (index, memref<64x64xf32>) -> ()
        "test.tile"(%i, %acc2) : (index, memref<64x64xf32>) -> ()
        memref.dealloc %acc2 : memref<64x64xf32>
        memref.dealloc %acc : memref<64x64xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Left on the heap: a buffer of a dynamic size, one freed in a nested block
// (its lifetime is not the iteration's), one never freed in the loop (it
// outlives the iteration), and one inside a nested loop of the body.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     memref.alloca
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         memref.alloc() : memref<16xf32>
// CHECK:         memref.alloc() : memref<8xf32>
// CHECK:         memref.alloc() : memref<4xf32>
func.func @kept(%n: index, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        %dynamic = memref.alloc(%n) : memref<?xf32>
        "test.use"(%dynamic) : (memref<?xf32>) -> ()
        memref.dealloc %dynamic : memref<?xf32>
        %nested = memref.alloc() : memref<16xf32>
        scf.if %flag {
          memref.dealloc %nested : memref<16xf32>
        }
        %kept = memref.alloc() : memref<8xf32>
        "test.keep"(%kept) : (memref<8xf32>) -> ()
        scf.for %j = %c0 to %c4 step %c1 {
          %inner = memref.alloc() : memref<4xf32>
          "test.use"(%inner) : (memref<4xf32>) -> ()
          memref.dealloc %inner : memref<4xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
