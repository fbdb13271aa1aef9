// RUN: not jeet-run %s --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,2,3,4,5,6 2>&1 | FileCheck %s -DFILE=%s

// A graph that does not verify: the MLIR diagnostic with file:line:col.
// CHECK: [[FILE]]:[[@LINE+3]]:8: error: 'jeet.add' op operand shapes are not broadcast-compatible
// CHECK: jeet-run: error: compilation of '{{.*}}' failed
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %0 = jeet.add %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
