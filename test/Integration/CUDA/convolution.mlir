// RUN: wrapper-opt %s --wrapper-cuda-pipeline="device-arguments=true" | FileCheck %s
// Convolutions without groups become im2col (a gather kernel) and one
// product through cuBLAS on CUDA too (--tensor-program-convolution-to-matmul
// in the shared front end); grouped ones stay direct loop nests.
// CHECK-LABEL: llvm.func @conv(
// CHECK: gpu.launch_func
// CHECK: llvm.call @wrapperCudaGemm
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @depthwise(
// CHECK-NOT: llvm.call @wrapperCudaGemm
// CHECK: gpu.launch_func
// CHECK: llvm.return
func.func @conv(%x: tensor<?x3x9x9xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<?x8x4x4xf32> {
  %0 = tensor_program.convolution %x, %w bias %b stride [2, 2] dilation [1, 1] groups 1 : (tensor<?x3x9x9xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<?x8x4x4xf32>
  return %0 : tensor<?x8x4x4xf32>
}
func.func @depthwise(%x: tensor<2x3x9x9xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<2x3x7x7xf32> {
  %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 3 : (tensor<2x3x9x9xf32>, tensor<3x1x3x3xf32>) -> tensor<2x3x7x7xf32>
  return %0 : tensor<2x3x7x7xf32>
}
