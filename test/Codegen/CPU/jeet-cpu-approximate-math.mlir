// RUN: jeet-opt %s --split-input-file --jeet-cpu-approximate-math | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-cpu-approximate-math=functions=exp | FileCheck %s --check-prefix=EXP

// exp, log and tanh on vectors become plain arithmetic (FMAs of the
// polynomial), with the edge-of-range fix-ups around them; no libm call is
// left. sqrt is untouched.
// CHECK-LABEL: func.func @vectors
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: math.copysign {{.*}} : vector<16xf32>
// CHECK: math.sqrt {{.*}} : vector<16xf32>
// CHECK: return

// EXP-LABEL: func.func @vectors
// EXP-NOT: math.exp
// EXP: math.log {{.*}} : vector<16xf32>
// EXP: math.tanh {{.*}} : vector<16xf32>
func.func @vectors(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %e = math.exp %x : vector<16xf32>
  %l = math.log %x : vector<16xf32>
  %t = math.tanh %x : vector<16xf32>
  %s = math.sqrt %x : vector<16xf32>
  return %e, %l, %t, %s : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// -----

// The fix-ups: exp below -87 is computed as exp(x / 2)^2 (subnormal
// results), log of a subnormal as log(x * 2^23) - 23 ln 2, and tanh keeps the
// sign of its argument (tanh(-0) = -0).
// CHECK-LABEL: func.func @exp_subnormal_results
// CHECK-DAG: %[[M87:.*]] = arith.constant -8.700000e+01 : f32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[X:.*]], %[[M87]] : f32
// CHECK: %[[H:.*]] = arith.mulf %[[X]], %[[HALF]] : f32
// CHECK: arith.select %[[SMALL]], %[[H]], %[[X]] : f32
// CHECK: %[[R:.*]] = arith.select %[[SMALL]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: return %[[R]]
func.func @exp_subnormal_results(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}

// -----

// CHECK-LABEL: func.func @log_subnormal_inputs
// CHECK-DAG: %[[MIN:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0x4B000000 : f32
// CHECK-DAG: %[[FIX:.*]] = arith.constant -15.9423847 : f32
// CHECK: arith.cmpf olt, %{{.*}}, %[[MIN]] : f32
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: arith.select %{{.*}}, %[[FIX]], %{{.*}} : f32
func.func @log_subnormal_inputs(%x: f32) -> f32 {
  %l = math.log %x : f32
  return %l : f32
}

// -----

// f64 keeps its libm call (the approximations are f32 only).
// CHECK-LABEL: func.func @f64_untouched
// CHECK: math.exp {{.*}} : f64
func.func @f64_untouched(%x: f64) -> f64 {
  %e = math.exp %x : f64
  return %e : f64
}

// -----

// exp's approximation: the input clamped with unordered compares (a NaN
// stays, and comes out of the polynomial), the exponent n with ordered ones
// (a NaN becomes a bound) before it is converted to an integer, where a NaN
// would be poison.
// CHECK-LABEL: func.func @exp_exponent_of_a_nan
// CHECK-DAG: %[[LO:.*]] = arith.constant dense<-8.780000e+01> : vector<8xf32>
// CHECK-DAG: %[[HI:.*]] = arith.constant dense<8.880000e+01> : vector<8xf32>
// CHECK-DAG: %[[NLO:.*]] = arith.constant dense<-1.270000e+02> : vector<8xf32>
// CHECK-DAG: %[[NHI:.*]] = arith.constant dense<1.270000e+02> : vector<8xf32>
// CHECK: %[[C0:.*]] = arith.cmpf uge, %[[X:.*]], %[[LO]] : vector<8xf32>
// CHECK: %[[X0:.*]] = arith.select %[[C0]], %[[X]], %[[LO]] : vector<8xi1>, vector<8xf32>
// CHECK: %[[C1:.*]] = arith.cmpf ule, %[[X0]], %[[HI]] : vector<8xf32>
// CHECK: %[[X1:.*]] = arith.select %[[C1]], %[[X0]], %[[HI]] : vector<8xi1>, vector<8xf32>
// CHECK: %[[N:.*]] = math.floor
// CHECK: %[[C2:.*]] = arith.cmpf ogt, %[[N]], %[[NLO]] : vector<8xf32>
// CHECK: %[[N0:.*]] = arith.select %[[C2]], %[[N]], %[[NLO]] : vector<8xi1>, vector<8xf32>
// CHECK: %[[C3:.*]] = arith.cmpf olt, %[[N0]], %[[NHI]] : vector<8xf32>
// CHECK: %[[N1:.*]] = arith.select %[[C3]], %[[N0]], %[[NHI]] : vector<8xi1>, vector<8xf32>
// CHECK: arith.fptosi %[[N1]] : vector<8xf32> to vector<8xi32>
// CHECK-NOT: math.exp
// CHECK: return
func.func @exp_exponent_of_a_nan(%x: vector<8xf32>) -> vector<8xf32> {
  %e = math.exp %x : vector<8xf32>
  return %e : vector<8xf32>
}

// -----

// exp of f16 is computed in f32.
// CHECK-LABEL: func.func @exp_f16
// CHECK: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: arith.fptosi {{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xf16>
// CHECK-NOT: math.exp
// CHECK: return
func.func @exp_f16(%x: vector<8xf16>) -> vector<8xf16> {
  %e = math.exp %x : vector<8xf16>
  return %e : vector<8xf16>
}
