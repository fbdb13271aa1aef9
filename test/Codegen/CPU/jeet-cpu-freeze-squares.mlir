// RUN: jeet-opt %s --split-input-file --jeet-cpu-freeze-squares | FileCheck %s

// Each integer square squares a frozen operand; the chain of squares that
// integer `**` builds keeps its order.
// CHECK-LABEL: llvm.func @squares
// CHECK-SAME:    (%[[X:.*]]: i32)
// CHECK-NEXT:    %[[F0:.*]] = llvm.freeze %[[X]] : i32
// CHECK-NEXT:    %[[S0:.*]] = llvm.mul %[[F0]], %[[F0]] : i32
// CHECK-NEXT:    %[[F1:.*]] = llvm.freeze %[[S0]] : i32
// CHECK-NEXT:    %[[S1:.*]] = llvm.mul %[[F1]], %[[F1]] : i32
// CHECK-NEXT:    llvm.return %[[S1]]
llvm.func @squares(%x: i32) -> i32 {
  %0 = llvm.mul %x, %x : i32
  %1 = llvm.mul %0, %0 : i32
  llvm.return %1 : i32
}

// -----

// Vectors of integers too.
// CHECK-LABEL: llvm.func @vector_square
// CHECK-SAME:    (%[[V:.*]]: vector<8xi64>)
// CHECK-NEXT:    %[[F:.*]] = llvm.freeze %[[V]] : vector<8xi64>
// CHECK-NEXT:    %[[S:.*]] = llvm.mul %[[F]], %[[F]] : vector<8xi64>
// CHECK-NEXT:    llvm.return %[[S]]
llvm.func @vector_square(%v: vector<8xi64>) -> vector<8xi64> {
  %0 = llvm.mul %v, %v : vector<8xi64>
  llvm.return %0 : vector<8xi64>
}

// -----

// Products of two values, float squares and operands already frozen are
// left alone.
// CHECK-LABEL: llvm.func @left_alone
// CHECK-SAME:    (%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[A:.*]]: f32,
// CHECK-NEXT:    %[[P:.*]] = llvm.mul %[[X]], %[[Y]] : i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.fmul %[[A]], %[[A]] : f32
// CHECK-NEXT:    %[[F:.*]] = llvm.freeze %[[P]] : i32
// CHECK-NEXT:    %[[S:.*]] = llvm.mul %[[F]], %[[F]] : i32
// CHECK-NEXT:    llvm.store %[[Q]]
// CHECK-NEXT:    llvm.return %[[S]]
llvm.func @left_alone(%x: i32, %y: i32, %a: f32, %out: !llvm.ptr) -> i32 {
  %0 = llvm.mul %x, %y : i32
  %1 = llvm.fmul %a, %a : f32
  %2 = llvm.freeze %0 : i32
  %3 = llvm.mul %2, %2 : i32
  llvm.store %1, %out : f32, !llvm.ptr
  llvm.return %3 : i32
}
