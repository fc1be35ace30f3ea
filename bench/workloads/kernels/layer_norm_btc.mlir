// Layer norm over [B, T, C] = [8, 197, 192] (ViT-tiny's width).
func.func @main(%x: tensor<8x197x192xf32>, %w: tensor<192xf32>, %b: tensor<192xf32>) -> tensor<8x197x192xf32> {
  %0 = tensor_program.layer_norm %x weight %w bias %b normalized_rank 1 eps 1.0e-05 : (tensor<8x197x192xf32>, tensor<192xf32>, tensor<192xf32>) -> tensor<8x197x192xf32>
  return %0 : tensor<8x197x192xf32>
}
