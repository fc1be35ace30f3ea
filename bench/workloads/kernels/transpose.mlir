// A transpose with an elementwise consumer, 2048 x 1536.
func.func @main(%x: tensor<2048x1536xf32>) -> tensor<1536x2048xf32> {
  %0 = tensor_program.permute %x [1, 0] : tensor<2048x1536xf32> -> tensor<1536x2048xf32>
  %1 = tensor_program.relu %0 : tensor<1536x2048xf32>
  return %1 : tensor<1536x2048xf32>
}
