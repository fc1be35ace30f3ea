// RUN: wrapper-opt %s --tensor-program-convolution-to-matmul --cse | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-convolution-to-matmul=max-column-elements=10 | FileCheck %s --check-prefix=LIMIT

// Tests that a 1x1 convolution with a dynamic batch puts the images side by
// side ([C, N, H, W]), takes that as the column matrix [C, N * P] without a
// slice, multiplies the weight [F, C] by it, adds the bias as [F, 1], and
// permutes [F, N, H, W] back to [N, F, H, W].
// CHECK-LABEL: func.func @pointwise
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: %[[NP:.*]] = arith.muli %[[N]], %c16
// CHECK: %[[T:.*]] = tensor_program.permute %{{.*}} [1, 0, 2, 3] : tensor<?x8x4x4xf32> -> tensor<8x?x4x4xf32>
// CHECK-NOT: tensor_program.slice
// CHECK: %[[C:.*]] = tensor_program.reshape %[[T]] [%[[NP]]] : tensor<8x?x4x4xf32> -> tensor<8x?xf32>
// CHECK: %[[W:.*]] = tensor_program.reshape %{{.*}} : tensor<16x8x1x1xf32> -> tensor<16x8xf32>
// CHECK: %[[P:.*]] = tensor_program.matmul %[[W]], %[[C]] {tensor_program.convolution} : (tensor<16x8xf32>, tensor<8x?xf32>) -> tensor<16x?xf32>
// CHECK: %[[B:.*]] = tensor_program.reshape %{{.*}} : tensor<16xf32> -> tensor<16x1xf32>
// CHECK: %[[A:.*]] = tensor_program.add %[[P]], %[[B]] : (tensor<16x?xf32>, tensor<16x1xf32>) -> tensor<16x?xf32>
// CHECK: %[[U:.*]] = tensor_program.reshape %[[A]] [%[[N]]] : tensor<16x?xf32> -> tensor<16x?x4x4xf32>
// CHECK: tensor_program.permute %[[U]] [1, 0, 2, 3] : tensor<16x?x4x4xf32> -> tensor<?x16x4x4xf32>
// CHECK-NOT: tensor_program.convolution
func.func @pointwise(%x: tensor<?x8x4x4xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16xf32>) -> tensor<?x16x4x4xf32> {
  %0 = tensor_program.convolution %x, %w bias %b stride [1, 1] dilation [1, 1] groups 1 : (tensor<?x8x4x4xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<?x16x4x4xf32>
  return %0 : tensor<?x16x4x4xf32>
}

// Tests that a 3x3 convolution with stride 2 over one image takes its
// column matrix [C * K, P] = [18, 4] as one strided view of the input,
// dimensions [C, KH, KW, N, OH, OW] with strides [H * W, W, 1, C * H * W,
// 2 * W, 2], and needs no permute: the weight's own layout [F, C * K]
// times the columns is already [F, P].
// CHECK-LABEL: func.func @windows
// CHECK-NOT: tensor_program.permute
// CHECK: %[[V:.*]] = tensor_program.as_strided %{{.*}} sizes [2, 3, 3, 1, 2, 2] strides [25, 5, 1, 50, 10, 2] offset 0 : tensor<1x2x5x5xf32> -> tensor<2x3x3x1x2x2xf32>
// CHECK: %[[COL:.*]] = tensor_program.reshape %[[V]] : tensor<2x3x3x1x2x2xf32> -> tensor<18x4xf32>
// CHECK: %[[W:.*]] = tensor_program.reshape %{{.*}} : tensor<3x2x3x3xf32> -> tensor<3x18xf32>
// CHECK: %[[M:.*]] = tensor_program.matmul %[[W]], %[[COL]] {tensor_program.convolution} : (tensor<3x18xf32>, tensor<18x4xf32>) -> tensor<3x4xf32>
// CHECK: tensor_program.reshape %[[M]] : tensor<3x4xf32> -> tensor<1x3x2x2xf32>
// LIMIT-LABEL: func.func @windows
// LIMIT: tensor_program.convolution
func.func @windows(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32> {
  %0 = tensor_program.convolution %x, %w stride [2, 2] dilation [1, 1] groups 1 : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// Tests that dilation spaces the offsets of a 1-D kernel (stride 2 in the
// view), and that two images go through one product side by side, its
// [F, N, O] result permuted to [N, F, O].
// CHECK-LABEL: func.func @dilated
// CHECK: tensor_program.as_strided %{{.*}} sizes [3, 3, 2, 5] strides [9, 2, 27, 1] offset 0 : tensor<2x3x9xf32> -> tensor<3x3x2x5xf32>
// CHECK: tensor_program.matmul %{{.*}}, %{{.*}} {tensor_program.convolution} : (tensor<4x9xf32>, tensor<9x10xf32>) -> tensor<4x10xf32>
// CHECK: %[[U:.*]] = tensor_program.reshape %{{.*}} : tensor<4x10xf32> -> tensor<4x2x5xf32>
// CHECK: tensor_program.permute %[[U]] [1, 0, 2] : tensor<4x2x5xf32> -> tensor<2x4x5xf32>
func.func @dilated(%x: tensor<2x3x9xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x4x5xf32> {
  %0 = tensor_program.convolution %x, %w stride [1] dilation [2] groups 1 : (tensor<2x3x9xf32>, tensor<4x3x3xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// Tests that a dynamic batch (which a strided view cannot have) builds the
// columns from the images side by side, one strided slice per kernel
// offset (rows 0:3:2, 1:4:2, 2:5:2, the same for the columns, in row-major
// offset order), concatenated.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[T:.*]] = tensor_program.permute %{{.*}} [1, 0, 2, 3] : tensor<?x2x5x5xf32> -> tensor<2x?x5x5xf32>
// CHECK: %[[R0:.*]] = tensor_program.slice %[[T]] dim 2 start 0 end 3 step 2 : tensor<2x?x5x5xf32> -> tensor<2x?x2x5xf32>
// CHECK: %[[S00:.*]] = tensor_program.slice %[[R0]] dim 3 start 0 end 3 step 2 : tensor<2x?x2x5xf32> -> tensor<2x?x2x2xf32>
// CHECK: %[[P00:.*]] = tensor_program.reshape %[[S00]] [%{{.*}}] : tensor<2x?x2x2xf32> -> tensor<2x1x?xf32>
// CHECK: tensor_program.slice %[[R0]] dim 3 start 1 end 4 step 2
// CHECK: tensor_program.slice %[[R0]] dim 3 start 2 end 5 step 2
// CHECK: tensor_program.slice %[[T]] dim 2 start 1 end 4 step 2
// CHECK: %[[R2:.*]] = tensor_program.slice %[[T]] dim 2 start 2 end 5 step 2
// CHECK: %[[S22:.*]] = tensor_program.slice %[[R2]] dim 3 start 2 end 5 step 2
// CHECK: %[[P22:.*]] = tensor_program.reshape %[[S22]]
// CHECK: %[[CAT:.*]] = tensor_program.concat %[[P00]], {{.*}}, %[[P22]] dim 1 : ({{.*}}) -> tensor<2x9x?xf32>
// CHECK: %[[COL:.*]] = tensor_program.reshape %[[CAT]] [%{{.*}}] : tensor<2x9x?xf32> -> tensor<18x?xf32>
// CHECK: tensor_program.matmul %{{.*}}, %[[COL]] {tensor_program.convolution} : (tensor<3x18xf32>, tensor<18x?xf32>) -> tensor<3x?xf32>
// CHECK: tensor_program.permute %{{.*}} [1, 0, 2, 3] : tensor<3x?x2x2xf32> -> tensor<?x3x2x2xf32>
func.func @dynamic(%x: tensor<?x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<?x3x2x2xf32> {
  %0 = tensor_program.convolution %x, %w stride [2, 2] dilation [1, 1] groups 1 : (tensor<?x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x2x2xf32>
  return %0 : tensor<?x3x2x2xf32>
}

// Tests that a 1x1 convolution with stride 1 over one image uses the input
// itself as the column matrix.
// CHECK-LABEL: func.func @single_pointwise
// CHECK-NEXT: %[[C:.*]] = tensor_program.reshape %{{.*}} : tensor<1x8x4x4xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[W:.*]] = tensor_program.reshape %{{.*}} : tensor<16x8x1x1xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[P:.*]] = tensor_program.matmul %[[W]], %[[C]]
// CHECK-NEXT: tensor_program.reshape %[[P]] : tensor<16x16xf32> -> tensor<1x16x4x4xf32>
func.func @single_pointwise(%x: tensor<1x8x4x4xf32>, %w: tensor<16x8x1x1xf32>) -> tensor<1x16x4x4xf32> {
  %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 1 : (tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// Tests that grouped convolutions stay direct.
// CHECK-LABEL: func.func @grouped
// CHECK: tensor_program.convolution
func.func @grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = tensor_program.convolution %x, %w stride [1, 1] dilation [1, 1] groups 4 : (tensor<1x4x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}
