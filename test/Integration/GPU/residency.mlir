// REQUIRES: gpu-emulator
// A graph of two kernels executed five times on the GPU (the emulator
// everywhere; the GPU too where a CUDA driver answers): the first execution
// launches its kernels, the others replay them as one CUDA graph each; with
// --cuda-graphs=false every execution launches them. The inputs were copied
// to the device before the timed runs: the runs copy nothing. The
// intermediates live in one arena.
// DEFINE: %{run} = jeet-run %s --device=gpu --benchmark=5 --print-stats --input=2x4xf32=0.5,-1,2,0.25,1,0,-0.5,3 --input=4x3xf32=0.1,0.2,-0.3,0.4,0.5,-0.6,0.7,0.8,-0.1,0.2,0.3,-0.4 --input=3xf32=0.1,0,-0.1
// RUN: %on_emulator %{run} | FileCheck %s --check-prefixes=CHECK,REPLAY
// RUN: %on_emulator %{run} --cuda-graphs=false | FileCheck %s --check-prefixes=CHECK,LAUNCH
// RUN: %if cuda-driver %{ %{run} | FileCheck %s --check-prefixes=CHECK,REPLAY %}

// The numbers are right after replays too (the output is the last run's).
// CHECK: 2x3xf32={{\[\[}}0.4176{{[0-9]*}} 0.4501{{[0-9]*}} 0.1322{{[0-9]*}}][0.3422{{[0-9]*}} 0.4394{{[0-9]*}} 0.2182{{[0-9]*}}]]
// CHECK: kernels per execution: 2
// CHECK: kernels executed: 10 (launched)
// REPLAY: cuda graphs: on
// LAUNCH: cuda graphs: off: CUDA graphs are turned off
// CHECK: arena bytes: [[ARENA:[0-9]+]] (intermediates: {{[0-9]+}} bytes in {{[0-9]+}} buffers; most alive at once: {{[0-9]+}})
// REPLAY: gpu.kernels_launched: 2
// REPLAY: gpu.graph_launches: 4
// LAUNCH: gpu.kernels_launched: 10
// LAUNCH: gpu.graph_launches: 0
// CHECK: gpu.h2d_bytes: 0
// CHECK: gpu.d2h_bytes: 0
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = jeet.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %1 = jeet.add %0, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %2 = jeet.relu %1 : tensor<2x3xf32>
  %3 = jeet.softmax %2 {axis = 1 : i64} : tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}
