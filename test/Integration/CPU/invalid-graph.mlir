// RUN: not jeet-run %s --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,2,3,4,5,6 2>&1 | FileCheck %s -DFILE=%s
// RUN: not jeet-compile %s -o %t.so 2>&1 | FileCheck %s -DFILE=%s
// RUN: env JEET_DEBUG=1 not jeet-run %s --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,2,3,4,5,6 2>&1 | FileCheck %s --check-prefix=DEBUG

// A graph that does not verify: the MLIR diagnostic with file:line:col, once:
// not followed by the verifier's "failed to infer returned types" nor by the
// op printed again in MLIR's generic form.
// CHECK: [[FILE]]:[[@LINE+5]]:8: error: 'jeet.add' op operand shapes are not broadcast-compatible
// CHECK-NOT: failed to infer
// CHECK-NOT: see current operation
// CHECK: error: compilation of '{{.*}}' failed
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %0 = jeet.add %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// The repeated error stays dropped with JEET_DEBUG. (jeet-opt, the compiler
// engineers' tool, reports both as mlir-opt does: test/Dialect/Jeet/IR.)
// DEBUG: error: 'jeet.add' op operand shapes are not broadcast-compatible
// DEBUG-NOT: failed to infer
// DEBUG: error: compilation of
