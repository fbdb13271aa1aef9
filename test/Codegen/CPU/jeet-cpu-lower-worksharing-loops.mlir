// RUN: jeet-opt %s --allow-unregistered-dialect --split-input-file --jeet-cpu-lower-worksharing-loops | FileCheck %s

// A dynamic loop takes its iterations from a counter in the function's
// frame, zeroed before the region, one atomic add per iteration; a static
// loop runs the thread's contiguous block of ceil(4 / threads) iterations.
// The thread number and team size are read once, at the region's start.
// Both loops keep their barrier.
// CHECK-LABEL: func.func private @omp_get_num_threads() -> i32
// CHECK-LABEL: func.func private @omp_get_thread_num() -> i32
// CHECK-LABEL: func.func @two_loops
// CHECK:         %[[COUNTER:.*]] = memref.alloca() : memref<i64>
// CHECK:         memref.store %{{.*}}, %[[COUNTER]][] : memref<i64>
// CHECK-NEXT:    omp.parallel {
// CHECK-NEXT:      %[[TID32:.*]] = func.call @omp_get_thread_num() : () -> i32
// CHECK-NEXT:      %[[TID:.*]] = arith.index_cast %[[TID32]] : i32 to index
// CHECK-NEXT:      %[[NT32:.*]] = func.call @omp_get_num_threads() : () -> i32
// CHECK-NEXT:      %[[NT:.*]] = arith.index_cast %[[NT32]] : i32 to index
// CHECK-NOT:       omp.wsloop
// CHECK:           scf.while
// CHECK:             %[[TAKEN:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTER]][] : (i64, memref<i64>) -> i64
// CHECK:             %[[N:.*]] = arith.index_cast %[[TAKEN]] : i64 to index
// CHECK:             %[[MORE:.*]] = arith.cmpi slt, %[[N]], %[[TOTAL:.*]] : index
// CHECK:             scf.condition(%[[MORE]]) %[[N]] : index
// CHECK:           } do {
// CHECK:           ^bb0(%[[I:.*]]: index):
// CHECK:             %[[OFF:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK:             %[[IV:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK:             "test.dynamic"(%[[IV]]) : (index) -> ()
// CHECK:           omp.barrier
// CHECK:           %[[CHUNK:.*]] = arith.ceildivsi %{{.*}}, %[[NT]] : index
// CHECK:           %[[B0:.*]] = arith.muli %[[TID]], %[[CHUNK]] : index
// CHECK:           %[[BEGIN:.*]] = arith.minsi %[[B0]], %{{.*}} : index
// CHECK:           %[[E0:.*]] = arith.addi %[[BEGIN]], %[[CHUNK]] : index
// CHECK:           %[[END:.*]] = arith.minsi %[[E0]], %{{.*}} : index
// CHECK:           scf.for %[[J:.*]] = %[[BEGIN]] to %[[END]]
// CHECK:             "test.static"(%{{.*}}) : (index) -> ()
// CHECK:           omp.barrier
// CHECK-NEXT:      omp.terminator
func.func @two_loops() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  omp.parallel {
    omp.wsloop schedule(dynamic) {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
        "test.dynamic"(%i) : (index) -> ()
        omp.yield
      }
    }
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c256) step (%c64) {
        "test.static"(%i) : (index) -> ()
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A nest of two dimensions numbers its iterations row-major: the inner
// index is the remainder by the inner trip count, the outer the quotient.
// A loop with nowait gets no barrier.
// CHECK-LABEL: func.func @nest
// CHECK:         omp.parallel {
// CHECK:           scf.for %[[K:.*]] =
// CHECK:             %[[INNER:.*]] = arith.remui %[[K]], %[[TRIP1:.*]] : index
// CHECK:             %[[OUTER:.*]] = arith.divui %[[K]], %[[TRIP1]] : index
// CHECK:             %[[J0:.*]] = arith.muli %[[INNER]], %{{.*}} : index
// CHECK:             %[[J:.*]] = arith.addi %{{.*}}, %[[J0]] : index
// CHECK:             %[[I0:.*]] = arith.muli %[[OUTER]], %{{.*}} : index
// CHECK:             %[[I:.*]] = arith.addi %{{.*}}, %[[I0]] : index
// CHECK:             "test.body"(%[[I]], %[[J]]) : (index, index) -> ()
// CHECK-NOT:       omp.barrier
// CHECK:           omp.terminator
func.func @nest(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  omp.parallel {
    omp.wsloop nowait {
      omp.loop_nest (%i, %j) : index = (%c0, %c0) to (%n, %c16) step (%c1, %c1) {
        "test.body"(%i, %j) : (index, index) -> ()
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Loops with a chunk size, a schedule this pass does not hand out, or a
// reduction are left to libomp, and nothing is declared for them.
// CHECK-NOT:   omp_get_thread_num
// CHECK-LABEL: func.func @left_alone
// CHECK:         omp.wsloop schedule(static = %{{.*}} : index)
// CHECK:         omp.wsloop schedule(guided)
// CHECK:         omp.wsloop reduction(@add_f32
omp.declare_reduction @add_f32 : f32 init {
^bb0(%arg: f32):
  %0 = arith.constant 0.0 : f32
  omp.yield (%0 : f32)
} combiner {
^bb1(%arg0: f32, %arg1: f32):
  %1 = arith.addf %arg0, %arg1 : f32
  omp.yield (%1 : f32)
}
func.func @left_alone(%sum: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %ptr = "test.pointer"() : () -> !llvm.ptr
  omp.parallel {
    omp.wsloop schedule(static = %c4 : index) {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        "test.chunked"(%i) : (index) -> ()
        omp.yield
      }
    }
    omp.wsloop schedule(guided) {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        "test.guided"(%i) : (index) -> ()
        omp.yield
      }
    }
    omp.wsloop reduction(@add_f32 %ptr -> %acc : !llvm.ptr) {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        "test.reduced"(%i, %acc) : (index, !llvm.ptr) -> ()
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A loop whose body allocates on the heap stays with libomp: the check of a
// failed allocation ends the iteration at its region's terminator, which
// here would skip the barrier that the other threads wait at.
// CHECK-LABEL: func.func @allocating
// CHECK:         omp.wsloop schedule(dynamic) {
// CHECK:           memref.alloc()
func.func @allocating() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  omp.parallel {
    omp.wsloop schedule(dynamic) {
      omp.loop_nest (%i) : index = (%c0) to (%c8) step (%c1) {
        scf.for %j = %c0 to %c8 step %c1 {
          %scores = memref.alloc() : memref<64x512xf32>
          "test.block"(%i, %j, %scores) : (index, index, memref<64x512xf32>) -> ()
          memref.dealloc %scores : memref<64x512xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A region nested in another stays with libomp (the outer team's threads
// would share a counter in the function's frame); the outer region's own
// loop is handed out.
// CHECK-LABEL: func.func @nested
// CHECK:         omp.parallel {
// CHECK:           scf.for
// CHECK:             omp.parallel {
// CHECK-NEXT:          omp.wsloop schedule(dynamic) {
// CHECK:             "test.inner"
func.func @nested() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        omp.parallel {
          omp.wsloop schedule(dynamic) {
            omp.loop_nest (%j) : index = (%c0) to (%c4) step (%c1) {
              "test.inner"(%i, %j) : (index, index) -> ()
              omp.yield
            }
          }
          omp.terminator
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A region outside any function has no frame for a counter: left alone.
// CHECK-LABEL: "test.container"
// CHECK:         omp.wsloop schedule(dynamic) {
"test.container"() ({
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  omp.parallel {
    omp.wsloop schedule(dynamic) {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        "test.body"(%i) : (index) -> ()
        omp.yield
      }
    }
    omp.terminator
  }
  "test.end"() : () -> ()
}) : () -> ()
