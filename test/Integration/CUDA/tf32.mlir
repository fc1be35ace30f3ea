// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" --mlir-print-ir-after=wrapper-cuda-matmul-to-cublas 2>&1 >/dev/null | FileCheck %s --check-prefix=IEEE
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true allow-tf32-convolutions=true" --mlir-print-ir-after=wrapper-cuda-matmul-to-cublas 2>&1 >/dev/null | FileCheck %s --check-prefix=CONV
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true allow-tf32=true" --mlir-print-ir-after=wrapper-cuda-matmul-to-cublas 2>&1 >/dev/null | FileCheck %s --check-prefix=ALL
// PyTorch's two TF32 switches on CUDA: a convolution's product (marked
// tensor_program.convolution by --tensor-program-convolution-to-matmul, the
// mark carried through the lowering to linalg and bufferization) calls
// cuBLAS with the TF32 flag (8) under allow-tf32-convolutions
// (torch.backends.cudnn.allow_tf32); a matmul only under allow-tf32
// (torch.backends.cuda.matmul.allow_tf32). Neither by default.
// IEEE-LABEL: func.func @conv
// IEEE: call @wrapperCudaGemm({{.*}}, %c0_i32)
// IEEE-LABEL: func.func @grouped
// IEEE: call @wrapperCudaGemm({{.*}}, %c0_i32)
// IEEE-LABEL: func.func @mm
// IEEE: call @wrapperCudaGemm({{.*}}, %c0_i32)
// CONV-LABEL: func.func @conv
// CONV: call @wrapperCudaGemm({{.*}}, %c8_i32)
// CONV-LABEL: func.func @grouped
// CONV: call @wrapperCudaGemm({{.*}}, %c8_i32)
// CONV-LABEL: func.func @mm
// CONV: call @wrapperCudaGemm({{.*}}, %c0_i32)
// ALL-LABEL: func.func @conv
// ALL: call @wrapperCudaGemm({{.*}}, %c8_i32)
// ALL-LABEL: func.func @grouped
// ALL: call @wrapperCudaGemm({{.*}}, %c8_i32)
// ALL-LABEL: func.func @mm
// ALL: call @wrapperCudaGemm({{.*}}, %c8_i32)
func.func @conv(%x: tensor<?x3x9x9xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<?x8x4x4xf32> {
  %0 = tensor_program.convolution %x, %w bias %b stride [2, 2] dilation [1, 1] groups 1 : (tensor<?x3x9x9xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<?x8x4x4xf32>
  return %0 : tensor<?x8x4x4xf32>
}
func.func @grouped(%x: tensor<2x8x9x9xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x8x7x7xf32> {
  %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 2 : (tensor<2x8x9x9xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x7x7xf32>
  return %0 : tensor<2x8x7x7xf32>
}
func.func @mm(%x: tensor<16x32xf32>, %w: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %0 = tensor_program.matmul %x, %w : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
