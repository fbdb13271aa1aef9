// RUN: jeet-opt %s --split-input-file --jeet-expand-bf16 | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-expand-bf16 --canonicalize | FileCheck %s --check-prefix=FOLD

// A vector of f32 rounded to bf16 by integer vector ops: the bias 0x7fff
// plus the kept part's lowest bit, the high half kept; a NaN (unordered
// with itself) keeps its high half with the quiet bit (0x40) set.
// CHECK-LABEL: func.func @vector
// CHECK-SAME: (%[[X:.*]]: vector<16xf32>)
// CHECK-NOT: arith.truncf
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[C16:.*]] = arith.constant dense<16> : vector<16xi32>
// CHECK: %[[HIGH:.*]] = arith.shrui %[[BITS]], %[[C16]] : vector<16xi32>
// CHECK: %[[C1:.*]] = arith.constant dense<1> : vector<16xi32>
// CHECK: %[[ODD:.*]] = arith.andi %[[HIGH]], %[[C1]] : vector<16xi32>
// CHECK: %[[C7FFF:.*]] = arith.constant dense<32767> : vector<16xi32>
// CHECK: %[[BIAS:.*]] = arith.addi %[[ODD]], %[[C7FFF]] : vector<16xi32>
// CHECK: %[[SUM:.*]] = arith.addi %[[BITS]], %[[BIAS]] : vector<16xi32>
// CHECK: %[[C16B:.*]] = arith.constant dense<16> : vector<16xi32>
// CHECK: %[[ROUNDED:.*]] = arith.shrui %[[SUM]], %[[C16B]] : vector<16xi32>
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : vector<16xf32>
// CHECK: %[[C64:.*]] = arith.constant dense<64> : vector<16xi32>
// CHECK: %[[QUIET:.*]] = arith.ori %[[HIGH]], %[[C64]] : vector<16xi32>
// CHECK: %[[CHOSEN:.*]] = arith.select %[[NAN]], %[[QUIET]], %[[ROUNDED]] : vector<16xi1>, vector<16xi32>
// CHECK: %[[NARROW:.*]] = arith.trunci %[[CHOSEN]] : vector<16xi32> to vector<16xi16>
// CHECK: %[[R:.*]] = arith.bitcast %[[NARROW]] : vector<16xi16> to vector<16xbf16>
// CHECK: return %[[R]]
func.func @vector(%x: vector<16xf32>) -> vector<16xbf16> {
  %0 = arith.truncf %x : vector<16xf32> to vector<16xbf16>
  return %0 : vector<16xbf16>
}

// -----

// Arithmetic on bf16 is computed in f32 (each operand's bits shifted into
// the high half) and rounded back by the same ops.
// CHECK-LABEL: func.func @arithmetic
// CHECK-SAME: (%[[A:.*]]: vector<16xbf16>, %[[B:.*]]: vector<16xbf16>)
// CHECK-NOT: arith.extf
// CHECK-DAG: %[[IA:.*]] = arith.bitcast %[[A]] : vector<16xbf16> to vector<16xi16>
// CHECK-DAG: %[[EA:.*]] = arith.extui %[[IA]] : vector<16xi16> to vector<16xi32>
// CHECK-DAG: %[[SA:.*]] = arith.shli %[[EA]], %{{.*}} : vector<16xi32>
// CHECK-DAG: %[[WA:.*]] = arith.bitcast %[[SA]] : vector<16xi32> to vector<16xf32>
// CHECK-DAG: %[[IB:.*]] = arith.bitcast %[[B]] : vector<16xbf16> to vector<16xi16>
// CHECK-DAG: %[[EB:.*]] = arith.extui %[[IB]] : vector<16xi16> to vector<16xi32>
// CHECK-DAG: %[[SB:.*]] = arith.shli %[[EB]], %{{.*}} : vector<16xi32>
// CHECK-DAG: %[[WB:.*]] = arith.bitcast %[[SB]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[WA]], %[[WB]] : vector<16xf32>
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %[[P]] : vector<16xf32> to vector<16xi32>
// CHECK: arith.cmpf uno, %[[P]], %[[P]]
// CHECK: %[[R:.*]] = arith.bitcast %{{.*}} : vector<16xi16> to vector<16xbf16>
// CHECK: return %[[R]]
func.func @arithmetic(%a: vector<16xbf16>, %b: vector<16xbf16>) -> vector<16xbf16> {
  %0 = arith.mulf %a, %b : vector<16xbf16>
  return %0 : vector<16xbf16>
}

// -----

// A math op on bf16 that no approximation took is computed in f32 too.
// CHECK-LABEL: func.func @math
// CHECK-NOT: arith.extf
// CHECK: %[[W:.*]] = arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: %[[F:.*]] = math.floor %[[W]] : vector<8xf32>
// CHECK: arith.bitcast %[[F]] : vector<8xf32> to vector<8xi32>
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @math(%x: vector<8xbf16>) -> vector<8xbf16> {
  %0 = math.floor %x : vector<8xbf16>
  return %0 : vector<8xbf16>
}

// -----

// A scalar likewise, with scalar constants.
// CHECK-LABEL: func.func @scalar
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.constant 32767 : i32
// CHECK: arith.cmpf uno
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @scalar(%x: f32) -> bf16 {
  %0 = arith.truncf %x : f32 to bf16
  return %0 : bf16
}

// -----

// Constants fold to the rounded bits: 2^-127 (a subnormal, which
// vcvtneps2bf16 flushes to zero) is 0x0040; 1 + 2^-8 (a tie) rounds to
// even, 1.0 (0x3f80); 1 + 3 * 2^-8 (a tie) to 1 + 2^-6 (0x3f82); the largest
// finite f32 rounds up to infinity (0x7f80); -NaN with a payload stays a
// negative NaN, quiet (0xffc1). Each result is returned as its bits.
// FOLD-LABEL: func.func @constants
// FOLD-NOT: arith.truncf
// FOLD-DAG: %[[SUB:.*]] = arith.constant 64 : i16
// FOLD-DAG: %[[TIE_EVEN:.*]] = arith.constant 16256 : i16
// FOLD-DAG: %[[TIE_ODD:.*]] = arith.constant 16258 : i16
// FOLD-DAG: %[[INF:.*]] = arith.constant 32640 : i16
// FOLD-DAG: %[[NAN:.*]] = arith.constant -63 : i16
// FOLD: return %[[SUB]], %[[TIE_EVEN]], %[[TIE_ODD]], %[[INF]], %[[NAN]]
func.func @constants() -> (i16, i16, i16, i16, i16) {
  %b0 = arith.constant 0x00400000 : i32
  %b1 = arith.constant 0x3F808000 : i32
  %b2 = arith.constant 0x3F818000 : i32
  %b3 = arith.constant 0x7F7FFFFF : i32
  %b4 = arith.constant 0xFF810001 : i32
  %f0 = arith.bitcast %b0 : i32 to f32
  %f1 = arith.bitcast %b1 : i32 to f32
  %f2 = arith.bitcast %b2 : i32 to f32
  %f3 = arith.bitcast %b3 : i32 to f32
  %f4 = arith.bitcast %b4 : i32 to f32
  %t0 = arith.truncf %f0 : f32 to bf16
  %t1 = arith.truncf %f1 : f32 to bf16
  %t2 = arith.truncf %f2 : f32 to bf16
  %t3 = arith.truncf %f3 : f32 to bf16
  %t4 = arith.truncf %f4 : f32 to bf16
  %r0 = arith.bitcast %t0 : bf16 to i16
  %r1 = arith.bitcast %t1 : bf16 to i16
  %r2 = arith.bitcast %t2 : bf16 to i16
  %r3 = arith.bitcast %t3 : bf16 to i16
  %r4 = arith.bitcast %t4 : bf16 to i16
  return %r0, %r1, %r2, %r3, %r4 : i16, i16, i16, i16, i16
}

// -----

// Other truncations, and one with an explicit rounding mode, stay.
// CHECK-LABEL: func.func @others
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
// CHECK: arith.truncf %{{.*}} to_nearest_away : f32 to bf16
func.func @others(%x: vector<8xf32>, %y: f32) -> (vector<8xf16>, bf16) {
  %0 = arith.truncf %x : vector<8xf32> to vector<8xf16>
  %1 = arith.truncf %y to_nearest_away : f32 to bf16
  return %0, %1 : vector<8xf16>, bf16
}
