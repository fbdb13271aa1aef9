// f32 rounded to bf16 by vcvtneps2bf16 (jeet-expand-bf16's
// conversion=hardware, which jeet-compile picks for Zen 4, compiled for
// here, and other CPUs that have it, not Zen 5), which reads subnormal
// inputs as zeros: the pass lifts them into the smallest normal binade and
// lowers the result again, so they round as round to nearest even on the
// bits does (the integer ops of conversion=integer, the artifact for
// x86-64-v2 here), as do ties, a carry into the next binade and past the
// largest finite value, signed zeros and NaNs (quiet, sign and payload
// kept): both artifacts' bits are checked. 6171 values: vectors, and a
// remainder for the scalar code.
// REQUIRES: host-runs-znver4
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/bf16_values.py write %t/x.npy
// RUN: jeet-compile %s -o %t/zen4.so --target-cpu=znver4
// RUN: llvm-objdump -d %t/zen4.so | FileCheck %s --check-prefix=INSTRUCTIONS
// RUN: jeet-runner %t/zen4.so --input=@%t/x.npy --output=@%t/zen4.npy
// RUN: %python %S/Inputs/bf16_values.py check %t/zen4.npy | FileCheck %s
// RUN: jeet-compile %s -o %t/sse.so --target-cpu=x86-64-v2
// RUN: jeet-runner %t/sse.so --input=@%t/x.npy --output=@%t/sse.npy
// RUN: %python %S/Inputs/bf16_values.py check %t/sse.npy | FileCheck %s

// INSTRUCTIONS: vcvtneps2bf16
// CHECK: 6171 of 6171 rounded as expected
func.func @main(%x: tensor<6171xf32>) -> tensor<6171xf32> {
  %b = jeet.cast %x : tensor<6171xf32> -> tensor<6171xbf16>
  %r = jeet.cast %b : tensor<6171xbf16> -> tensor<6171xf32>
  return %r : tensor<6171xf32>
}
