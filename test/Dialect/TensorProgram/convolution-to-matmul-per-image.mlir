// RUN: wrapper-opt %s --tensor-program-convolution-to-matmul --cse | FileCheck %s --check-prefix=NONE
// RUN: wrapper-opt %s --tensor-program-convolution-to-matmul=per-image=pointwise --cse | FileCheck %s --check-prefix=POINT
// RUN: wrapper-opt %s --tensor-program-convolution-to-matmul=per-image=all --cse | FileCheck %s --check-prefix=ALL
// RUN: not wrapper-opt %s --tensor-program-convolution-to-matmul=per-image=some 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: --tensor-program-convolution-to-matmul: per-image must be none, pointwise or all, got 'some'

// Tests that a 1x1 convolution of two images over 256 positions is, with
// per-image, one product per image: the weight [F, C] by the input as
// [N, C, P] (a broadcast matmul), the bias added as [F, 1], and the
// result [N, F, P] reshaped to [N, F, H, W], with no permute of the input
// or the output; by default one product over both images, permuted back.
// NONE-LABEL: func.func @pointwise
// NONE: tensor_program.matmul %{{.*}}, %{{.*}} {tensor_program.convolution} : (tensor<16x8xf32>, tensor<8x512xf32>) -> tensor<16x512xf32>
// NONE: tensor_program.permute %{{.*}} [1, 0, 2, 3] : tensor<16x2x16x16xf32> -> tensor<2x16x16x16xf32>
// POINT-LABEL: func.func @pointwise
// POINT-NOT: tensor_program.permute
// POINT: %[[C:.*]] = tensor_program.reshape %arg0 : tensor<2x8x16x16xf32> -> tensor<2x8x256xf32>
// POINT: %[[W:.*]] = tensor_program.reshape %arg1 : tensor<16x8x1x1xf32> -> tensor<16x8xf32>
// POINT: %[[P:.*]] = tensor_program.matmul %[[W]], %[[C]] {tensor_program.convolution} : (tensor<16x8xf32>, tensor<2x8x256xf32>) -> tensor<2x16x256xf32>
// POINT: %[[B:.*]] = tensor_program.reshape %arg2 : tensor<16xf32> -> tensor<16x1xf32>
// POINT: %[[A:.*]] = tensor_program.add %[[P]], %[[B]] : (tensor<2x16x256xf32>, tensor<16x1xf32>) -> tensor<2x16x256xf32>
// POINT: %[[R:.*]] = tensor_program.reshape %[[A]] : tensor<2x16x256xf32> -> tensor<2x16x16x16xf32>
// POINT-NOT: tensor_program.permute
// POINT: return %[[R]]
func.func @pointwise(%x: tensor<2x8x16x16xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16xf32>) -> tensor<2x16x16x16xf32> {
  %0 = tensor_program.convolution %x, %w bias %b stride [1, 1] dilation [1, 1] groups 1 : (tensor<2x8x16x16xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<2x16x16x16xf32>
  return %0 : tensor<2x16x16x16xf32>
}

// Tests that a 3x3 convolution (stride 2, dilation 2) is one product per
// image only with per-image=all: its columns [N, C * K, P] are one strided
// view [N, C, KH, KW, OH, OW] of the input with strides [C * H * W, H * W,
// 2 * W, 2, 2 * W, 2]; per-image=pointwise leaves it one product.
// POINT-LABEL: func.func @windows
// POINT: tensor_program.matmul %{{.*}}, %{{.*}} {tensor_program.convolution} : (tensor<4x27xf32>, tensor<27x512xf32>) -> tensor<4x512xf32>
// POINT: tensor_program.permute
// ALL-LABEL: func.func @windows
// ALL-NOT: tensor_program.permute
// ALL: %[[V:.*]] = tensor_program.as_strided %arg0 sizes [2, 3, 3, 3, 16, 16] strides [3888, 1296, 72, 2, 72, 2] offset 0 : tensor<2x3x36x36xf32> -> tensor<2x3x3x3x16x16xf32>
// ALL: %[[C:.*]] = tensor_program.reshape %[[V]] : tensor<2x3x3x3x16x16xf32> -> tensor<2x27x256xf32>
// ALL: %[[W:.*]] = tensor_program.reshape %arg1 : tensor<4x3x3x3xf32> -> tensor<4x27xf32>
// ALL: %[[P:.*]] = tensor_program.matmul %[[W]], %[[C]] {tensor_program.convolution} : (tensor<4x27xf32>, tensor<2x27x256xf32>) -> tensor<2x4x256xf32>
// ALL: tensor_program.reshape %[[P]] : tensor<2x4x256xf32> -> tensor<2x4x16x16xf32>
func.func @windows(%x: tensor<2x3x36x36xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x16x16xf32> {
  %0 = tensor_program.convolution %x, %w stride [2, 2] dilation [2, 2] groups 1 : (tensor<2x3x36x36xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x16x16xf32>
  return %0 : tensor<2x4x16x16xf32>
}

// Tests what stays one product over the batch even with per-image=all:
// fewer than 256 positions per image (each image's product would be too
// narrow for the GEMM template's column blocks), a dynamic batch, and
// groups (a batched product over the groups).
// ALL-LABEL: func.func @small
// ALL: tensor_program.matmul %{{.*}}, %{{.*}} {tensor_program.convolution} : (tensor<16x8xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
// ALL: tensor_program.permute
func.func @small(%x: tensor<2x8x4x4xf32>, %w: tensor<16x8x1x1xf32>) -> tensor<2x16x4x4xf32> {
  %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 1 : (tensor<2x8x4x4xf32>, tensor<16x8x1x1xf32>) -> tensor<2x16x4x4xf32>
  return %0 : tensor<2x16x4x4xf32>
}

// ALL-LABEL: func.func @dynamic
// ALL: tensor_program.matmul %{{.*}}, %{{.*}} {tensor_program.convolution} : (tensor<16x8xf32>, tensor<8x?xf32>) -> tensor<16x?xf32>
// ALL: tensor_program.permute
func.func @dynamic(%x: tensor<?x8x16x16xf32>, %w: tensor<16x8x1x1xf32>) -> tensor<?x16x16x16xf32> {
  %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 1 : (tensor<?x8x16x16xf32>, tensor<16x8x1x1xf32>) -> tensor<?x16x16x16xf32>
  return %0 : tensor<?x16x16x16xf32>
}

// ALL-LABEL: func.func @grouped
// ALL: tensor_program.batch_matmul %{{.*}}, %{{.*}} {tensor_program.convolution}
// ALL: tensor_program.permute
func.func @grouped(%x: tensor<2x8x16x16xf32>, %w: tensor<16x4x1x1xf32>) -> tensor<2x16x16x16xf32> {
  %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 2 : (tensor<2x8x16x16xf32>, tensor<16x4x1x1xf32>) -> tensor<2x16x16x16xf32>
  return %0 : tensor<2x16x16x16xf32>
}
