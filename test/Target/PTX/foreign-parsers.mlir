// Graphs are parsed knowing only the jeet and func dialects, after a graph
// compiled in the same run: ops of other dialects are rejected by name
// before their own parsers (which crash on these inputs in MLIR 22) run.
// RUN: not jeet-translate --jeet-to-ptx --split-input-file %s 2>%t.err | FileCheck %s --check-prefix=PTX
// RUN: FileCheck %s < %t.err

// PTX: .entry
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = jeet.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: foreign-parsers.mlir:{{[0-9]+}} offset :{{[0-9]+}}:3: error: Dialect `linalg' not found for custom op 'linalg.matmul'
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  linalg.matmul <i32>)
}

// -----

// CHECK: foreign-parsers.mlir:{{[0-9]+}} offset :{{[0-9]+}}:8: error: Dialect `vector' not found for custom op 'vector.from_elements'
func.func @main(%e: f32) -> vector<4611686018427387904xf32> {
  %v = vector.from_elements %e, %e : vector<4611686018427387904xf32>
  return %v : vector<4611686018427387904xf32>
}

// -----

// Ops of the builtin dialect other than the module are not graph ops.
// CHECK: foreign-parsers.mlir:{{[0-9]+}} offset :{{[0-9]+}}:8: error: 'builtin.unrealized_conversion_cast' is not part of a Jeet graph
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = builtin.unrealized_conversion_cast %a : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}
