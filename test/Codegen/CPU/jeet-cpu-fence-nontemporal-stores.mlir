// RUN: jeet-opt %s --split-input-file --jeet-cpu-fence-nontemporal-stores | FileCheck %s

// A loop of non-temporal vector stores is followed by a fence; a loop of
// plain stores is not.
// CHECK-LABEL: func.func @vector_stores
// CHECK: scf.for
// CHECK: vector.store {{.*}}nontemporal = true
// CHECK-NEXT: {{^ +}}}
// CHECK-NEXT: llvm.fence seq_cst
// CHECK: scf.for
// CHECK: vector.store
// CHECK-NEXT: {{^ +}}}
// CHECK-NOT: llvm.fence
// CHECK: return
func.func @vector_stores(%o: memref<1024xf32>, %v: vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %c1024 step %c16 {
    vector.store %v, %o[%i] {alignment = 64 : i64, nontemporal = true} : memref<1024xf32>, vector<16xf32>
  }
  scf.for %i = %c0 to %c1024 step %c16 {
    vector.store %v, %o[%i] : memref<1024xf32>, vector<16xf32>
  }
  return
}

// -----

// Scalar non-temporal stores inside an OpenMP loop: the fence follows the
// inner loop, inside the region, where the storing thread runs it. A fence
// that is already there is not doubled.
// CHECK-LABEL: func.func @in_parallel_region
// CHECK: omp.parallel
// CHECK: scf.for
// CHECK: memref.store {{.*}}nontemporal = true
// CHECK-NEXT: {{^ +}}}
// CHECK-NEXT: llvm.fence seq_cst
// CHECK-NEXT: omp.yield
// CHECK: scf.for
// CHECK: memref.store
// CHECK-NEXT: {{^ +}}}
// CHECK-NEXT: llvm.fence seq_cst
// CHECK-NOT: llvm.fence
// CHECK: return
func.func @in_parallel_region(%o: memref<1024xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%chunk) : index = (%c0) to (%c4) step (%c1) {
        %start = arith.muli %chunk, %c256 : index
        %end = arith.addi %start, %c256 : index
        scf.for %i = %start to %end step %c1 {
          memref.store %x, %o[%i] {nontemporal = true} : memref<1024xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  scf.for %i = %c0 to %c256 step %c1 {
    memref.store %x, %o[%i] {nontemporal = true} : memref<1024xf32>
  }
  llvm.fence seq_cst
  return
}
