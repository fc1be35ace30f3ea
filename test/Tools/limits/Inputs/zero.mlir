// An input of limits.mlir.
func.func @main(%x: tensor<0x4xf32>) -> (tensor<0x4xf32>, tensor<4xf32>) {
  %0 = tensor_program.neg %x : tensor<0x4xf32>
  %1 = tensor_program.reduce_sum %x dims [0] : tensor<0x4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<0x4xf32>, tensor<4xf32>
}
