// RUN: jeet-opt %s --split-input-file --jeet-plan-memory | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-plan-memory=alignment=64 | FileCheck %s --check-prefix=ALIGN64

// Three intermediates of 1 KiB in a chain: %2 is allocated after %0 is
// freed and takes its place, so the arena holds two, not three.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: %[[OUT:[^:]*]]: memref<256xf32>, %[[ARENA:[^:]*]]: memref<2048xi8> {jeet.arena})
// CHECK-SAME: jeet.memory_plan = {arena_bytes = 2048 : i64, buffers = 3 : i64, intermediate_bytes = 3072 : i64, live_bytes_bound = 2048 : i64}
// CHECK-NOT: memref.alloc
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[V0:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<2048xi8> to memref<256xf32>
// CHECK: %[[C1K:.*]] = arith.constant 1024 : index
// CHECK: %[[V1:.*]] = memref.view %[[ARENA]][%[[C1K]]][] : memref<2048xi8> to memref<256xf32>
// CHECK: linalg.exp ins(%[[V0]] : memref<256xf32>) outs(%[[V1]] : memref<256xf32>)
// CHECK: %[[C0B:.*]] = arith.constant 0 : index
// CHECK: %[[V2:.*]] = memref.view %[[ARENA]][%[[C0B]]][] : memref<2048xi8> to memref<256xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @chain(%a: memref<256xf32>, %out: memref<256xf32>) {
  %0 = memref.alloc() : memref<256xf32>
  linalg.exp ins(%a : memref<256xf32>) outs(%0 : memref<256xf32>)
  %1 = memref.alloc() : memref<256xf32>
  linalg.exp ins(%0 : memref<256xf32>) outs(%1 : memref<256xf32>)
  memref.dealloc %0 : memref<256xf32>
  %2 = memref.alloc() : memref<256xf32>
  linalg.exp ins(%1 : memref<256xf32>) outs(%2 : memref<256xf32>)
  memref.dealloc %1 : memref<256xf32>
  linalg.exp ins(%2 : memref<256xf32>) outs(%out : memref<256xf32>)
  memref.dealloc %2 : memref<256xf32>
  return
}

// -----

// Sizes are rounded up to the alignment: 40 bytes take 256 (64 with
// alignment=64), and every offset is a multiple of it. The larger buffer,
// allocated last, is placed first, at offset 0.
// CHECK-LABEL: func.func @alignment
// CHECK-SAME: memref<1280xi8> {jeet.arena}
// CHECK-SAME: arena_bytes = 1280 : i64, buffers = 3 : i64, intermediate_bytes = 1280 : i64, live_bytes_bound = 1280 : i64
// CHECK-DAG: arith.constant 768 : index
// CHECK-DAG: arith.constant 1024 : index
// CHECK-DAG: arith.constant 0 : index
// ALIGN64-LABEL: func.func @alignment
// ALIGN64-SAME: memref<896xi8> {jeet.arena}
// ALIGN64-SAME: arena_bytes = 896 : i64
// ALIGN64-DAG: arith.constant 768 : index
// ALIGN64-DAG: arith.constant 832 : index
// ALIGN64-DAG: arith.constant 0 : index
func.func @alignment(%a: memref<10xf32>, %b: memref<192xf32>, %out: memref<10xf32>) {
  %0 = memref.alloc() : memref<10xf32>
  linalg.exp ins(%a : memref<10xf32>) outs(%0 : memref<10xf32>)
  %1 = memref.alloc() : memref<10xf32>
  linalg.exp ins(%0 : memref<10xf32>) outs(%1 : memref<10xf32>)
  %2 = memref.alloc() : memref<192xf32>
  linalg.exp ins(%b : memref<192xf32>) outs(%2 : memref<192xf32>)
  linalg.add ins(%0, %1 : memref<10xf32>, memref<10xf32>) outs(%out : memref<10xf32>)
  memref.dealloc %0 : memref<10xf32>
  memref.dealloc %1 : memref<10xf32>
  memref.dealloc %2 : memref<192xf32>
  return
}

// -----

// A buffer freed before a larger one is allocated shares its bytes: the
// arena is the larger one alone.
// CHECK-LABEL: func.func @reuse_by_a_larger_buffer
// CHECK-SAME: arena_bytes = 4096 : i64, buffers = 2 : i64, intermediate_bytes = 5120 : i64, live_bytes_bound = 4096 : i64
func.func @reuse_by_a_larger_buffer(%a: memref<256xf32>, %b: memref<1024xf32>, %out: memref<256xf32>, %big: memref<1024xf32>) {
  %0 = memref.alloc() : memref<256xf32>
  linalg.exp ins(%a : memref<256xf32>) outs(%0 : memref<256xf32>)
  linalg.exp ins(%0 : memref<256xf32>) outs(%out : memref<256xf32>)
  memref.dealloc %0 : memref<256xf32>
  %1 = memref.alloc() : memref<1024xf32>
  linalg.exp ins(%b : memref<1024xf32>) outs(%1 : memref<1024xf32>)
  linalg.exp ins(%1 : memref<1024xf32>) outs(%big : memref<1024xf32>)
  memref.dealloc %1 : memref<1024xf32>
  return
}

// -----

// On the GPU's host side the plan takes the gpu.alloc/gpu.dealloc pairs.
// CHECK-LABEL: func.func @device
// CHECK-SAME: %[[ARENA:[^:]*]]: memref<1024xi8> {jeet.arena}
// CHECK-NOT: gpu.alloc
// CHECK: memref.view %[[ARENA]][%{{.*}}][] : memref<1024xi8> to memref<256xf32>
// CHECK-NOT: gpu.dealloc
func.func @device(%a: memref<256xf32>, %out: memref<256xf32>) {
  %0 = gpu.alloc () : memref<256xf32>
  memref.copy %a, %0 : memref<256xf32> to memref<256xf32>
  memref.copy %0, %out : memref<256xf32> to memref<256xf32>
  gpu.dealloc %0 : memref<256xf32>
  return
}

// -----

// What the plan leaves alone: a dynamic shape, a buffer freed inside a
// region, one never freed. The function still takes an (empty) arena.
// CHECK-LABEL: func.func @unplanned
// CHECK-SAME: memref<0xi8> {jeet.arena}
// CHECK-SAME: arena_bytes = 0 : i64, buffers = 0 : i64
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: memref.alloc() : memref<8xf32>
func.func @unplanned(%n: index, %c: i1, %out: memref<4xf32>) {
  %0 = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %0 : memref<?xf32>
  %1 = memref.alloc() : memref<4xf32>
  scf.if %c {
    memref.dealloc %1 : memref<4xf32>
  }
  %2 = memref.alloc() : memref<8xf32>
  return
}

// -----

// Only the entry points are planned: a function that something calls keeps
// its signature (its callers would not pass an arena).
// CHECK-LABEL: func.func private @callee
// CHECK-SAME: (%{{[^:]*}}: memref<4xf32>) {
// CHECK: memref.alloc
// CHECK-LABEL: func.func @caller
// CHECK-SAME: memref<0xi8> {jeet.arena}
func.func private @callee(%out: memref<4xf32>) {
  %0 = memref.alloc() : memref<4xf32>
  memref.copy %0, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %0 : memref<4xf32>
  return
}
func.func @caller(%out: memref<4xf32>) {
  call @callee(%out) : (memref<4xf32>) -> ()
  return
}
