// f32 to bf16 and a bf16 gelu, 2048 x 2048.
func.func @main(%x: tensor<2048x2048xf32>) -> tensor<2048x2048xbf16> {
  %0 = tensor_program.cast %x : tensor<2048x2048xf32> to tensor<2048x2048xbf16>
  %1 = tensor_program.gelu %0 : tensor<2048x2048xbf16>
  return %1 : tensor<2048x2048xbf16>
}
