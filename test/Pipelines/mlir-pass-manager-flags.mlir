// jeet-run and jeet-compile take MLIR's pass-manager flags and apply them to
// every stage of the pipeline they run: one timing report per compilation
// with each stage a scope of its own, and the IR printed around passes.
// RUN: jeet-run %s --device=cpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: jeet-compile %s -o %t.so --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: jeet-run %s --device=cpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 --mlir-print-ir-after=jeet-fuse 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: jeet-run %s --device=cpu --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: jeet-run --help | FileCheck %s --check-prefix=HELP

// TIMING: Execution time report
// TIMING-COUNT-1: Total Execution Time
// TIMING: {{^ +[0-9.]+ +\( *[0-9.]+%\)  fused$}}
// TIMING: JeetFusePass
// TIMING: {{^ +[0-9.]+ +\( *[0-9.]+%\)  linalg$}}
// TIMING-NEXT: JeetLowerToLinalgPass
// TIMING: {{^ +[0-9.]+ +\( *[0-9.]+%\)  bufferized$}}
// TIMING: JeetOneShotBufferizePass
// TIMING: {{^ +[0-9.]+ +\( *[0-9.]+%\)  llvm$}}
// TIMING: ConvertFuncToLLVMPass
// TIMING-NOT: Execution time report

// AFTER: IR Dump After JeetFusePass (jeet-fuse)
// AFTER-NEXT: func.func @main
// AFTER: jeet.fusion
// AFTER-NOT: IR Dump After

// ALL: IR Dump After JeetDecomposePass (jeet-decompose)
// ALL: IR Dump After JeetFusePass (jeet-fuse)
// ALL: IR Dump After JeetLowerToLinalgPass (jeet-lower-to-linalg)
// ALL: IR Dump After JeetOneShotBufferizePass (jeet-one-shot-bufferize)
// ALL: IR Dump After ConvertFuncToLLVMPass (convert-func-to-llvm)
// ALL: 2xf32=[9 21]

// HELP: MLIR pass-manager options
// HELP-DAG: --mlir-print-ir-after-all
// HELP-DAG: --mlir-timing

func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> tensor<2xf32> {
  %0 = jeet.matmul %x, %w : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %1 = jeet.relu %0 : tensor<2x2xf32>
  %2 = jeet.reduce_sum %1 {axes = array<i64: 1>, keepdims = false} : tensor<2x2xf32> -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
