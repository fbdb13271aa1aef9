// RUN: jeet-opt %s --split-input-file --jeet-cpu-maximum-as-unsigned | FileCheck %s

#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A max pooling of a relu's values as views (stride 2), one of them through
// a reshape: the maximumf chain becomes maxui of the bits, one bitcast back.
// CHECK-LABEL: func.func @relu_pooled
// CHECK:         linalg.generic
// CHECK:           arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[IA:.*]] = arith.bitcast %[[A]] : f32 to i32
// CHECK-NEXT:      %[[IB:.*]] = arith.bitcast %[[B]] : f32 to i32
// CHECK-NEXT:      %[[AB:.*]] = arith.maxui %[[IA]], %[[IB]] : i32
// CHECK-NEXT:      %[[IC:.*]] = arith.bitcast %[[C]] : f32 to i32
// CHECK-NEXT:      %[[ABC:.*]] = arith.maxui %[[AB]], %[[IC]] : i32
// CHECK-NEXT:      %[[F:.*]] = arith.bitcast %[[ABC]] : i32 to f32
// CHECK-NEXT:      linalg.yield %[[F]] : f32
// CHECK-NOT:     arith.maximumf
func.func @relu_pooled(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %even = tensor.extract_slice %relu[0, 0] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %odd = tensor.extract_slice %relu[0, 1] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %flat = tensor.collapse_shape %relu [[0, 1]] : tensor<2x8xf32> into tensor<16xf32>
  %half = tensor.extract_slice %flat[8] [8] [1] : tensor<16xf32> to tensor<8xf32>
  %rows = tensor.expand_shape %half [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %max = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%even, %odd, %rows : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) outs(%e4 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    %n = arith.maximumf %m, %c : f32
    linalg.yield %n : f32
  } -> tensor<2x4xf32>
  return %max : tensor<2x4xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>

// Left alone: an input that may be negative (a max with -1, a function
// argument), -0 possible (maxnumf's relu), a body that is not only
// maximumf (a max then an add), a producer with a reduction loop.
// CHECK-LABEL: func.func @not_known_non_negative
// CHECK-NOT:     arith.maxui
// CHECK-NOT:     arith.bitcast
// CHECK:         return
func.func @not_known_non_negative(%x: tensor<8xf32>, %y: tensor<8xf32>, %z: tensor<8x8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %minus = arith.constant -1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %below = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %minus : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %relu = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %num = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maxnumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %rowmax = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]} ins(%z : tensor<8x8xf32>) outs(%fill : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%relu, %below : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%relu, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%relu, %num : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %3 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%relu, %relu : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    %s = arith.addf %m, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %4 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%relu, %rowmax : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %0, %1, %2, %3, %4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A convolution's tiles (an scf.forall inserting its relu epilogue's tiles
// into an empty tensor) and a concat of two such results (insert_slices
// into an empty tensor): both hold a relu's values, and the maximum of
// their views compares bits.
// CHECK-LABEL: func.func @tiles_and_concat
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK:           arith.maxui
// CHECK-NOT:       arith.maximumf
// CHECK:           linalg.yield
func.func @tiles_and_concat(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %tiles = scf.forall (%i) in (2) shared_outs(%o = %e) -> (tensor<2x4xf32>) {
    %in = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<1x4xf32>
    %out = tensor.extract_slice %o[%i, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<1x4xf32>
    %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in : tensor<1x4xf32>) outs(%out : tensor<1x4xf32>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %zero : f32
      linalg.yield %r : f32
    } -> tensor<1x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %relu into %o[%i, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
    }
  }
  %e8 = tensor.empty() : tensor<2x8xf32>
  %c0 = tensor.insert_slice %tiles into %e8[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %c1 = tensor.insert_slice %tiles into %c0[0, 4] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %left = tensor.extract_slice %c1[0, 0] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %right = tensor.extract_slice %c1[0, 1] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %max = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%left, %right : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x4xf32>
  return %max : tensor<2x4xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Left alone: tiles inserted into an argument (whose other elements may be
// negative), a relu's result inserted into an argument.
// CHECK-LABEL: func.func @into_arguments
// CHECK-NOT:     arith.maxui
// CHECK:         return
func.func @into_arguments(%x: tensor<2x4xf32>, %init: tensor<2x4xf32>, %wide: tensor<2x8xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %tiles = scf.forall (%i) in (1) shared_outs(%o = %init) -> (tensor<2x4xf32>) {
    %in = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<1x4xf32>
    %out = tensor.extract_slice %o[%i, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<1x4xf32>
    %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in : tensor<1x4xf32>) outs(%out : tensor<1x4xf32>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %zero : f32
      linalg.yield %r : f32
    } -> tensor<1x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %relu into %o[%i, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
    }
  }
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  %into = tensor.insert_slice %relu into %wide[0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
  %left = tensor.extract_slice %into[0, 0] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %right = tensor.extract_slice %into[0, 1] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%tiles, %relu : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x4xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%left, %right : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>

// A max pooling (3 taps, stride 2) of a relu padded by -inf (a jeet.pad's
// generic): every window reads an element of the relu, so the pad value
// becomes +0 (never above a relu's value) and the maximum compares bits.
// CHECK-LABEL: func.func @padded
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.generic {{.*}}jeet.pad_low
// CHECK:           arith.select %{{.*}}, %{{.*}}, %[[ZERO]] : f32
// CHECK:         linalg.generic
// CHECK-COUNT-2:   arith.maxui
// CHECK-NOT:       arith.maximumf
// CHECK:           linalg.yield
func.func @padded(%x: tensor<4xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %relu = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e6 = tensor.empty() : tensor<6xf32>
  %pad = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]}
      outs(%e6 : tensor<6xf32>) attrs = {jeet.pad_low = array<i64: 1>} {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = arith.subi %i, %c1 : index
    %ge = arith.cmpi sge, %j, %c0 : index
    %lt = arith.cmpi slt, %j, %c4 : index
    %inside = arith.andi %ge, %lt : i1
    %lo = arith.maxsi %j, %c0 : index
    %at = arith.minsi %lo, %c3 : index
    %v = tensor.extract %relu[%at] : tensor<4xf32>
    %r = arith.select %inside, %v, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %t0 = tensor.extract_slice %pad[0] [2] [2] : tensor<6xf32> to tensor<2xf32>
  %t1 = tensor.extract_slice %pad[1] [2] [2] : tensor<6xf32> to tensor<2xf32>
  %t2 = tensor.extract_slice %pad[2] [2] [2] : tensor<6xf32> to tensor<2xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %max = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%t0, %t1, %t2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) outs(%e2 : tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    %n = arith.maximumf %m, %c : f32
    linalg.yield %n : f32
  } -> tensor<2xf32>
  return %max : tensor<2xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>

// Left alone: a window that reads only the padding (its maximum must stay
// -inf), and a pad that something else reads too.
// CHECK-LABEL: func.func @padding_alone
// CHECK-NOT:     arith.maxui
// CHECK:         arith.select %{{.*}}, %{{.*}}, %[[NINF:.*]] : f32
// CHECK-NOT:     arith.maxui
// CHECK:         return
func.func @padding_alone(%x: tensor<4xf32>) -> (tensor<1xf32>, tensor<2xf32>, tensor<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %relu = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e6 = tensor.empty() : tensor<6xf32>
  %pad = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]}
      outs(%e6 : tensor<6xf32>) attrs = {jeet.pad_low = array<i64: 1>} {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = arith.subi %i, %c1 : index
    %ge = arith.cmpi sge, %j, %c0 : index
    %lt = arith.cmpi slt, %j, %c4 : index
    %inside = arith.andi %ge, %lt : i1
    %lo = arith.maxsi %j, %c0 : index
    %at = arith.minsi %lo, %c3 : index
    %v = tensor.extract %relu[%at] : tensor<4xf32>
    %r = arith.select %inside, %v, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %first = tensor.extract_slice %pad[0] [1] [1] : tensor<6xf32> to tensor<1xf32>
  %last = tensor.extract_slice %pad[5] [1] [1] : tensor<6xf32> to tensor<1xf32>
  %e1 = tensor.empty() : tensor<1xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%first, %last : tensor<1xf32>, tensor<1xf32>) outs(%e1 : tensor<1xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1xf32>
  %pad2 = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]}
      outs(%e6 : tensor<6xf32>) attrs = {jeet.pad_low = array<i64: 1>} {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = arith.subi %i, %c1 : index
    %ge = arith.cmpi sge, %j, %c0 : index
    %lt = arith.cmpi slt, %j, %c4 : index
    %inside = arith.andi %ge, %lt : i1
    %lo = arith.maxsi %j, %c0 : index
    %at = arith.minsi %lo, %c3 : index
    %v = tensor.extract %relu[%at] : tensor<4xf32>
    %r = arith.select %inside, %v, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %t0 = tensor.extract_slice %pad2[0] [2] [2] : tensor<6xf32> to tensor<2xf32>
  %t1 = tensor.extract_slice %pad2[1] [2] [2] : tensor<6xf32> to tensor<2xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%t0, %t1 : tensor<2xf32>, tensor<2xf32>) outs(%e2 : tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.maximumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  return %0, %1, %pad2 : tensor<1xf32>, tensor<2xf32>, tensor<6xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>

// A pooling of a pooling of a relu's values (googlenet's poolings in a
// row): the first maximum, rewritten, holds such values too.
// CHECK-LABEL: func.func @pooled_twice
// CHECK-COUNT-2: arith.maxui
// CHECK-NOT:     arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:         return
func.func @pooled_twice(%x: tensor<8xf32>) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %relu = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %a = tensor.extract_slice %relu[0] [4] [2] : tensor<8xf32> to tensor<4xf32>
  %b = tensor.extract_slice %relu[1] [4] [2] : tensor<8xf32> to tensor<4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %first = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %m = arith.maximumf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %c = tensor.extract_slice %first[0] [2] [2] : tensor<4xf32> to tensor<2xf32>
  %d = tensor.extract_slice %first[1] [2] [2] : tensor<4xf32> to tensor<2xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %second = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%c, %d : tensor<2xf32>, tensor<2xf32>) outs(%e2 : tensor<2xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %m = arith.maximumf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  return %second : tensor<2xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A pooling generic with a second result computed from the pooled value
// (DenseNet's stem: the pooling, and the next layer's batch norm and relu
// fused in): the tree becomes maxui right after it, and the second result
// reads its bits as a float.
// CHECK-LABEL: func.func @pooled_with_its_batch_norm
// CHECK:         linalg.generic
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[IA:.*]] = arith.bitcast %[[A]] : f32 to i32
// CHECK-NEXT:      %[[IB:.*]] = arith.bitcast %[[B]] : f32 to i32
// CHECK-NEXT:      %[[M:.*]] = arith.maxui %[[IA]], %[[IB]] : i32
// CHECK-NEXT:      %[[F:.*]] = arith.bitcast %[[M]] : i32 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[F]], %{{.*}} : f32
// CHECK-NEXT:      %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} : f32
// CHECK-NEXT:      linalg.yield %[[F]], %[[R]] : f32, f32
func.func @pooled_with_its_batch_norm(%x: tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %even = tensor.extract_slice %relu[0, 0] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %odd = tensor.extract_slice %relu[0, 1] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %max:2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%even, %odd : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e4, %e4 : tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32, %out2: f32):
    %m = arith.maximumf %a, %b : f32
    %s = arith.mulf %m, %scale : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %m, %r : f32, f32
  } -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %max#0, %max#1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Left alone: two results that are trees of maxima; and a padded pooling
// whose second result reads a view of the pad itself (its -inf would
// become +0 there).
// CHECK-LABEL: func.func @not_one_tree_alone
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NOT:     arith.maxui
// CHECK:         arith.select %{{.*}}, %{{.*}}, %[[NINF]] : f32
// CHECK-NOT:     arith.maxui
// CHECK:         return
func.func @not_one_tree_alone(%x: tensor<2x8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<2x8xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %even = tensor.extract_slice %relu[0, 0] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %odd = tensor.extract_slice %relu[0, 1] [2, 4] [1, 2] : tensor<2x8xf32> to tensor<2x4xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %two:2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%even, %odd : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e4, %e4 : tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32, %out2: f32):
    %m = arith.maximumf %a, %b : f32
    %n = arith.maximumf %b, %a : f32
    linalg.yield %m, %n : f32, f32
  } -> (tensor<2x4xf32>, tensor<2x4xf32>)
  %e10 = tensor.empty() : tensor<2x10xf32>
  %pad = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e10 : tensor<2x10xf32>) attrs = {jeet.pad_low = array<i64: 0, 1>} {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %jj = arith.subi %j, %c1 : index
    %lo = arith.cmpi sge, %jj, %c0 : index
    %hi = arith.cmpi slt, %jj, %c8 : index
    %in = arith.andi %lo, %hi : i1
    %c7 = arith.constant 7 : index
    %p = arith.maxsi %jj, %c0 : index
    %q = arith.minsi %p, %c7 : index
    %v = tensor.extract %relu[%i, %q] : tensor<2x8xf32>
    %s = arith.select %in, %v, %ninf : f32
    linalg.yield %s : f32
  } -> tensor<2x10xf32>
  %w0 = tensor.extract_slice %pad[0, 0] [2, 4] [1, 2] : tensor<2x10xf32> to tensor<2x4xf32>
  %w1 = tensor.extract_slice %pad[0, 1] [2, 4] [1, 2] : tensor<2x10xf32> to tensor<2x4xf32>
  %w2 = tensor.extract_slice %pad[0, 2] [2, 4] [1, 2] : tensor<2x10xf32> to tensor<2x4xf32>
  %pooled:2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w0, %w1, %w2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) outs(%e4, %e4 : tensor<2x4xf32>, tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32, %out2: f32):
    %m = arith.maximumf %a, %b : f32
    %n = arith.maximumf %m, %c : f32
    %s = arith.addf %a, %zero : f32
    linalg.yield %n, %s : f32, f32
  } -> (tensor<2x4xf32>, tensor<2x4xf32>)
  return %two#0, %two#1, %pooled#0, %pooled#1 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A pooling whose windows do not overlap is a max reduction over a reshape
// of its input (googlenet's 2x2/2): the maximum of a relu's values, whatever
// its init (-inf), holds such values, so the overlapping pooling after it
// compares bits. A max reduction of them over an empty dimension does not
// (its init, -inf, stays).
// CHECK-LABEL: func.func @pooled_after_a_reduction
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:         linalg.generic
// CHECK:           arith.maxui
// CHECK:         linalg.generic
// CHECK-NOT:       arith.maxui
// CHECK:           arith.maximumf
// CHECK:         return
func.func @pooled_after_a_reduction(%x: tensor<2x8xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %pairs = tensor.expand_shape %relu [[0], [1, 2]] output_shape [2, 4, 2] : tensor<2x8xf32> into tensor<2x4x2xf32>
  %e4 = tensor.empty() : tensor<2x4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %halved = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%pairs : tensor<2x4x2xf32>) outs(%init : tensor<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<2x4xf32>
  %e0 = tensor.empty() : tensor<2x2x0xf32>
  %z = tensor.extract_slice %relu[0, 0] [2, 0] [1, 1] : tensor<2x8xf32> to tensor<2x0xf32>
  %none = tensor.expand_shape %z [[0], [1, 2]] output_shape [2, 2, 0] : tensor<2x0xf32> into tensor<2x2x0xf32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  %init2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %empty = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%none : tensor<2x2x0xf32>) outs(%init2 : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  %a = tensor.extract_slice %halved[0, 0] [2, 2] [1, 2] : tensor<2x4xf32> to tensor<2x2xf32>
  %b = tensor.extract_slice %halved[0, 1] [2, 2] [1, 2] : tensor<2x4xf32> to tensor<2x2xf32>
  %pooled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e2 : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %m = arith.maximumf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  %c = tensor.extract_slice %halved[0, 0] [2, 2] [1, 2] : tensor<2x4xf32> to tensor<2x2xf32>
  %notknown = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %empty : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e2 : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %m = arith.maximumf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  return %pooled, %notknown : tensor<2x2xf32>, tensor<2x2xf32>
}
