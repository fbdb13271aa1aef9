// A two-layer perceptron with a softmax head: the graph that `make demo`
// runs through jeet-run.
func.func @main(%x: tensor<2x4xf32>, %w1: tensor<4x8xf32>, %b1: tensor<8xf32>,
                %w2: tensor<8x3xf32>, %b2: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = jeet.matmul %x, %w1 : tensor<2x4xf32>, tensor<4x8xf32> -> tensor<2x8xf32>
  %1 = jeet.add %0, %b1 : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %2 = jeet.relu %1 : tensor<2x8xf32>
  %3 = jeet.matmul %2, %w2 : tensor<2x8xf32>, tensor<8x3xf32> -> tensor<2x3xf32>
  %4 = jeet.add %3, %b2 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %5 = jeet.softmax %4 {axis = 1 : i64} : tensor<2x3xf32>
  return %5 : tensor<2x3xf32>
}
