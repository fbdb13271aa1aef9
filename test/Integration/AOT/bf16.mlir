// bf16 arithmetic compiled ahead of time for CPUs with and without bf16
// conversion instructions: without them the artifact rounds with vector
// integer ops (jeet-expand-bf16), so it does not call __truncsfbf2 (which
// Debian 12's libgcc lacks: an artifact for a CPU without bf16
// instructions, AVX2 or older as here, failed to load with "undefined
// symbol: __truncsfbf2"); with them it uses vcvtneps2bf16 on inputs whose
// subnormals are lifted past its flush to zero (bf16-conversion.mlir runs
// such code where the host has the instruction), and every build rounds
// alike.
// RUN: rm -rf %t && mkdir -p %t
// RUN: jeet-compile %s -o %t/sse.so --target-cpu=x86-64-v2
// RUN: llvm-nm -D %t/sse.so | FileCheck %s --check-prefix=SYMBOLS
// RUN: jeet-runner %t/sse.so --input=4xf32=1.5,-3,1e-39,2.5e-38 --input=4xf32=2,0.5,4,0.25 --input=4xf32=2.5,-0.5,7.9,1e-39 | FileCheck %s
// RUN: jeet-compile %s -o %t/bf16.so --target-cpu=sapphirerapids
// RUN: llvm-objdump -d %t/bf16.so | FileCheck %s --check-prefix=INSTRUCTIONS
// RUN: llvm-nm -D %t/bf16.so | FileCheck %s --check-prefix=SYMBOLS

// SYMBOLS-NOT: truncsfbf2
// INSTRUCTIONS: vcvtneps2bf16
// x * y + x in bf16, each op rounded: 4.5 and -4.5, and for the subnormals
// 1e-39 and 2.5e-38 what round to nearest even on the bits gives (numpy:
// test_dtypes.py's round_to_bf16); flushed, 1e-39 would give 0.
// floor(z) in bf16 (z read by nothing else): LLVM's InstCombine turned
// floor(fpext z) into a floor on bf16, which the back end truncates with
// __truncsfbf2 again unless the extension is integer ops too.
// CHECK: 4xf32={{\[}}4.5 -4.5 5.050952e-39 3.122407e-38]
// CHECK: 4xf32={{\[}}2 -1 7 0]
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = jeet.cast %x : tensor<4xf32> -> tensor<4xbf16>
  %b = jeet.cast %y : tensor<4xf32> -> tensor<4xbf16>
  %c = jeet.cast %z : tensor<4xf32> -> tensor<4xbf16>
  %0 = jeet.mul %a, %b : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xbf16>
  %1 = jeet.add %0, %a : tensor<4xbf16>, tensor<4xbf16> -> tensor<4xbf16>
  %2 = jeet.floor %c : tensor<4xbf16>
  %r = jeet.cast %1 : tensor<4xbf16> -> tensor<4xf32>
  %f = jeet.cast %2 : tensor<4xbf16> -> tensor<4xf32>
  return %r, %f : tensor<4xf32>, tensor<4xf32>
}
