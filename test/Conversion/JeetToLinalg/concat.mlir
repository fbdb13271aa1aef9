// RUN: jeet-opt %s --jeet-lower-to-linalg | FileCheck %s
// RUN: jeet-opt %s --jeet-lower-to-linalg=concat-as-copies=false | FileCheck %s --check-prefix=SELECT

// A concat group (jeet-fuse gives a concat a group of its own): each input
// inserted into its slice of the result, copies into views once bufferized;
// an input with no elements along the axis inserts nothing. With
// concat-as-copies=false (the GPU's kernel formation), one generic that
// selects each element's input, a loop nest to tile.
// CHECK-LABEL: func.func @concat_group
// CHECK-SAME: (%[[A:[^:]*]]: tensor<2x2x3x3xf32>, %[[B:[^:]*]]: tensor<2x4x3x3xf32>, %[[E:[^:]*]]: tensor<2x0x3x3xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x6x3x3xf32>
// CHECK-NEXT: %[[R0:.*]] = tensor.insert_slice %[[A]] into %[[EMPTY]][0, 0, 0, 0] [2, 2, 3, 3] [1, 1, 1, 1]
// CHECK-NEXT: %[[R1:.*]] = tensor.insert_slice %[[B]] into %[[R0]][0, 2, 0, 0] [2, 4, 3, 3] [1, 1, 1, 1]
// CHECK-NEXT: return %[[R1]]
// SELECT-LABEL: func.func @concat_group
// SELECT-NOT: tensor.insert_slice
// SELECT: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x6x3x3xf32>)
// SELECT: arith.select
func.func @concat_group(%a: tensor<2x2x3x3xf32>, %b: tensor<2x4x3x3xf32>, %e: tensor<2x0x3x3xf32>) -> tensor<2x6x3x3xf32> {
  %r = jeet.fusion (%a, %e, %b) : (tensor<2x2x3x3xf32>, tensor<2x0x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<2x6x3x3xf32> {
  ^bb0(%x: tensor<2x2x3x3xf32>, %z: tensor<2x0x3x3xf32>, %y: tensor<2x4x3x3xf32>):
    %0 = jeet.concat %x, %z, %y {axis = 1 : i64} : tensor<2x2x3x3xf32>, tensor<2x0x3x3xf32>, tensor<2x4x3x3xf32> -> tensor<2x6x3x3xf32>
    jeet.yield %0 : tensor<2x6x3x3xf32>
  }
  return %r : tensor<2x6x3x3xf32>
}
