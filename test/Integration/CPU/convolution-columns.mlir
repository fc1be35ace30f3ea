// RUN: wrapper-run %s --verify --print=false --seed 3 --dynamic-size=3 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --dynamic-size=1 --fuse=false | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 5 --dynamic-size=2 --tile-elements=7 --plan-memory=pool | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 6 --dynamic-size=4 --gemm=false | FileCheck %s
// CHECK-COUNT-7: vs interpreter: {{.*}}: ok

// Convolutions through --tensor-program-convolution-to-matmul (the column
// matrix of strided slices times the weight), compiled and checked
// against the reference interpreter: a dynamic batch with a 3x3 kernel,
// stride 2 and a bias, dilation 2, a 1x1 kernel with stride 2, a 1x1 one
// with stride 1 over several images (no slice at all), a 1-D and a 3-D
// convolution, and a batch of one followed by an epilogue (the product's
// output is already channels-first).
func.func @main(%x: tensor<?x3x9x9xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>,
                %s: tensor<2x5x8x8xf32>, %p: tensor<6x5x1x1xf32>,
                %l: tensor<2x3x11xf32>, %lw: tensor<4x3x3xf32>,
                %v: tensor<2x2x5x5x5xf32>, %vw: tensor<3x2x2x2x2xf32>,
                %one: tensor<1x5x8x8xf32>, %ow: tensor<7x5x3x3xf32>)
    -> (tensor<?x4x4x4xf32>, tensor<?x4x5x5xf32>, tensor<2x6x4x4xf32>, tensor<2x6x8x8xf32>,
        tensor<2x4x5xf32>, tensor<2x3x4x4x4xf32>, tensor<1x7x6x6xf32>) {
  %0 = tensor_program.convolution %x, %w bias %b stride [2, 2] dilation [1, 1] groups 1 : (tensor<?x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<?x4x4x4xf32>
  %1 = tensor_program.convolution %x, %w stride [1, 1] dilation [2, 2] groups 1 : (tensor<?x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<?x4x5x5xf32>
  %2 = tensor_program.convolution %s, %p stride [2, 2] dilation [1, 1] groups 1 : (tensor<2x5x8x8xf32>, tensor<6x5x1x1xf32>) -> tensor<2x6x4x4xf32>
  %3 = tensor_program.convolution %s, %p stride [1, 1] dilation [1, 1] groups 1 : (tensor<2x5x8x8xf32>, tensor<6x5x1x1xf32>) -> tensor<2x6x8x8xf32>
  %4 = tensor_program.convolution %l, %lw stride [2] dilation [1] groups 1 : (tensor<2x3x11xf32>, tensor<4x3x3xf32>) -> tensor<2x4x5xf32>
  %5 = tensor_program.convolution %v, %vw stride [1, 1, 1] dilation [1, 1, 1] groups 1 : (tensor<2x2x5x5x5xf32>, tensor<3x2x2x2x2xf32>) -> tensor<2x3x4x4x4xf32>
  %6 = tensor_program.convolution %one, %ow stride [1, 1] dilation [1, 1] groups 1 : (tensor<1x5x8x8xf32>, tensor<7x5x3x3xf32>) -> tensor<1x7x6x6xf32>
  %7 = tensor_program.relu %6 : tensor<1x7x6x6xf32>
  return %0, %1, %2, %3, %4, %5, %7 : tensor<?x4x4x4xf32>, tensor<?x4x5x5xf32>, tensor<2x6x4x4xf32>, tensor<2x6x8x8xf32>, tensor<2x4x5xf32>, tensor<2x3x4x4x4xf32>, tensor<1x7x6x6xf32>
}
