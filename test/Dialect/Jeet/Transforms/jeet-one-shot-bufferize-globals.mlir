// RUN: jeet-opt %s --jeet-one-shot-bufferize | FileCheck %s

// The globals of tensor constants are made in the order of a walk of the
// module (each one placed first), whatever order the module bufferization
// visits the functions in, so their order and their names are the same in
// every run. MLIR's module bufferization alone ordered and numbered them
// differently from run to run: six functions make a wrong order by chance
// unlikely.

// CHECK:      memref.global "private" constant @__constant_2xf32_3 : memref<2xf32> = dense<[5.000000e+00, 6.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_2 : memref<2xf32> = dense<[4.000000e+00, 5.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_3xi32 : memref<3xi32> = dense<[7, 8, 9]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[3.000000e+00, 4.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[2.000000e+00, 3.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-LABEL: func.func @f0
// CHECK:         memref.get_global @__constant_2xf32 :
// CHECK-LABEL: func.func @f1
// CHECK:         memref.get_global @__constant_2xf32_0 :
// CHECK-LABEL: func.func @f2
// CHECK:         memref.get_global @__constant_2xf32_1 :
// CHECK-LABEL: func.func @f3
// CHECK:         memref.get_global @__constant_3xi32 :
// CHECK-LABEL: func.func @f4
// CHECK:         memref.get_global @__constant_2xf32_2 :
// CHECK-LABEL: func.func @f5
// CHECK:         memref.get_global @__constant_2xf32_3 :
func.func @f0() -> tensor<2xf32> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @f1() -> tensor<2xf32> {
  %c = arith.constant dense<[2.0, 3.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @f2() -> tensor<2xf32> {
  %c = arith.constant dense<[3.0, 4.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @f3() -> tensor<3xi32> {
  %c = arith.constant dense<[7, 8, 9]> : tensor<3xi32>
  return %c : tensor<3xi32>
}
func.func @f4() -> tensor<2xf32> {
  %c = arith.constant dense<[4.0, 5.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
func.func @f5() -> tensor<2xf32> {
  %c = arith.constant dense<[5.0, 6.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
