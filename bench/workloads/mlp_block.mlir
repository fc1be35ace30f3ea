// A pre-norm MLP block over 4096 x 4096: x + gelu(layer_norm(x) @ w1) @ w2.
// Several kernels and two products (cuBLAS on CUDA) with intermediates in
// between: the host graph's memory planning and launch sequence at work.
func.func @main(%x: tensor<4096x4096xf32>, %w1: tensor<4096x4096xf32>, %w2: tensor<4096x4096xf32>,
                %g: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %n = tensor_program.layer_norm %x weight %g bias %b normalized_rank 1 eps 1.0e-05
      : (tensor<4096x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  %h = tensor_program.matmul %n, %w1 : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %a = tensor_program.gelu %h : tensor<4096x4096xf32>
  %o = tensor_program.matmul %a, %w2 : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %r = tensor_program.add %x, %o : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
