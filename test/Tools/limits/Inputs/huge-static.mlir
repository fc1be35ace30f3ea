// An input of limits.mlir.
func.func @main(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  %0 = tensor_program.neg %x : tensor<4611686018427387904x4xf32>
  return %0 : tensor<4611686018427387904x4xf32>
}
