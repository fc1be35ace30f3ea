// RUN: wrapper-opt %s --wrapper-cuda-pipeline="wrapper-host=false" | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cuda-pipeline | FileCheck %s
// A bf16 product (a linalg.generic: bf16 inputs, f32 accumulator) after a
// layer_norm and before a gelu: the elementwise producers are not fused
// into the product (they would be recomputed for every output element,
// and cuBLAS could not take it), with or without the host graph. Both
// products go to cuBLAS.
// CHECK-LABEL: llvm.func @main(
// CHECK-COUNT-2: llvm.call @wrapperCudaGemm(
func.func @main(%x: tensor<64x256xbf16>, %w1: tensor<256x256xbf16>, %w2: tensor<256x256xbf16>,
                %g: tensor<256xbf16>, %b: tensor<256xbf16>) -> tensor<64x256xbf16> {
  %n = tensor_program.layer_norm %x weight %g bias %b normalized_rank 1 eps 1.0e-05
      : (tensor<64x256xbf16>, tensor<256xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
  %h = tensor_program.matmul %n, %w1 : (tensor<64x256xbf16>, tensor<256x256xbf16>) -> tensor<64x256xbf16>
  %a = tensor_program.gelu %h : tensor<64x256xbf16>
  %o = tensor_program.matmul %a, %w2 : (tensor<64x256xbf16>, tensor<256x256xbf16>) -> tensor<64x256xbf16>
  return %o : tensor<64x256xbf16>
}
