// A matmul compiled ahead of time for another CPU takes that CPU's register
// tile, not this machine's: 6 x 16 (12 of AVX2's 16 vector registers) for
// x86-64-v3, 6 x 8 with SSE alone (x86-64-v2), 6 x 64 for an AVX-512 CPU,
// this machine's (0: read by jeet-cpu-matmul) for host. An x86-64-v3 artifact compiled on an AVX-512
// host took its 6 x 64 tile, spilled the accumulators at every step and ran
// 2.5x slower (docs/Performance.md, "Matmuls compiled for another CPU").
// The same target features choose how f32 is rounded to bf16: the
// conversion instruction where the CPU has AVX512-BF16 (Sapphire Rapids,
// Zen 4) except on Zen 5, where integer ops are faster on chains of bf16
// ops; integer ops where it has not; this machine's choice for host.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env JEET_DEBUG=1 jeet-compile %s -o %t/avx2.so --target-cpu=x86-64-v3 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: env JEET_DEBUG=1 jeet-compile %s -o %t/sse.so --target-cpu=x86-64-v2 2>&1 | FileCheck %s --check-prefix=SSE
// RUN: jeet-runner %t/sse.so --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 | FileCheck %s
// RUN: env JEET_DEBUG=1 jeet-compile %s -o %t/avx512.so --target-cpu=sapphirerapids 2>&1 | FileCheck %s --check-prefix=AVX512
// RUN: env JEET_DEBUG=1 jeet-compile %s -o %t/host.so 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: env JEET_DEBUG=1 jeet-compile %s -o %t/zen4.so --target-cpu=znver4 2>&1 | FileCheck %s --check-prefix=ZEN4
// RUN: env JEET_DEBUG=1 jeet-compile %s -o %t/zen5.so --target-cpu=znver5 2>&1 | FileCheck %s --check-prefix=ZEN5
// RUN: jeet-runner %t/avx2.so --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,0,0,1,1,1 | FileCheck %s

// AVX2: jeet-cpu-pipeline{bf16-conversion=integer {{.*}} matmul-register-cols=16 {{.*}} vector-datapath-bits=256
// SSE: jeet-cpu-pipeline{bf16-conversion=integer {{.*}} matmul-register-cols=8 {{.*}} vector-datapath-bits=256
// AVX512: jeet-cpu-pipeline{bf16-conversion=hardware {{.*}} matmul-register-cols=64 {{.*}} vector-datapath-bits=512
// HOST: jeet-cpu-pipeline{bf16-conversion=host {{.*}} matmul-register-cols=0 {{.*}} vector-datapath-bits=0
// Zen 4 executes 512-bit vectors as two halves: rows joined across cost them
// twice.
// ZEN4: jeet-cpu-pipeline{bf16-conversion=hardware {{.*}} matmul-register-cols=64 {{.*}} vector-datapath-bits=256
// ZEN5: jeet-cpu-pipeline{bf16-conversion=integer {{.*}} matmul-register-cols=64 {{.*}} vector-datapath-bits=512
// CHECK: 2x2xf32={{\[\[}}4 5][10 11]]
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %0 = jeet.matmul %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
