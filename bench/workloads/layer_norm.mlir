// Memory-bound: layer_norm with weight and bias over rows of 4096.
func.func @main(%x: tensor<4096x4096xf32>, %w: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %0 = tensor_program.layer_norm %x weight %w bias %b normalized_rank 1 eps 1.0e-05
      : (tensor<4096x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
