func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r:2 = jeet.fusion (%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  ^bb0(%x: tensor<2xf32>):
    %0 = jeet.neg %x : tensor<2xf32>
    jeet.yield %0, %x : tensor<2xf32>, tensor<2xf32>
  }
  return %r#2147483648 : tensor<2xf32>
}
