// RUN: jeet-opt %s -split-input-file --jeet-one-shot-bufferize | FileCheck %s
// RUN: jeet-opt %s -split-input-file --jeet-one-shot-bufferize=report-visits \
// RUN:   -verify-diagnostics -o /dev/null
// The same IR as MLIR's one-shot module bufferization, byte for byte:
// RUN: jeet-opt %s -split-input-file -o %t.mlir --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"
// RUN: jeet-opt %s -split-input-file -o %t.jeet --jeet-one-shot-bufferize
// RUN: diff %t.mlir %t.jeet

// Independent outputs: each argument's classes are visited once (2 values
// per argument), where MLIR's analysis makes 3 x 3 queries of each kind.
// The last kernel writes the shared destination in place; the others get
// buffers of their own.
// CHECK-LABEL: func.func @outputs
// CHECK-SAME:    (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>)
// CHECK:         %[[E:.*]] = memref.alloc()
// CHECK:         %[[R0:.*]] = memref.alloc()
// CHECK:         linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[R0]] :
// CHECK:         %[[R1:.*]] = memref.alloc()
// CHECK:         linalg.copy ins(%[[B]] : memref<4xf32>) outs(%[[R1]] :
// CHECK:         linalg.copy ins(%[[C]] : memref<4xf32>) outs(%[[E]] :
// CHECK:         return %[[R0]], %[[R1]], %[[E]] :
// expected-remark @below {{matched 3 tensor results with 3 tensor arguments, visiting 6 values}}
func.func @outputs(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.copy ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.copy ins(%c : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A callee that writes its argument in place and returns it (the result is
// equivalent to the argument; its class holds the argument, the kernel's
// result and the value returned). The caller reads %x after the first call,
// which therefore gets a copy; %y is not read again and is passed as it is.
// CHECK-LABEL: func.func private @square
// CHECK-SAME:    (%[[T:.*]]: memref<4xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[T]] : memref<4xf32>)
// CHECK:         return %[[T]]
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>, %[[Y:.*]]: memref<4xf32>)
// CHECK:         %[[COPY:.*]] = memref.alloc()
// CHECK:         memref.copy %[[X]], %[[COPY]]
// CHECK:         call @square(%[[COPY]])
// CHECK:         call @square(%[[Y]])
#map = affine_map<(d0) -> (d0)>
// expected-remark @below {{matched 1 tensor results with 1 tensor arguments, visiting 4 values}}
func.func private @square(%t: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]}
      outs(%t : tensor<4xf32>) {
  ^bb0(%o: f32):
    %1 = arith.mulf %o, %o : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// expected-remark @below {{matched 3 tensor results with 2 tensor arguments, visiting 6 values}}
func.func @caller(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = func.call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @square(%y) : (tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %2 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The callee returns its argument: the call's result aliases %x, so the fill
// that overwrites it writes a copy (%x is read afterwards).
// CHECK-LABEL: func.func @alias
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>, %[[V:.*]]: f32)
// CHECK:         %[[R:.*]] = call @id(%[[X]])
// CHECK:         %[[COPY:.*]] = memref.alloc()
// CHECK:         memref.copy %[[R]], %[[COPY]]
// CHECK:         linalg.fill ins(%[[V]] : f32) outs(%[[COPY]] :
// CHECK:         linalg.copy ins(%[[X]] :
// expected-remark @below {{matched 1 tensor results with 1 tensor arguments, visiting 2 values}}
func.func private @id(%t: tensor<4xf32>) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}
// expected-remark @below {{matched 2 tensor results with 1 tensor arguments, visiting 2 values}}
func.func @alias(%x: tensor<4xf32>, %v: f32) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = func.call @id(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.fill ins(%v : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %2 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A function without a body may read and write its arguments: %x, read
// after the call, is passed as a copy.
// CHECK-LABEL: func.func @declaration
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>)
// CHECK:         %[[COPY:.*]] = memref.alloc()
// CHECK:         memref.copy %[[X]], %[[COPY]]
// CHECK:         call @sink(%[[COPY]])
func.func private @sink(tensor<4xf32>)
// expected-remark @below {{matched 1 tensor results with 1 tensor arguments, visiting 2 values}}
func.func @declaration(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.call @sink(%x) : (tensor<4xf32>) -> ()
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Two func.return ops: result 0 is %x in both (equivalent to it), result 1
// is %y or %x (it may alias either). The caller overwrites result 1 in
// place: %x and %y are not read again.
// CHECK-LABEL: func.func @call_branches
// CHECK:         %[[R:.*]]:2 = call @branches
// CHECK:         linalg.fill {{.*}} outs(%[[R]]#1 :
// expected-remark @below {{matched 2 tensor results with 2 tensor arguments, visiting 4 values}}
func.func @branches(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: i1)
    -> (tensor<4xf32>, tensor<4xf32>) {
  cf.cond_br %c, ^a, ^b
^a:
  return %x, %y : tensor<4xf32>, tensor<4xf32>
^b:
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}
// expected-remark @below {{matched 2 tensor results with 2 tensor arguments, visiting 6 values}}
func.func @call_branches(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: i1,
    %v: f32) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = func.call @branches(%x, %y, %c)
      : (tensor<4xf32>, tensor<4xf32>, i1) -> (tensor<4xf32>, tensor<4xf32>)
  %1 = linalg.fill ins(%v : f32) outs(%0#1 : tensor<4xf32>) -> tensor<4xf32>
  return %0#0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Recursive calls: MLIR's module analysis (no remark), the same result.
// CHECK-LABEL: func.func @recursive
// CHECK:         scf.if
// CHECK:         call @recursive
func.func @recursive(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %0 = scf.if %c -> tensor<4xf32> {
    %1 = func.call @recursive(%x, %c) : (tensor<4xf32>, i1) -> tensor<4xf32>
    scf.yield %1 : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
