// Memory-bound: ((a + b) * c) + b over N x 4096, 3 inputs read, 1 output written.
func.func @main(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>, %c: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %0 = tensor_program.add %a, %b : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %1 = tensor_program.mul %0, %c : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %2 = tensor_program.add %1, %b : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %2 : tensor<4096x4096xf32>
}
