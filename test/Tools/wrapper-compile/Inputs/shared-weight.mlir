// The weight of a product that another op reads too (packed-weights.mlir).
func.func @main(%x: tensor<?x16xf32>, %wt: tensor<16x40xf32>) -> (tensor<?x40xf32>, tensor<40xf32>) {
  %w = tensor_program.permute %wt [1, 0] : tensor<16x40xf32> -> tensor<40x16xf32>
  %h = tensor_program.linear %x, %w : (tensor<?x16xf32>, tensor<40x16xf32>) -> tensor<?x40xf32>
  %s = tensor_program.reduce_sum %wt dims [0] : tensor<16x40xf32> -> tensor<40xf32>
  return %h, %s : tensor<?x40xf32>, tensor<40xf32>
}
