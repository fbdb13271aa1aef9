// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --input=f32=1 --input=f32=2
// RUN: %on_emulator %{run} | FileCheck %s
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}
// RUN: %on_emulator %{run} --fuse=false | FileCheck %s

// A fused group of rank-0 ops with two results (a kernel of one block with
// a shared output per result; it once failed to compile: "cannot be mapped
// to one GPU kernel: 2 results").
// CHECK: f32=3
// CHECK-NEXT: f32=20.0855
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %s = jeet.add %a, %b : tensor<f32>, tensor<f32> -> tensor<f32>
  %e = jeet.exp %s : tensor<f32>
  return %s, %e : tensor<f32>, tensor<f32>
}
