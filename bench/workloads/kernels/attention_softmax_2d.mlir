// The same bytes as attention_softmax as a 2-D softmax (rank-cliff check).
func.func @main(%x: tensor<18912x197xf32>) -> tensor<18912x197xf32> {
  %0 = tensor_program.softmax %x dim 1 : tensor<18912x197xf32>
  return %0 : tensor<18912x197xf32>
}
