// Memory-bound: rms_norm with weight over rows of 4096 (1 read, 1 write).
func.func @main(%x: tensor<4096x4096xf32>, %w: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %0 = tensor_program.rms_norm %x weight %w eps 1.0e-06
      : (tensor<4096x4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
