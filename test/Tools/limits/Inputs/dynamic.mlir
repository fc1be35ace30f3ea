// An input of limits.mlir.
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = tensor_program.neg %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
