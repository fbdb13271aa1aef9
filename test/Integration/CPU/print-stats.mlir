// RUN: jeet-run %s --print-stats --input=4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 | FileCheck %s --check-prefix=FUSED
// RUN: jeet-run %s --print-stats --fuse=false --input=4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 | FileCheck %s --check-prefix=UNFUSED
// RUN: jeet-run %s --benchmark=3 --input=4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 | FileCheck %s --check-prefix=BENCH

// A chain of four elementwise ops: one kernel fused, four unfused. Unfused,
// one intermediate (exp's result, read by the last op) lives in the arena;
// the others are written in place into the output. The arena is the one
// allocation of the run.
// FUSED: kernels per execution: 1
// FUSED: arena bytes: 0 (intermediates: 0 bytes in 0 buffers; most alive at once: 0)
// FUSED: peak intermediate bytes: 0
// UNFUSED: kernels per execution: 4
// UNFUSED: arena bytes: 256 (intermediates: 256 bytes in 1 buffers; most alive at once: 256)
// UNFUSED: planned peak intermediate bytes: 256
// UNFUSED: intermediate allocations: 1
// BENCH: benchmark: 3 runs, median {{[0-9.]+}} ms
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = jeet.exp %x : tensor<4x4xf32>
  %1 = jeet.add %0, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = jeet.tanh %1 : tensor<4x4xf32>
  %3 = jeet.mul %2, %0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}
