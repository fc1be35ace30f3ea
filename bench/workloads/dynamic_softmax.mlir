// Memory-bound, dynamic batch: a row softmax over ? x 4096 (run with 4096).
func.func @main(%x: tensor<?x4096xf32>) -> tensor<?x4096xf32> {
  %0 = tensor_program.softmax %x dim 1 : tensor<?x4096xf32>
  return %0 : tensor<?x4096xf32>
}
