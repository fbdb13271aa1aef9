// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s

// An iota is a parallel generic that writes the index of its axis.
// CHECK-LABEL: func.func @iota
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: outs(%{{.*}} : tensor<2x1000xf32>)
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[W:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[F:.*]] = arith.sitofp %[[W]] : i64 to f32
// CHECK: linalg.yield %[[F]] : f32
func.func @iota() -> tensor<2x1000xf32> {
  %0 = jeet.iota {axis = 1 : i64} : tensor<2x1000xf32>
  return %0 : tensor<2x1000xf32>
}

// An iota read by elementwise ops of its group is materialised, then read.
// CHECK-LABEL: func.func @iota_in_group
// CHECK: %[[IOTA:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1000xi64>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x1000xi64>, tensor<1000xi64>)
// CHECK: arith.addi
func.func @iota_in_group(%x: tensor<4x1000xi64>) -> tensor<4x1000xi64> {
  %0 = jeet.fusion(%x) : (tensor<4x1000xi64>) -> tensor<4x1000xi64> {
  ^bb0(%a: tensor<4x1000xi64>):
    %i = jeet.iota {axis = 1 : i64} : tensor<1x1000xi64>
    %s = jeet.add %a, %i : tensor<4x1000xi64>, tensor<1x1000xi64> -> tensor<4x1000xi64>
    jeet.yield %s : tensor<4x1000xi64>
  }
  return %0 : tensor<4x1000xi64>
}
