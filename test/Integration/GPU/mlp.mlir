// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --print-stats --input=2x4xf32=0.5,-1,2,0.25,1,0,-0.5,3 --input=4x3xf32=0.1,0.2,-0.3,0.4,0.5,-0.6,0.7,0.8,-0.1,0.2,0.3,-0.4 --input=3xf32=0.1,0,-0.1
// RUN: %on_emulator %{run} | FileCheck %s --check-prefixes=CHECK,EMU
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}

// A perceptron layer with a softmax head on the GPU: 1 kernel for
// matmul + bias + relu, 1 for the softmax (a multi-reduction group), each
// launched once.
// CHECK: 2x3xf32={{\[\[}}0.4176{{[0-9]*}} 0.4501{{[0-9]*}} 0.1322{{[0-9]*}}][0.3422{{[0-9]*}} 0.4394{{[0-9]*}} 0.2182{{[0-9]*}}]]
// CHECK: device: gpu (cuda:0: 
// The emulated GPU says what it is.
// EMU-SAME: Jeet GPU emulator (CPU), sm_90, {{.*}}(emulated: kernels run on the host CPU; no GPU speed))
// CHECK: kernels per execution: 2
// CHECK: kernels executed: 2 (launched)
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = jeet.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %1 = jeet.add %0, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %2 = jeet.relu %1 : tensor<2x3xf32>
  %3 = jeet.softmax %2 {axis = 1 : i64} : tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}
