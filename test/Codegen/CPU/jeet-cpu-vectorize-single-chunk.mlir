// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(jeet-cpu-vectorize-elementwise{datapath-bits=256},jeet-cpu-vectorize-reductions{datapath-bits=256}))' | FileCheck %s

// Work of one chunk (1024 elements, chunks of 8192) gets no parallel loop at
// all, even before any canonicalisation: a parallel region of one iteration
// would wake the OpenMP team on every call for nothing.

#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @one_chunk
// CHECK-NOT: scf.parallel
// CHECK: scf.for {{.*}} step %c16
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @one_chunk(%a: memref<1024xf32>, %o: memref<1024xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<1024xf32>) outs(%o : memref<1024xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = math.exp %x : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Three chunks: parallel.
// CHECK-LABEL: func.func @three_chunks
// CHECK: scf.parallel
func.func @three_chunks(%a: memref<20000xf32>, %o: memref<20000xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<20000xf32>) outs(%o : memref<20000xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = math.exp %x : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// One row to reduce: no parallel loop either.
// CHECK-LABEL: func.func @one_row
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @one_row(%a: memref<1x512xf32>, %o: memref<1xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<1x512xf32>) outs(%o : memref<1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %0 = arith.addf %x, %acc : f32
    linalg.yield %0 : f32
  }
  return
}
