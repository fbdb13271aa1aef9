func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  linalg.matmul <i32>)
}
