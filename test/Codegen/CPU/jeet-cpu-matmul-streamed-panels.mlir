// RUN: jeet-opt %s --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=4 min-parallel-work=0 l2-cache-bytes=256},canonicalize,cse)' | FileCheck %s --check-prefix=STREAM
// RUN: jeet-opt %s --pass-pipeline='builtin.module(jeet-cpu-matmul{register-cols=4 min-parallel-work=0 l2-cache-bytes=1024},canonicalize,cse)' | FileCheck %s --check-prefix=FIT

// A constant B whose panels the compiler lays out, in a module whose
// constants together (B's 128 bytes and a table's 256) outgrow L2
// (256 bytes here): every call reads all of them, so the kernels meet the
// panels in L3 or memory, and each step of k prefetches the panel's row 32
// steps ahead into L1: element (panel * 16) + (k + 32) * 4 of the flat
// panels, past the panel's end the next panel's rows, clamped to the
// buffer's last row (element 28). B's panels alone fit half of L2, so no
// tile fetches its share of a next panel into L2 (locality 1).
// STREAM: memref.global "private" constant @w_panels4 : memref<32xf32>
// STREAM-LABEL: func.func @streamed
// STREAM-DAG: %[[C28:.*]] = arith.constant 28 : index
// STREAM-DAG: %[[C32:.*]] = arith.constant 32 : index
// STREAM-DAG: %[[C16:.*]] = arith.constant 16 : index
// STREAM-DAG: %[[C4:.*]] = arith.constant 4 : index
// STREAM: %[[FLAT:.*]] = memref.get_global @w_panels4 : memref<32xf32>
// STREAM: %[[PANEL:.*]] = arith.divui %{{.*}}, %[[C4]] : index
// STREAM: %[[FIRST:.*]] = arith.muli %[[PANEL]], %[[C16]] : index
// STREAM: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// STREAM-NEXT: vector.load
// STREAM-NEXT: %[[AHEAD:.*]] = arith.addi %[[K]], %[[C32]] : index
// STREAM-NEXT: %[[ROW:.*]] = arith.muli %[[AHEAD]], %[[C4]] : index
// STREAM-NEXT: %[[AT:.*]] = arith.addi %[[FIRST]], %[[ROW]] : index
// STREAM-NEXT: %[[CLAMPED:.*]] = arith.minsi %[[AT]], %[[C28]] : index
// STREAM-NEXT: memref.prefetch %[[FLAT]][%[[CLAMPED]]], read, locality<3>, data : memref<32xf32>
// STREAM-NOT: locality<1>
// STREAM: return
// Where the constants fit L2 (1 KiB here), the panels stay there from call
// to call: no prefetch of them.
// FIT-LABEL: func.func @streamed
// FIT-NOT: read, locality
// FIT: return
memref.global "private" constant @w : memref<4x8xf32> = dense<1.0>
memref.global "private" constant @table : memref<64xf32> = dense<2.0>
func.func @streamed(%a: memref<2x4xf32>, %c: memref<2x8xf32>, %i: index) -> f32 {
  %b = memref.get_global @w : memref<4x8xf32>
  linalg.matmul ins(%a, %b : memref<2x4xf32>, memref<4x8xf32>) outs(%c : memref<2x8xf32>)
  %t = memref.get_global @table : memref<64xf32>
  %e = memref.load %t[%i] : memref<64xf32>
  return %e : f32
}
