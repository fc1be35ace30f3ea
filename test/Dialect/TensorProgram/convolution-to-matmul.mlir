// RUN: wrapper-opt %s --tensor-program-convolution-to-matmul | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-convolution-to-matmul=max-index-elements=10 | FileCheck %s --check-prefix=LIMIT

// Tests that a 1x1 convolution with a dynamic batch becomes a permute of
// the channels last, a reshape to [N * P, C] and one product.
// CHECK-LABEL: func.func @pointwise
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: %[[NP:.*]] = arith.muli %[[N]], %c16
// CHECK: %[[T:.*]] = tensor_program.permute %{{.*}} [0, 2, 3, 1] : tensor<?x8x4x4xf32> -> tensor<?x4x4x8xf32>
// CHECK: %[[R:.*]] = tensor_program.reshape %[[T]] [%[[NP]]] : tensor<?x4x4x8xf32> -> tensor<?x8xf32>
// CHECK: %[[W:.*]] = tensor_program.permute %{{.*}} [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK: %[[P:.*]] = tensor_program.matmul %[[R]], %[[W]] : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
// CHECK: %[[B:.*]] = tensor_program.add %[[P]], %{{.*}} : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
// CHECK: %[[U:.*]] = tensor_program.reshape %[[B]] [%[[N]]] : tensor<?x16xf32> -> tensor<?x4x4x16xf32>
// CHECK: tensor_program.permute %[[U]] [0, 3, 1, 2] : tensor<?x4x4x16xf32> -> tensor<?x16x4x4xf32>
// CHECK-NOT: tensor_program.convolution
func.func @pointwise(%x: tensor<?x8x4x4xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16xf32>) -> tensor<?x16x4x4xf32> {
  %0 = tensor_program.convolution %x, %w bias %b stride [1, 1] dilation [1, 1] groups 1 : (tensor<?x8x4x4xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<?x16x4x4xf32>
  return %0 : tensor<?x16x4x4xf32>
}

// Tests that a 3x3 strided convolution takes its windows through a
// constant index ([P, C * K] = [4, 18]: positions (0,0) (0,2) (2,0) (2,2)
// of a 5x5 input with 2 channels), then multiplies.
// CHECK-LABEL: func.func @windows
// CHECK: %[[I:.*]] = tensor_program.constant dense<{{\[\[}}0, 1, 2, 5, 6, 7, 10, 11, 12, 25, 26, 27, 30, 31, 32, 35, 36, 37], [2, 3, 4, 7,
// CHECK-SAME: tensor<4x18xi32>
// CHECK: tensor_program.reshape %{{.*}} : tensor<1x2x5x5xf32> -> tensor<1x50xf32>
// CHECK: tensor_program.take %{{.*}}, %[[I]] dim 1 : (tensor<1x50xf32>, tensor<4x18xi32>) -> tensor<1x4x18xf32>
// CHECK: tensor_program.matmul %{{.*}}, %{{.*}} : (tensor<4x18xf32>, tensor<18x3xf32>) -> tensor<4x3xf32>
// LIMIT-LABEL: func.func @windows
// LIMIT: tensor_program.convolution
func.func @windows(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32> {
  %0 = tensor_program.convolution %x, %w stride [2, 2] dilation [1, 1] groups 1 : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// Tests that grouped convolutions stay direct.
// CHECK-LABEL: func.func @grouped
// CHECK: tensor_program.convolution
func.func @grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 4 : (tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}
