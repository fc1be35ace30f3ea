func.func @main(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
