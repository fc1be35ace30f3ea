// A column reduction (over dimension 0) of 4096 x 1024.
func.func @main(%x: tensor<4096x1024xf32>) -> tensor<1024xf32> {
  %0 = tensor_program.reduce_sum %x dims [0] : tensor<4096x1024xf32> -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
