// RUN: jeet-opt %s -canonicalize -split-input-file | FileCheck %s

// Folds of the comparisons, select and the logical ops.

// Comparisons of constants fold element by element, with broadcasting; NaN
// compares unequal to everything.
// CHECK-LABEL: func.func @compare_constants
// CHECK-DAG: %[[LT:.*]] = jeet.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[NE:.*]] = jeet.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK: return %[[LT]], %[[NE]], %[[LT]]
func.func @compare_constants() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = jeet.constant dense<[1.0, 2.0, 0x7FC00000]> : tensor<3xf32>
  %b = jeet.constant dense<2.0> : tensor<f32>
  %0 = jeet.lt %a, %b : tensor<3xf32>, tensor<f32> -> tensor<3xi1>
  %1 = jeet.ne %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
  %c = jeet.constant dense<[-1, 5, 7]> : tensor<3xi64>
  %d = jeet.constant dense<[-1, 6, 8]> : tensor<3xi64>
  %2 = jeet.eq %c, %d : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
  return %0, %1, %2 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// Integers compare signed, booleans as 0 and 1.
// CHECK-LABEL: func.func @compare_signedness
// CHECK-DAG: %[[INT:.*]] = jeet.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: %[[BOOL:.*]] = jeet.constant dense<[false, true]> : tensor<2xi1>
// CHECK: return %[[INT]], %[[BOOL]]
func.func @compare_signedness() -> (tensor<2xi1>, tensor<2xi1>) {
  %a = jeet.constant dense<[-1, 1]> : tensor<2xi32>
  %b = jeet.constant dense<[0, 0]> : tensor<2xi32>
  %0 = jeet.lt %a, %b : tensor<2xi32>, tensor<2xi32> -> tensor<2xi1>
  %t = jeet.constant dense<[false, true]> : tensor<2xi1>
  %f = jeet.constant dense<false> : tensor<i1>
  %1 = jeet.gt %t, %f : tensor<2xi1>, tensor<i1> -> tensor<2xi1>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
}

// -----

// A select on a constant condition is the value it picks; a select of one
// value is that value.
// CHECK-LABEL: func.func @select_folds
// CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[A]], %[[B]], %[[A]]
func.func @select_folds(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = jeet.constant dense<true> : tensor<i1>
  %f = jeet.constant dense<false> : tensor<4xi1>
  %0 = jeet.select %t, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = jeet.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %2 = jeet.select %c, %a, %a : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A select that broadcasts the value it picks is left alone.
// CHECK-LABEL: func.func @select_broadcast
// CHECK: jeet.select
func.func @select_broadcast(%a: tensor<f32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %t = jeet.constant dense<true> : tensor<i1>
  %0 = jeet.select %t, %a, %b : tensor<i1>, tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// and/or with their identity are the other operand, with their absorbing
// value that value; xor with 0 is the other operand; not(not(x)) is x.
// CHECK-LABEL: func.func @logical_identities
// CHECK-SAME: (%[[P:.*]]: tensor<4xi1>, %[[I:.*]]: tensor<4xi32>)
// CHECK-DAG: %[[FALSE:.*]] = jeet.constant dense<false> : tensor<4xi1>
// CHECK-DAG: %[[ONES:.*]] = jeet.constant dense<-1> : tensor<4xi32>
// CHECK: return %[[P]], %[[FALSE]], %[[I]], %[[ONES]], %[[I]], %[[P]]
func.func @logical_identities(%p: tensor<4xi1>, %i: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>) {
  %t = jeet.constant dense<true> : tensor<i1>
  %f = jeet.constant dense<false> : tensor<i1>
  %zero = jeet.constant dense<0> : tensor<4xi32>
  %ones = jeet.constant dense<-1> : tensor<i32>
  %0 = jeet.and %t, %p : tensor<i1>, tensor<4xi1> -> tensor<4xi1>
  %1 = jeet.and %p, %f : tensor<4xi1>, tensor<i1> -> tensor<4xi1>
  %2 = jeet.or %i, %zero : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %3 = jeet.or %ones, %i : tensor<i32>, tensor<4xi32> -> tensor<4xi32>
  %4 = jeet.xor %i, %zero : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  %n = jeet.not %p : tensor<4xi1>
  %5 = jeet.not %n : tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>
}

// -----

// Logical ops of constants fold.
// CHECK-LABEL: func.func @logical_constants
// CHECK-DAG: %[[AND:.*]] = jeet.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[XOR:.*]] = jeet.constant dense<[6, 0, 5]> : tensor<3xi64>
// CHECK-DAG: %[[NOT:.*]] = jeet.constant dense<[-4, 0, -6]> : tensor<3xi64>
// CHECK: return %[[AND]], %[[XOR]], %[[NOT]]
func.func @logical_constants() -> (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) {
  %p = jeet.constant dense<[true, false, true]> : tensor<3xi1>
  %q = jeet.constant dense<[false, true, true]> : tensor<3xi1>
  %0 = jeet.and %p, %q : tensor<3xi1>, tensor<3xi1> -> tensor<3xi1>
  %a = jeet.constant dense<[3, -1, 5]> : tensor<3xi64>
  %b = jeet.constant dense<[5, -1, 0]> : tensor<3xi64>
  %1 = jeet.xor %a, %b : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  %2 = jeet.not %a : tensor<3xi64>
  return %0, %1, %2 : tensor<3xi1>, tensor<3xi64>, tensor<3xi64>
}
