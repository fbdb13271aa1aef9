// RUN: jeet-opt %s --split-input-file --jeet-plan-memory | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-plan-memory=coalesce=false | FileCheck %s --check-prefix=OFF

// A concatenation as copies (concat-as-copies): each input's buffer dies at
// its copy into a contiguous slice of the result's, which only such copies
// write and which is read after them. Each input is placed in its slice,
// the result's lifetime grows to cover them, and the copies disappear: the
// kernels write the concatenation directly.
// CHECK-LABEL: func.func @concat
// CHECK-SAME:    %[[ARENA:[^:]*]]: memref<256xi8> {jeet.arena}
// CHECK-SAME:    arena_bytes = 256 : i64, buffers = 3 : i64, intermediate_bytes = 768 : i64, live_bytes_bound = 256 : i64
// CHECK:         %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = memref.view %[[ARENA]][%[[OA]]][] : memref<256xi8> to memref<1x16xf32>
// CHECK-NEXT:    linalg.exp {{.*}} outs(%[[A]] :
// CHECK-NEXT:    %[[OB:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[B:.*]] = memref.view %[[ARENA]][%[[OB]]][] : memref<256xi8> to memref<1x16xf32>
// CHECK-NEXT:    linalg.negf {{.*}} outs(%[[B]] :
// CHECK-NEXT:    %[[OC:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C:.*]] = memref.view %[[ARENA]][%[[OC]]][] : memref<256xi8> to memref<2x16xf32>
// CHECK-NEXT:    linalg.exp ins(%[[C]] : memref<2x16xf32>)
// CHECK-NEXT:    return
// Without coalescing the three buffers live apart, and the copies stay.
// OFF-LABEL: func.func @concat
// OFF-SAME:    arena_bytes = 768
// OFF:         linalg.copy
// OFF:         memref.copy
func.func @concat(%x: memref<1x16xf32>, %out: memref<2x16xf32>) {
  %a = memref.alloc() : memref<1x16xf32>
  linalg.exp ins(%x : memref<1x16xf32>) outs(%a : memref<1x16xf32>)
  %b = memref.alloc() : memref<1x16xf32>
  linalg.negf ins(%x : memref<1x16xf32>) outs(%b : memref<1x16xf32>)
  %c = memref.alloc() : memref<2x16xf32>
  %s0 = memref.subview %c[0, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  linalg.copy ins(%a : memref<1x16xf32>) outs(%s0 : memref<1x16xf32, strided<[16, 1]>>)
  memref.dealloc %a : memref<1x16xf32>
  %s1 = memref.subview %c[1, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  memref.copy %b, %s1 : memref<1x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  memref.dealloc %b : memref<1x16xf32>
  linalg.exp ins(%c : memref<2x16xf32>) outs(%out : memref<2x16xf32>)
  memref.dealloc %c : memref<2x16xf32>
  return
}

// -----

// Chains: a buffer coalesced into one that is itself copied whole into a
// slice of a third (densenet's concatenations of a concatenation), through
// reshapes: all three share the third's bytes. The copies of the
// arguments stay.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:[^:]*]]: memref<16xf32>, %[[Y:[^:]*]]: memref<1x32xf32>
// CHECK-SAME:    arena_bytes = 512
// CHECK:         arith.constant 256 : index
// CHECK-NEXT:    memref.view {{.*}} to memref<16xf32>
// CHECK:         arith.constant 256 : index
// CHECK-NEXT:    memref.view {{.*}} to memref<2x16xf32>
// CHECK-NEXT:    memref.subview
// CHECK:         linalg.copy ins(%{{.*}} : memref<1x16xf32>)
// CHECK:         arith.constant 0 : index
// CHECK-NEXT:    memref.view {{.*}} to memref<3x32xf32>
// CHECK-NEXT:    memref.subview
// CHECK-NEXT:    linalg.copy ins(%[[Y]] : memref<1x32xf32>)
// CHECK-NEXT:    linalg.exp
// CHECK-NEXT:    return
func.func @chain(%x: memref<16xf32>, %y: memref<1x32xf32>, %out: memref<3x32xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  %c = memref.alloc() : memref<2x16xf32>
  %s0 = memref.subview %c[0, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  %ea = memref.expand_shape %a [[0, 1]] output_shape [1, 16] : memref<16xf32> into memref<1x16xf32>
  linalg.copy ins(%ea : memref<1x16xf32>) outs(%s0 : memref<1x16xf32, strided<[16, 1]>>)
  memref.dealloc %a : memref<16xf32>
  %s1 = memref.subview %c[1, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  %ex = memref.expand_shape %x [[0, 1]] output_shape [1, 16] : memref<16xf32> into memref<1x16xf32>
  linalg.copy ins(%ex : memref<1x16xf32>) outs(%s1 : memref<1x16xf32, strided<[16, 1], offset: 16>>)
  %d = memref.alloc() : memref<3x32xf32>
  %t0 = memref.subview %d[0, 0] [1, 32] [1, 1] : memref<3x32xf32> to memref<1x32xf32, strided<[32, 1]>>
  linalg.copy ins(%y : memref<1x32xf32>) outs(%t0 : memref<1x32xf32, strided<[32, 1]>>)
  %t1 = memref.subview %d[2, 0] [1, 32] [1, 1] : memref<3x32xf32> to memref<1x32xf32, strided<[32, 1], offset: 64>>
  %cc = memref.collapse_shape %c [[0, 1]] : memref<2x16xf32> into memref<32xf32>
  %ec = memref.expand_shape %cc [[0, 1]] output_shape [1, 32] : memref<32xf32> into memref<1x32xf32>
  linalg.copy ins(%ec : memref<1x32xf32>) outs(%t1 : memref<1x32xf32, strided<[32, 1], offset: 64>>)
  memref.dealloc %c : memref<2x16xf32>
  linalg.exp ins(%d : memref<3x32xf32>) outs(%out : memref<3x32xf32>)
  memref.dealloc %d : memref<3x32xf32>
  return
}

// -----

// Left as copies: a source written after its copy (%a), a slice that is not
// contiguous (%b: one column of rows), a slice at an offset that is not a
// multiple of 64 bytes (%e at 4 floats). Each stays a buffer of its own.
// CHECK-LABEL: func.func @not_coalesced
// CHECK-SAME:    %[[ARENA:[^:]*]]: memref<512xi8> {jeet.arena}
// CHECK-SAME:    buffers = 6
// CHECK-COUNT-4: linalg.copy
// CHECK-NOT:     memref.view %[[ARENA]][%c0
// CHECK:         return
func.func @not_coalesced(%x: memref<1x16xf32>, %x2: memref<2x1xf32>, %x4: memref<4xf32>,
    %out: memref<2x16xf32>, %out2: memref<1x16xf32>, %out3: memref<2x2xf32>, %out4: memref<8xf32>) {
  %a = memref.alloc() : memref<1x16xf32>
  linalg.exp ins(%x : memref<1x16xf32>) outs(%a : memref<1x16xf32>)
  %c = memref.alloc() : memref<2x16xf32>
  %s0 = memref.subview %c[0, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  linalg.copy ins(%a : memref<1x16xf32>) outs(%s0 : memref<1x16xf32, strided<[16, 1]>>)
  linalg.negf ins(%x : memref<1x16xf32>) outs(%a : memref<1x16xf32>)
  linalg.exp ins(%a : memref<1x16xf32>) outs(%out2 : memref<1x16xf32>)
  memref.dealloc %a : memref<1x16xf32>
  %s1 = memref.subview %c[1, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  linalg.copy ins(%x : memref<1x16xf32>) outs(%s1 : memref<1x16xf32, strided<[16, 1], offset: 16>>)
  linalg.exp ins(%c : memref<2x16xf32>) outs(%out : memref<2x16xf32>)
  memref.dealloc %c : memref<2x16xf32>
  %b = memref.alloc() : memref<2x1xf32>
  linalg.exp ins(%x2 : memref<2x1xf32>) outs(%b : memref<2x1xf32>)
  %f = memref.alloc() : memref<2x2xf32>
  %r0 = memref.subview %f[0, 0] [2, 1] [1, 1] : memref<2x2xf32> to memref<2x1xf32, strided<[2, 1]>>
  linalg.copy ins(%b : memref<2x1xf32>) outs(%r0 : memref<2x1xf32, strided<[2, 1]>>)
  memref.dealloc %b : memref<2x1xf32>
  linalg.exp ins(%f : memref<2x2xf32>) outs(%out3 : memref<2x2xf32>)
  memref.dealloc %f : memref<2x2xf32>
  %e = memref.alloc() : memref<4xf32>
  linalg.exp ins(%x4 : memref<4xf32>) outs(%e : memref<4xf32>)
  %g = memref.alloc() : memref<8xf32>
  %q = memref.subview %g[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  linalg.copy ins(%e : memref<4xf32>) outs(%q : memref<4xf32, strided<[1], offset: 4>>)
  memref.dealloc %e : memref<4xf32>
  linalg.exp ins(%g : memref<8xf32>) outs(%out4 : memref<8xf32>)
  memref.dealloc %g : memref<8xf32>
  return
}

// -----

// A destination written by something other than copies into its slices
// (a fill), or read before a copy into it: no input goes into it.
// CHECK-LABEL: func.func @host_not_only_copies
// CHECK-COUNT-2: linalg.copy
// CHECK:         return
func.func @host_not_only_copies(%x: memref<1x16xf32>, %out: memref<2x16xf32>, %out2: memref<2x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<1x16xf32>
  linalg.exp ins(%x : memref<1x16xf32>) outs(%a : memref<1x16xf32>)
  %c = memref.alloc() : memref<2x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<2x16xf32>)
  %s0 = memref.subview %c[0, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  linalg.copy ins(%a : memref<1x16xf32>) outs(%s0 : memref<1x16xf32, strided<[16, 1]>>)
  memref.dealloc %a : memref<1x16xf32>
  linalg.exp ins(%c : memref<2x16xf32>) outs(%out : memref<2x16xf32>)
  memref.dealloc %c : memref<2x16xf32>
  %b = memref.alloc() : memref<1x16xf32>
  linalg.exp ins(%x : memref<1x16xf32>) outs(%b : memref<1x16xf32>)
  %d = memref.alloc() : memref<2x16xf32>
  linalg.exp ins(%d : memref<2x16xf32>) outs(%out2 : memref<2x16xf32>)
  %t0 = memref.subview %d[0, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  linalg.copy ins(%b : memref<1x16xf32>) outs(%t0 : memref<1x16xf32, strided<[16, 1]>>)
  memref.dealloc %b : memref<1x16xf32>
  memref.dealloc %d : memref<2x16xf32>
  return
}

// -----

// A source read after its copy is still coalesced: the slice keeps what
// the copy would have put there, and later reads read it (the result's
// lifetime covers it), the second copy of it into the other slice too: a
// buffer lies in one slice at most.
// CHECK-LABEL: func.func @read_after
// CHECK-SAME:    arena_bytes = 256
// CHECK:         %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = memref.view %{{.*}}[%[[OA]]][] : {{.*}} to memref<1x16xf32>
// CHECK:         %[[OC:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C:.*]] = memref.view %{{.*}}[%[[OC]]][] : {{.*}} to memref<2x16xf32>
// CHECK-NEXT:    %[[S1:.*]] = memref.subview %[[C]][1, 0]
// CHECK-NEXT:    linalg.copy ins(%[[A]] : memref<1x16xf32>) outs(%[[S1]] :
// CHECK-NEXT:    linalg.exp ins(%[[C]] : memref<2x16xf32>)
// CHECK-NEXT:    linalg.exp ins(%[[A]] : memref<1x16xf32>)
func.func @read_after(%x: memref<1x16xf32>, %out: memref<2x16xf32>, %out2: memref<1x16xf32>) {
  %a = memref.alloc() : memref<1x16xf32>
  linalg.exp ins(%x : memref<1x16xf32>) outs(%a : memref<1x16xf32>)
  %c = memref.alloc() : memref<2x16xf32>
  %s0 = memref.subview %c[0, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1]>>
  linalg.copy ins(%a : memref<1x16xf32>) outs(%s0 : memref<1x16xf32, strided<[16, 1]>>)
  %s1 = memref.subview %c[1, 0] [1, 16] [1, 1] : memref<2x16xf32> to memref<1x16xf32, strided<[16, 1], offset: 16>>
  linalg.copy ins(%a : memref<1x16xf32>) outs(%s1 : memref<1x16xf32, strided<[16, 1], offset: 16>>)
  linalg.exp ins(%c : memref<2x16xf32>) outs(%out : memref<2x16xf32>)
  memref.dealloc %c : memref<2x16xf32>
  linalg.exp ins(%a : memref<1x16xf32>) outs(%out2 : memref<1x16xf32>)
  memref.dealloc %a : memref<1x16xf32>
  return
}
