// The alignment of the arena must be a power of two.
// RUN: not jeet-opt %s --jeet-plan-memory=alignment=48 2>&1 | FileCheck %s
// CHECK: error: jeet-plan-memory: alignment must be a power of two, got 48
func.func @main(%a: memref<4xf32>) {
  return
}
