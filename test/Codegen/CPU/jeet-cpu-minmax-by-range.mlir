// RUN: jeet-opt %s --split-input-file --jeet-cpu-minmax-by-range=target=avx512 | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-cpu-minmax-by-range=target=none | FileCheck %s --check-prefix=NONE
// RUN: not jeet-opt %s --jeet-cpu-minmax-by-range=target=sse 2>&1 | FileCheck %s --check-prefix=ERR

// ERR: jeet-cpu-minmax-by-range: unknown target 'sse' (expected avx512, none or host)

// A tree of three maxima over four leaves (a pooling's window): each node
// a vrangeps (immediate 5: the maximum, the sign from the comparison), the
// leaves tested for NaN two at a time, one select of the NaN.
// CHECK-LABEL: func.func @max_tree
// CHECK-SAME: (%[[A:.*]]: vector<16xf32>, %[[B:.*]]: vector<16xf32>, %[[C:.*]]: vector<16xf32>, %[[D:.*]]: vector<16xf32>)
// CHECK-DAG:   %[[IMM:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-DAG:   %[[ALL:.*]] = llvm.mlir.constant(-1 : i16) : i16
// CHECK-DAG:   %[[SAE:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-DAG:   %[[P:.*]] = llvm.mlir.poison : vector<16xf32>
// CHECK:       %[[AB:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%[[A]], %[[B]], %[[IMM]], %[[P]], %[[ALL]], %[[SAE]])
// CHECK:       %[[CD:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%[[C]], %[[D]], %[[IMM]], %[[P]], %[[ALL]], %[[SAE]])
// CHECK:       %[[M:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%[[AB]], %[[CD]], %[[IMM]], %[[P]], %[[ALL]], %[[SAE]])
// CHECK:       %[[N1:.*]] = arith.cmpf uno, %[[A]], %[[B]] : vector<16xf32>
// CHECK:       %[[N2:.*]] = arith.cmpf uno, %[[C]], %[[D]] : vector<16xf32>
// CHECK:       %[[ANY:.*]] = arith.ori %[[N1]], %[[N2]] : vector<16xi1>
// CHECK:       %[[NAN:.*]] = arith.constant dense<0x7FC00000> : vector<16xf32>
// CHECK:       %[[R:.*]] = arith.select %[[ANY]], %[[NAN]], %[[M]]
// CHECK-NOT:   arith.maximumf
// CHECK:       return %[[R]]
// NONE-LABEL: func.func @max_tree
// NONE-COUNT-3: arith.maximumf
// NONE-NOT:    llvm.call_intrinsic
func.func @max_tree(%a: vector<16xf32>, %b: vector<16xf32>, %c: vector<16xf32>, %d: vector<16xf32>) -> vector<16xf32> {
  %ab = arith.maximumf %a, %b : vector<16xf32>
  %cd = arith.maximumf %c, %d : vector<16xf32>
  %m = arith.maximumf %ab, %cd : vector<16xf32>
  return %m : vector<16xf32>
}

// -----

// A minimum of 8 lanes (immediate 4, the 256-bit form: no rounding
// operand, an i8 mask); an odd leaf tested against itself.
// CHECK-LABEL: func.func @min_of_three
// CHECK-SAME: (%[[A:.*]]: vector<8xf32>, %[[B:.*]]: vector<8xf32>, %[[C:.*]]: vector<8xf32>)
// CHECK-DAG:   %[[IMM:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-DAG:   %[[ALL:.*]] = llvm.mlir.constant(-1 : i8) : i8
// CHECK:       %[[AB:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.256"(%[[A]], %[[B]], %[[IMM]], %{{.*}}, %[[ALL]]) : (vector<8xf32>, vector<8xf32>, i32, vector<8xf32>, i8) -> vector<8xf32>
// CHECK:       %[[M:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.256"(%[[AB]], %[[C]], %[[IMM]], %{{.*}}, %[[ALL]])
// CHECK:       arith.cmpf uno, %[[A]], %[[B]] : vector<8xf32>
// CHECK:       arith.cmpf uno, %[[C]], %[[C]] : vector<8xf32>
func.func @min_of_three(%a: vector<8xf32>, %b: vector<8xf32>, %c: vector<8xf32>) -> vector<8xf32> {
  %ab = arith.minimumf %a, %b : vector<8xf32>
  %m = arith.minimumf %ab, %c : vector<8xf32>
  return %m : vector<8xf32>
}

// -----

// Trees end where a node has two users or the kind changes: the maximum
// read twice is a tree of its own (a leaf of both trees after it), the
// minimum of maxima is a tree over two maxima trees. 4 lanes: the 128-bit
// form.
// CHECK-LABEL: func.func @shared_and_mixed
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.128"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (vector<4xf32>, vector<4xf32>, i32, vector<4xf32>, i8) -> vector<4xf32>
// CHECK:       arith.select
// CHECK:       llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.128"
// CHECK:       arith.select
// CHECK:       llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.128"
// CHECK:       arith.select
// CHECK-NOT:   arith.maximumf
// CHECK-NOT:   arith.minimumf
func.func @shared_and_mixed(%a: vector<4xf32>, %b: vector<4xf32>, %c: vector<4xf32>) -> vector<4xf32> {
  %s = arith.maximumf %a, %b : vector<4xf32>
  %t = arith.maximumf %s, %c : vector<4xf32>
  %u = arith.maximumf %s, %a : vector<4xf32>
  %m = arith.minimumf %t, %u : vector<4xf32>
  return %m : vector<4xf32>
}

// -----

// Left alone: scalars, 9 lanes, f64, maxnumf.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:   llvm.call_intrinsic
// CHECK:       return
func.func @left_alone(%a: f32, %b: f32, %v: vector<9xf32>, %w: vector<8xf64>, %x: vector<16xf32>)
    -> (f32, vector<9xf32>, vector<8xf64>, vector<16xf32>) {
  %0 = arith.maximumf %a, %b : f32
  %1 = arith.maximumf %v, %v : vector<9xf32>
  %2 = arith.minimumf %w, %w : vector<8xf64>
  %3 = arith.maxnumf %x, %x : vector<16xf32>
  return %0, %1, %2, %3 : f32, vector<9xf32>, vector<8xf64>, vector<16xf32>
}

// -----

// Left alone: a single maximum with a constant (a relu's, the constant as
// it is or broadcast), which LLVM lowers in three instructions already. A
// tree of two nodes with a constant leaf is taken.
// CHECK-LABEL: func.func @constant_operands
// CHECK:       arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:       arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT:   arith.maximumf
// CHECK:       llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"
// CHECK:       llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"
// CHECK:       arith.select
func.func @constant_operands(%x: vector<16xf32>, %y: vector<16xf32>, %s: f32)
    -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %c = arith.constant 0.0 : f32
  %splat = vector.broadcast %c : f32 to vector<16xf32>
  %0 = arith.maximumf %x, %zero : vector<16xf32>
  %1 = arith.maximumf %splat, %x : vector<16xf32>
  %m = arith.maximumf %x, %y : vector<16xf32>
  %2 = arith.maximumf %m, %zero : vector<16xf32>
  return %0, %1, %2 : vector<16xf32>, vector<16xf32>, vector<16xf32>
}
