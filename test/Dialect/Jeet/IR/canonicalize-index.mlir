// RUN: jeet-opt %s -canonicalize -split-input-file | FileCheck %s

// Small iotas fold into constants, along any axis and in any number type;
// large ones stay.
// CHECK-LABEL: func.func @iota_small
// CHECK-DAG: jeet.constant dense<{{\[}}[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi64>
// CHECK-DAG: jeet.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<2x3xf16>
// CHECK-NOT: jeet.iota
func.func @iota_small() -> (tensor<2x3xi64>, tensor<2x3xf16>) {
  %0 = jeet.iota {axis = 1 : i64} : tensor<2x3xi64>
  %1 = jeet.iota {axis = 0 : i64} : tensor<2x3xf16>
  return %0, %1 : tensor<2x3xi64>, tensor<2x3xf16>
}

// -----

// CHECK-LABEL: func.func @iota_large
// CHECK: jeet.iota {axis = 1 : i64} : tensor<2x1000xi32>
func.func @iota_large() -> tensor<2x1000xi32> {
  %0 = jeet.iota {axis = 1 : i64} : tensor<2x1000xi32>
  return %0 : tensor<2x1000xi32>
}
