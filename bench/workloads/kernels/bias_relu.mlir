// The issue's held-out bias + relu (6 x 40), which LLVM left scalar.
func.func @main(%x: tensor<6x40xf32>, %b: tensor<40xf32>) -> tensor<6x40xf32> {
  %s = tensor_program.add %x, %b : (tensor<6x40xf32>, tensor<40xf32>) -> tensor<6x40xf32>
  %r = tensor_program.relu %s : tensor<6x40xf32>
  return %r : tensor<6x40xf32>
}
