// REQUIRES: gpu-emulator
// On the GPU emulator everywhere; on the GPU too where a CUDA driver answers.
// DEFINE: %{run} = jeet-run %s --device=gpu --input=2x40xf32=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39 --input=40x2xf32=1,-1,2,-2,3,-3,4,-4,5,-5,6,-6,7,-7,8,-8,9,-9,10,-10,11,-11,12,-12,13,-13,14,-14,15,-15,16,-16,17,-17,18,-18,19,-19,20,-20,21,-21,22,-22,23,-23,24,-24,25,-25,26,-26,27,-27,28,-28,29,-29,30,-30,31,-31,32,-32,33,-33,34,-34,35,-35,36,-36,37,-37,38,-38,39,-39,40,-40
// RUN: %on_emulator %{run} | FileCheck %s
// RUN: %if cuda-driver %{ %{run} | FileCheck %s %}

// K = 40 is two and a half K-tiles of the tiled matmul (16 deep), and every
// row k of B weighs differently (k + 1, and its negation): a K-tile staged
// from the wrong rows of B, or a partial last tile read wrongly, changes
// every output. Integers: the sums are exact in f32.
// CHECK: 2x2xf32={{\[\[}}820 -820][21320 -21320]]
func.func @main(%a: tensor<2x40xf32>, %b: tensor<40x2xf32>) -> tensor<2x2xf32> {
  %0 = jeet.matmul %a, %b : tensor<2x40xf32>, tensor<40x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
