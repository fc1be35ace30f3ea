// ViT-tiny's attention softmax: [1, 3, 197, 197] over the last dimension.
func.func @main(%x: tensor<1x3x197x197xf32>) -> tensor<1x3x197x197xf32> {
  %0 = tensor_program.softmax %x dim 3 : tensor<1x3x197x197xf32>
  return %0 : tensor<1x3x197x197xf32>
}
