// RUN: jeet-opt %s --allow-unregistered-dialect --split-input-file --jeet-cpu-merge-parallel-regions="nowait-last-loop=true" | FileCheck %s
// RUN: jeet-opt %s --allow-unregistered-dialect --split-input-file --jeet-cpu-merge-parallel-regions="merge=false nowait-last-loop=true" | FileCheck %s --check-prefix=APART
// RUN: jeet-opt %s --allow-unregistered-dialect --split-input-file --jeet-cpu-merge-parallel-regions | FileCheck %s --check-prefix=BARRIER

// Two kernels with only a constant between them run in one region: the
// first loop keeps its barrier, the last needs none (the region's end joins
// the threads), and both hand out their four tiles one at a time.
// CHECK-LABEL: func.func @adjacent
// CHECK:         arith.constant 2
// CHECK:         omp.parallel {
// CHECK-NEXT:      omp.wsloop schedule(dynamic) {
// CHECK:             "test.first"
// CHECK:           omp.wsloop nowait schedule(dynamic) {
// CHECK:             "test.second"
// CHECK:           omp.terminator
// CHECK-NOT:     omp.parallel
// CHECK:         return
// By default every loop keeps its barrier.
// BARRIER-LABEL: func.func @adjacent
// BARRIER:         omp.parallel {
// BARRIER-NEXT:      omp.wsloop schedule(dynamic) {
// BARRIER:           omp.wsloop schedule(dynamic) {
// BARRIER-NOT:     nowait
// BARRIER-LABEL: func.func @effect_between
// Without merging, each region's last loop still drops its barrier.
// APART-LABEL: func.func @adjacent
// APART:         omp.parallel {
// APART-NEXT:      omp.wsloop nowait schedule(dynamic) {
// APART:             "test.first"
// APART:         omp.parallel {
// APART-NEXT:      omp.wsloop nowait schedule(dynamic) {
// APART:             "test.second"
func.func @adjacent(%buffer: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
        "test.first"(%i, %buffer) : (index, memref<256xf32>) -> ()
        omp.yield
      }
    }
    omp.terminator
  }
  %c2 = arith.constant 2 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
        "test.second"(%i, %c2, %buffer) : (index, index, memref<256xf32>) -> ()
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A store between two regions (code the caller's thread runs alone) keeps
// them apart; a loop of many fine iterations keeps the static schedule.
// CHECK-LABEL: func.func @effect_between
// CHECK:         omp.parallel {
// CHECK-NEXT:      omp.wsloop nowait {
// CHECK:         memref.store
// CHECK:         omp.parallel {
// CHECK-NEXT:      omp.wsloop nowait {
func.func @effect_between(%buffer: memref<4096xf32>, %value: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4096) step (%c1) {
        memref.store %value, %buffer[%i] : memref<4096xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  memref.store %value, %buffer[%c0] : memref<4096xf32>
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4096) step (%c1) {
        memref.store %value, %buffer[%i] : memref<4096xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A region with a clause (its own thread count) or with code that every
// thread runs (not a worksharing loop) is left as it is.
// CHECK-LABEL: func.func @not_mergeable
// CHECK:         omp.parallel num_threads
// CHECK:         omp.parallel {
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      omp.wsloop {
func.func @not_mergeable(%buffer: memref<256xf32>, %value: f32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %threads = arith.constant 2 : i32
  omp.parallel num_threads(%threads : i32) {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
        memref.store %value, %buffer[%i] : memref<256xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel {
    memref.store %value, %buffer[%c0] : memref<256xf32>
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
        memref.store %value, %buffer[%i] : memref<256xf32>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
