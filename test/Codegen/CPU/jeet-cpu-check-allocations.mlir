// RUN: jeet-opt %s --split-input-file --jeet-cpu-check-allocations | FileCheck %s

// In the function's body: a null result returns after freeing what was
// allocated before and not yet freed (%a), never what is already freed (%b)
// or not yet allocated (%d).
// CHECK-LABEL: llvm.func @body
// CHECK: %[[A:.*]] = llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[FAILED:.*]] = llvm.icmp "eq" %[[A]], %[[NULL]]
// CHECK: llvm.cond_br %[[FAILED]] weights([1, 1048576]), ^[[ERR_A:.*]], ^[[OK_A:.*]]
// CHECK: ^[[ERR_A]]:
// CHECK-NEXT: llvm.return
// CHECK: ^[[OK_A]]:
// CHECK: %[[B:.*]] = llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.cond_br {{.*}}, ^[[ERR_B:.*]], ^[[OK_B:.*]]
// CHECK: ^[[ERR_B]]:
// CHECK-NEXT: llvm.call @_mlir_memref_to_llvm_free(%[[A]])
// CHECK-NEXT: llvm.return
// CHECK: ^[[OK_B]]:
// CHECK: llvm.call @_mlir_memref_to_llvm_free(%[[B]])
// CHECK: %[[C:.*]] = llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.cond_br {{.*}}, ^[[ERR_C:.*]], ^[[OK_C:.*]]
// CHECK: ^[[ERR_C]]:
// CHECK-NEXT: llvm.call @_mlir_memref_to_llvm_free(%[[A]])
// CHECK-NEXT: llvm.return
// CHECK: ^[[OK_C]]:
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
llvm.func @body(%n: i64) {
  %a = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  %b = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.call @_mlir_memref_to_llvm_free(%b) : (!llvm.ptr) -> ()
  %c = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.call @_mlir_memref_to_llvm_free(%c) : (!llvm.ptr) -> ()
  %d = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.call @_mlir_memref_to_llvm_free(%d) : (!llvm.ptr) -> ()
  llvm.call @_mlir_memref_to_llvm_free(%a) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// Inside an OpenMP loop: the iteration stores the size it asked for in a
// slot of the frame and ends (freeing what it allocated before); after the
// parallel region the body reports the failure and returns, freeing %outer.
// CHECK-LABEL: llvm.func @region
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64)
// CHECK: %[[SLOT:.*]] = llvm.alloca %[[ONE]] x i64
// CHECK: llvm.store %{{.*}}, %[[SLOT]] {alignment = 8 : i64}
// CHECK: %[[OUTER:.*]] = llvm.call @malloc
// CHECK: omp.parallel
// CHECK: %[[T1:.*]] = llvm.call @malloc(%[[N1:.*]]) :
// CHECK: llvm.cond_br {{.*}}, ^[[ERR1:.*]], ^[[OK1:.*]]
// CHECK: ^[[ERR1]]:
// CHECK-NEXT: llvm.store %[[N1]], %[[SLOT]] atomic monotonic
// CHECK-NEXT: omp.terminator
// CHECK: ^[[OK1]]:
// CHECK: %[[T2:.*]] = llvm.call @malloc(%[[N2:.*]]) :
// CHECK: llvm.cond_br {{.*}}, ^[[ERR2:.*]], ^[[OK2:.*]]
// CHECK: ^[[ERR2]]:
// CHECK-NEXT: llvm.store %[[N2]], %[[SLOT]] atomic monotonic
// CHECK-NEXT: llvm.call @free(%[[T1]])
// CHECK-NEXT: omp.terminator
// CHECK: omp.terminator
// CHECK: %[[BYTES:.*]] = llvm.load %[[SLOT]] atomic monotonic
// CHECK: %[[FAILED:.*]] = llvm.icmp "ne" %[[BYTES]]
// CHECK: llvm.cond_br %[[FAILED]] weights([1, 1048576]), ^[[REPORT:.*]], ^[[GO:.*]]
// CHECK: ^[[REPORT]]:
// CHECK-NEXT: llvm.call @jeetAllocationFailed(%[[BYTES]])
// CHECK-NEXT: llvm.call @free(%[[OUTER]])
// CHECK-NEXT: llvm.return
// CHECK: ^[[GO]]:
// CHECK: llvm.call @free(%[[OUTER]])
// CHECK: llvm.func @jeetAllocationFailed(i64)
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
llvm.func @region(%n: i64) {
  %outer = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  omp.parallel {
    %n1 = llvm.add %n, %n : i64
    %t1 = llvm.call @malloc(%n1) : (i64) -> !llvm.ptr
    %n2 = llvm.mul %n, %n : i64
    %t2 = llvm.call @malloc(%n2) : (i64) -> !llvm.ptr
    llvm.call @free(%t2) : (!llvm.ptr) -> ()
    llvm.call @free(%t1) : (!llvm.ptr) -> ()
    omp.terminator
  }
  llvm.call @free(%outer) : (!llvm.ptr) -> ()
  llvm.return
}

// -----

// GPU host code: a failed device allocation frees the earlier buffer on its
// stream, waits for the stream and destroys it.
// CHECK-LABEL: llvm.func @gpu_host
// CHECK: %[[STREAM:.*]] = llvm.call @mgpuStreamCreate
// CHECK: %[[X:.*]] = llvm.call @mgpuMemAlloc
// CHECK: llvm.cond_br {{.*}}, ^[[ERR_X:.*]], ^[[OK_X:.*]]
// CHECK: ^[[ERR_X]]:
// CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[STREAM]])
// CHECK-NEXT: llvm.return
// CHECK: ^[[OK_X]]:
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.cond_br {{.*}}, ^[[ERR_Y:.*]], ^{{.*}}
// CHECK: ^[[ERR_Y]]:
// CHECK-NEXT: llvm.call @mgpuMemFree(%[[X]], %[[STREAM]])
// CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[STREAM]])
// CHECK-NEXT: llvm.return
llvm.func @mgpuStreamCreate() -> !llvm.ptr
llvm.func @mgpuStreamSynchronize(!llvm.ptr)
llvm.func @mgpuStreamDestroy(!llvm.ptr)
llvm.func @mgpuMemAlloc(i64, !llvm.ptr, i8) -> !llvm.ptr
llvm.func @mgpuMemFree(!llvm.ptr, !llvm.ptr)
llvm.func @gpu_host(%n: i64) {
  %shared = llvm.mlir.constant(0 : i8) : i8
  %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
  %x = llvm.call @mgpuMemAlloc(%n, %s, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  %y = llvm.call @mgpuMemAlloc(%n, %s, %shared) : (i64, !llvm.ptr, i8) -> !llvm.ptr
  llvm.call @mgpuMemFree(%y, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuMemFree(%x, %s) : (!llvm.ptr, !llvm.ptr) -> ()
  llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
  llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
  llvm.return
}
