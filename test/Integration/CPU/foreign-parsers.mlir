// RUN: split-file %s %t
// RUN: not jeet-run %t/linalg.mlir --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=LINALG
// RUN: not jeet-run %t/vector.mlir --input=f32=1 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not jeet-run %t/generic.mlir --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not jeet-compile %t/linalg.mlir -o %t/linalg.so 2>&1 | FileCheck %s --check-prefix=LINALG
// RUN: not jeet-compile %t/vector.mlir -o %t/vector.so 2>&1 | FileCheck %s --check-prefix=VECTOR

// Graphs are parsed knowing only the jeet and func dialects: ops of other
// dialects are rejected by name before their own parsers run. MLIR 22's
// linalg named-op parser takes the `<i32>` below for a dictionary (an abort
// or a segfault once linalg has been used in the context) and its vector
// parser cannot allocate the 2^62 operand types of the second.

// LINALG: linalg.mlir:2:3: error: Dialect `linalg' not found for custom op 'linalg.matmul'
// LINALG: note: Available dialects: builtin, func, jeet
// LINALG: error: compilation of '{{.*}}linalg.mlir'{{.*}} failed
//--- linalg.mlir
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  linalg.matmul <i32>)
}

// VECTOR: vector.mlir:2:8: error: Dialect `vector' not found for custom op 'vector.from_elements'
// VECTOR: error: compilation of '{{.*}}vector.mlir'{{.*}} failed
//--- vector.mlir
func.func @main(%e: f32) -> vector<4611686018427387904xf32> {
  %v = vector.from_elements %e, %e : vector<4611686018427387904xf32>
  return %v : vector<4611686018427387904xf32>
}

// In the generic form too (the diagnostic shows the line).
// GENERIC: generic.mlir:2:{{[0-9]+}}: error: operation being parsed with an unregistered dialect
// GENERIC-NEXT: "linalg.copy"
// GENERIC: error: compilation of '{{.*}}generic.mlir'{{.*}} failed
//--- generic.mlir
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "linalg.copy"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
