// RUN: jeet-opt %s --split-input-file --jeet-cpu-separate-entry-block | FileCheck %s
// RUN: jeet-opt %s --split-input-file --jeet-cpu-separate-entry-block \
// RUN:   --convert-func-to-llvm --canonicalize | FileCheck %s --check-prefix=LLVM

// The body moves to a block of its own; the entry block only branches to it,
// so no use of an argument is in the block where its conversion is built.
// CHECK-LABEL: func.func @kernels
// CHECK-SAME:    (%[[A:.*]]: memref<16xf32>, %[[B:.*]]: memref<16xf32>)
// CHECK-NEXT:    cf.br ^[[BODY:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    memref.copy %[[A]], %[[B]]
// CHECK-NEXT:    return
// After the conversion, canonicalization merges the two blocks again.
// LLVM-LABEL: llvm.func @kernels
// LLVM-NOT:     llvm.br
// LLVM:         llvm.return
func.func @kernels(%a: memref<16xf32>, %b: memref<16xf32>) {
  memref.copy %a, %b : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Functions without arguments, and declarations, are left alone.
// CHECK-LABEL: func.func @no_arguments
// CHECK-NOT:     cf.br
// CHECK:         return
// CHECK-LABEL: func.func private @declared
func.func @no_arguments() {
  return
}
func.func private @declared(memref<16xf32>)
