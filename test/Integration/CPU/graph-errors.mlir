// RUN: split-file %s %t
// RUN: not jeet-run %t/recursive.mlir --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=REC
// RUN: env JEET_DEBUG=1 not jeet-run %t/recursive.mlir --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=REC-DEBUG
// RUN: not jeet-run %t/mutual.mlir --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=MUTUAL
// RUN: not jeet-run %t/foreign.mlir --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: not jeet-run %t/declared.mlir --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=DECLARED
// RUN: not jeet-compile %t/declared.mlir -o %t/declared.so 2>&1 | FileCheck %s --check-prefix=DECLARED
// RUN: not ls %t/declared.so
// RUN: not jeet-run %t/declared-entry.mlir --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=DECLARED-ENTRY
// RUN: not jeet-compile %t/declared-entry.mlir -o %t/declared.so 2>&1 | FileCheck %s --check-prefix=DECLARED-ENTRY
// RUN: not jeet-run %t/huge.mlir --input=1xf32=1 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not jeet-run %t/huge-arg.mlir --input=1xf32=1 2>&1 | FileCheck %s --check-prefix=HUGEARG
// RUN: not jeet-run %t/result-number.mlir --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=RESULTNUM
// RUN: not jeet-opt %t/result-number.mlir 2>&1 | FileCheck %s --check-prefix=RESULTNUM-OPT
// RUN: not jeet-opt < %t/result-number.mlir 2>&1 | FileCheck %s --check-prefix=RESULTNUM-STDIN

// A graph that calls itself would overflow the stack when run: rejected.
// REC: recursive.mlir:2:8: error: recursive call to 'main': Jeet graphs cannot call themselves, directly or through other functions
// REC-NOT: see current operation
// With JEET_DEBUG the op follows in MLIR's generic form.
// REC-DEBUG: recursive.mlir:2:8: note: see current operation: %0 = "func.call"
// REC: jeet-run: error: compilation of '{{.*}}recursive.mlir' failed
//--- recursive.mlir
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @main(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Recursion through another function too.
// MUTUAL: error: recursive call to '{{main|helper}}'
//--- mutual.mlir
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @main(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A call of a function the graph only declares: the JIT failed to link
// ("Symbols not found: [ helper ]") and jeet-compile wrote an artifact that
// could not be loaded. Reported at the call, and at the declaration when it
// is the entry.
// DECLARED: declared.mlir:3:8: error: call to 'helper', which the graph declares without a body: Jeet graphs call only functions they define
// DECLARED-ENTRY: declared-entry.mlir:1:1: error: 'main' is declared without a body: a graph's entry function computes its results
//--- declared.mlir
func.func private @helper(tensor<4xf32>) -> tensor<4xf32>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
//--- declared-entry.mlir
func.func private @main(tensor<4xf32>) -> tensor<4xf32>

// Ops of other dialects are not part of a graph.
// FOREIGN: foreign.mlir:2:8: error: Dialect `arith' not found for custom op 'arith.addf'
// FOREIGN: note: Available dialects: builtin, func, jeet
//--- foreign.mlir
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A dimension of 2^63-1 hung the vectoriser: beyond the size limit.
// HUGE: huge.mlir:2:8: error: 'jeet.neg' op operand #0 has type 'tensor<9223372036854775807xf32>' with more elements than Jeet's limit of 2^40 (1099511627776)
//--- huge.mlir
func.func @main(%a: tensor<9223372036854775807xf32>) -> tensor<9223372036854775807xf32> {
  %0 = jeet.neg %a : tensor<9223372036854775807xf32>
  return %0 : tensor<9223372036854775807xf32>
}

// A graph argument returned as is is checked too.
// HUGEARG: error: argument #0 of 'main' has type 'tensor<4611686018427387904xf32>', beyond Jeet's size limits (2^40 elements, rank 64)
//--- huge-arg.mlir
func.func @main(%a: tensor<4611686018427387904xf32>) -> tensor<4611686018427387904xf32> {
  return %a : tensor<4611686018427387904xf32>
}

// A result number that MLIR's parser would size a table by (2^31 entries,
// exhausting memory) is refused before parsing, naming the line.
// RESULTNUM: result-number.mlir:7:10: error: value use '%r#2147483648' names result number beyond 1048576, more than any op has
// RESULTNUM: jeet-run: error: compilation of '{{.*}}result-number.mlir' failed
// jeet-opt checks its input the same way before MLIR's parser sees it (the
// parser sizes a table by the number first and runs out of memory), from a
// file or from standard input.
// RESULTNUM-OPT: result-number.mlir:7:10: error: value use '%r#2147483648' names result number beyond 1048576, more than any op has
// RESULTNUM-OPT-NOT: LLVM ERROR
// RESULTNUM-STDIN: <stdin>:7:10: error: value use '%r#2147483648' names result number beyond 1048576
//--- result-number.mlir
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r:2 = jeet.fusion (%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  ^bb0(%x: tensor<2xf32>):
    %0 = jeet.neg %x : tensor<2xf32>
    jeet.yield %0, %x : tensor<2xf32>, tensor<2xf32>
  }
  return %r#2147483648 : tensor<2xf32>
}
