// RUN: jeet-opt %s --split-input-file --jeet-expand-bf16=conversion=hardware | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-expand-bf16=conversion=hardware --canonicalize | FileCheck %s --check-prefix=FOLD

// conversion=hardware: the truncation stays, for the target's
// vcvtneps2bf16, on the input with zeros and subnormals lifted into the
// smallest normal binade (exponent bit 0x00800000 set), and their results
// lowered by 0x80 again. One truncation: the pattern does not expand the
// truncation it makes.
// CHECK-LABEL: func.func @vector
// CHECK-SAME: (%[[X:.*]]: vector<16xf32>)
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[EXPMASK:.*]] = arith.constant dense<2139095040> : vector<16xi32>
// CHECK: %[[EXP:.*]] = arith.andi %[[BITS]], %[[EXPMASK]] : vector<16xi32>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : vector<16xi32>
// CHECK: %[[TINY:.*]] = arith.cmpi eq, %[[EXP]], %[[ZERO]] : vector<16xi32>
// CHECK: %[[BINADE:.*]] = arith.constant dense<8388608> : vector<16xi32>
// CHECK: %[[LIFTED:.*]] = arith.ori %[[BITS]], %[[BINADE]] : vector<16xi32>
// CHECK: %[[CHOSEN:.*]] = arith.select %[[TINY]], %[[LIFTED]], %[[BITS]] : vector<16xi1>, vector<16xi32>
// CHECK: %[[IN:.*]] = arith.bitcast %[[CHOSEN]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[T:.*]] = arith.truncf %[[IN]] : vector<16xf32> to vector<16xbf16>
// CHECK: %[[TB:.*]] = arith.bitcast %[[T]] : vector<16xbf16> to vector<16xi16>
// CHECK: %[[C80:.*]] = arith.constant dense<128> : vector<16xi16>
// CHECK: %[[LOWERED:.*]] = arith.subi %[[TB]], %[[C80]] : vector<16xi16>
// CHECK: %[[RB:.*]] = arith.select %[[TINY]], %[[LOWERED]], %[[TB]] : vector<16xi1>, vector<16xi16>
// CHECK: %[[R:.*]] = arith.bitcast %[[RB]] : vector<16xi16> to vector<16xbf16>
// CHECK-NOT: arith.truncf
// CHECK: return %[[R]]
func.func @vector(%x: vector<16xf32>) -> vector<16xbf16> {
  %0 = arith.truncf %x : vector<16xf32> to vector<16xbf16>
  return %0 : vector<16xbf16>
}

// -----

// Arithmetic on bf16 is computed in f32 as with conversion=integer (the
// extensions are integer ops: no arith.extf), rounded by the conversion.
// CHECK-LABEL: func.func @arithmetic
// CHECK-NOT: arith.extf
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: arith.bitcast %[[P]] : vector<16xf32> to vector<16xi32>
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: return
func.func @arithmetic(%a: vector<16xbf16>, %b: vector<16xbf16>) -> vector<16xbf16> {
  %0 = arith.mulf %a, %b : vector<16xbf16>
  return %0 : vector<16xbf16>
}

// -----

// Constants fold where the lifted value converts exactly (MLIR folds only
// exact truncations; inexact ones stay for the instruction, and
// bf16-conversion.mlir runs them): 2^-127 (0x00400000, lifted 0x00c00000)
// to 0x0040; the subnormal 0x00010000 to 0x0001; 0.0 to 0 and -0.0 to
// 0x8000 (-32768); -2^-127 to 0x8040 (-32704); 1.0 stays 0x3f80.
// FOLD-LABEL: func.func @constants
// FOLD-NOT: arith.truncf
// FOLD-DAG: %[[HALF:.*]] = arith.constant 64 : i16
// FOLD-DAG: %[[ONE:.*]] = arith.constant 1 : i16
// FOLD-DAG: %[[ZERO:.*]] = arith.constant 0 : i16
// FOLD-DAG: %[[NEGZERO:.*]] = arith.constant -32768 : i16
// FOLD-DAG: %[[NEGHALF:.*]] = arith.constant -32704 : i16
// FOLD-DAG: %[[UNIT:.*]] = arith.constant 16256 : i16
// FOLD: return %[[HALF]], %[[ONE]], %[[ZERO]], %[[NEGZERO]], %[[NEGHALF]], %[[UNIT]]
func.func @constants() -> (i16, i16, i16, i16, i16, i16) {
  %b0 = arith.constant 0x00400000 : i32
  %b1 = arith.constant 0x00010000 : i32
  %b2 = arith.constant 0x00000000 : i32
  %b3 = arith.constant 0x80000000 : i32
  %b4 = arith.constant 0x80400000 : i32
  %b5 = arith.constant 0x3F800000 : i32
  %f0 = arith.bitcast %b0 : i32 to f32
  %f1 = arith.bitcast %b1 : i32 to f32
  %f2 = arith.bitcast %b2 : i32 to f32
  %f3 = arith.bitcast %b3 : i32 to f32
  %f4 = arith.bitcast %b4 : i32 to f32
  %f5 = arith.bitcast %b5 : i32 to f32
  %t0 = arith.truncf %f0 : f32 to bf16
  %t1 = arith.truncf %f1 : f32 to bf16
  %t2 = arith.truncf %f2 : f32 to bf16
  %t3 = arith.truncf %f3 : f32 to bf16
  %t4 = arith.truncf %f4 : f32 to bf16
  %t5 = arith.truncf %f5 : f32 to bf16
  %r0 = arith.bitcast %t0 : bf16 to i16
  %r1 = arith.bitcast %t1 : bf16 to i16
  %r2 = arith.bitcast %t2 : bf16 to i16
  %r3 = arith.bitcast %t3 : bf16 to i16
  %r4 = arith.bitcast %t4 : bf16 to i16
  %r5 = arith.bitcast %t5 : bf16 to i16
  return %r0, %r1, %r2, %r3, %r4, %r5 : i16, i16, i16, i16, i16, i16
}

// -----

// A scalar likewise; a truncation with an explicit rounding mode stays as
// it is.
// CHECK-LABEL: func.func @scalar
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.subi %{{.*}}, %{{.*}} : i16
// CHECK: arith.truncf %{{.*}} to_nearest_away : f32 to bf16
// CHECK-NOT: arith.truncf
func.func @scalar(%x: f32, %y: f32) -> (bf16, bf16) {
  %0 = arith.truncf %x : f32 to bf16
  %1 = arith.truncf %y to_nearest_away : f32 to bf16
  return %0, %1 : bf16, bf16
}
