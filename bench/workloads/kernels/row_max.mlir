// A NaN-propagating row max of 4096 x 1024.
func.func @main(%x: tensor<4096x1024xf32>) -> tensor<4096xf32> {
  %0 = tensor_program.reduce_max %x dims [1] : tensor<4096x1024xf32> -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
