// A batch of attention scores: softmax over [8, 12, 197, 197] (rank 4).
func.func @main(%x: tensor<8x12x197x197xf32>) -> tensor<8x12x197x197xf32> {
  %0 = tensor_program.softmax %x dim 3 : tensor<8x12x197x197xf32>
  return %0 : tensor<8x12x197x197xf32>
}
