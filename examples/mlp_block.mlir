// An MLP block as PyTorch computes it (linear, bias, gelu, linear, residual,
// layer_norm), written in tensor_program with a dynamic batch dimension.
// The README's main-job command compiles it and runs it on the CPU.
func.func @mlp_block(%x: tensor<?x64xf32>, %w1: tensor<256x64xf32>, %b1: tensor<256xf32>,
                     %w2: tensor<64x256xf32>, %b2: tensor<64xf32>,
                     %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<?x64xf32> {
  %h = tensor_program.linear %x, %w1 bias %b1 : (tensor<?x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  %g = tensor_program.gelu %h : tensor<?x256xf32>
  %o = tensor_program.linear %g, %w2 bias %b2 : (tensor<?x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  // A no-op scale that canonicalization removes.
  %one = tensor_program.constant dense<1.0> : tensor<64xf32>
  %s = tensor_program.mul %o, %one : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %r = tensor_program.add %s, %x : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = tensor_program.layer_norm %r weight %gamma bias %beta normalized_rank 1 eps 1.0e-05
      : (tensor<?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
