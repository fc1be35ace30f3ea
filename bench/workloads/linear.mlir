// Compute-bound: a linear layer with bias and relu over 4096 x 4096 (the
// product through cuBLAS on CUDA, the epilogue a generated kernel).
func.func @main(%x: tensor<4096x4096xf32>, %w: tensor<4096x4096xf32>, %b: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %0 = tensor_program.matmul %x, %w : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %1 = tensor_program.add %0, %b : (tensor<4096x4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  %2 = tensor_program.relu %1 : tensor<4096x4096xf32>
  return %2 : tensor<4096x4096xf32>
}
