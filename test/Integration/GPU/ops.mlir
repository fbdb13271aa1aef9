// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --fuse=false --input=2x2xf32=0.5,1,2,4
// RUN: %on_emulator %{run} | FileCheck %s
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}

// Each unary op family as its own kernel on the GPU (values as on the CPU).
// CHECK: 2x2xf32={{\[\[}}1.6487{{[0-9]*}} 2.7182{{[0-9]*}}][7.3890{{[0-9]*}} 54.598{{[0-9]*}}]]
// CHECK-NEXT: 2x2xf32={{\[\[}}-0.6931{{[0-9]*}} 0][0.6931{{[0-9]*}} 1.3862{{[0-9]*}}]]
// CHECK-NEXT: 2x2xf32={{\[\[}}0.7071{{[0-9]*}} 1][1.4142{{[0-9]*}} 2]]
// CHECK-NEXT: 2x2xf32={{\[\[}}1.4142{{[0-9]*}} 1][0.7071{{[0-9]*}} 0.5]]
// CHECK-NEXT: 2x2xf32={{\[\[}}0.4621{{[0-9]*}} 0.7615{{[0-9]*}}][0.9640{{[0-9]*}} 0.9993{{[0-9]*}}]]
// CHECK-NEXT: 2x2xf32={{\[\[}}0.6224{{[0-9]*}} 0.7310{{[0-9]*}}][0.8807{{[0-9]*}} 0.9820{{[0-9]*}}]]
// CHECK-NEXT: 2x2xf32={{\[\[}}-0.5 -1][-2 -4]]
func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = jeet.exp %x : tensor<2x2xf32>
  %1 = jeet.log %x : tensor<2x2xf32>
  %2 = jeet.sqrt %x : tensor<2x2xf32>
  %3 = jeet.rsqrt %x : tensor<2x2xf32>
  %4 = jeet.tanh %x : tensor<2x2xf32>
  %5 = jeet.sigmoid %x : tensor<2x2xf32>
  %6 = jeet.neg %x : tensor<2x2xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
