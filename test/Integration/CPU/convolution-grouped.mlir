// RUN: wrapper-run %s --verify --print=false --seed 1 --dynamic-size=3 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 2 --dynamic-size=1 --gemm=false | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-convolution-to-matmul | FileCheck %s --check-prefix=IR
// CHECK-COUNT-5: vs interpreter: {{.*}}: ok
//
// Grouped convolutions (ResNeXt, ResNeSt, RegNet) through
// --tensor-program-convolution-to-matmul: one batched product over the
// groups of the weight's rows by the column rows of each group's
// channels, against the reference interpreter: two and four groups with
// a bias, a dynamic batch, stride 2, a 1x1 grouped kernel on one image (the
// input itself as columns), and a depthwise convolution, which stays a
// convolution (the window-loop lowering serves one channel per group).
// IR-LABEL: func.func @main
// IR: tensor_program.batch_matmul {{.*}} : (tensor<2x4x54xf32>, tensor<2x54x?xf32>) -> tensor<2x4x?xf32>
// IR: tensor_program.batch_matmul {{.*}} : (tensor<4x3x8xf32>, tensor<4x8x32xf32>) -> tensor<4x3x32xf32>
// IR: tensor_program.batch_matmul {{.*}} : (tensor<2x5x3xf32>, tensor<2x3x64xf32>) -> tensor<2x5x64xf32>
// IR: tensor_program.convolution {{.*}} groups 6
func.func @main(%x: tensor<?x12x8x8xf32>, %w: tensor<8x6x3x3xf32>, %b: tensor<8xf32>,
                %y: tensor<2x8x9x9xf32>, %v: tensor<12x2x2x2xf32>,
                %one: tensor<1x6x8x8xf32>, %p: tensor<10x3x1x1xf32>, %dw: tensor<6x1x3x3xf32>)
    -> (tensor<?x8x6x6xf32>, tensor<2x12x4x4xf32>, tensor<1x10x8x8xf32>, tensor<1x6x6x6xf32>, tensor<?x8x6x6xf32>) {
  %0 = tensor_program.convolution %x, %w bias %b stride [1, 1] dilation [1, 1] groups 2 : (tensor<?x12x8x8xf32>, tensor<8x6x3x3xf32>, tensor<8xf32>) -> tensor<?x8x6x6xf32>
  %1 = tensor_program.convolution %y, %v stride [2, 2] dilation [1, 1] groups 4 : (tensor<2x8x9x9xf32>, tensor<12x2x2x2xf32>) -> tensor<2x12x4x4xf32>
  %2 = tensor_program.convolution %one, %p stride [1, 1] dilation [1, 1] groups 2 : (tensor<1x6x8x8xf32>, tensor<10x3x1x1xf32>) -> tensor<1x10x8x8xf32>
  %3 = tensor_program.convolution %one, %dw stride [1, 1] dilation [1, 1] groups 6 : (tensor<1x6x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  %4 = tensor_program.relu %0 : tensor<?x8x6x6xf32>
  return %0, %1, %2, %3, %4 : tensor<?x8x6x6xf32>, tensor<2x12x4x4xf32>, tensor<1x10x8x8xf32>, tensor<1x6x6x6xf32>, tensor<?x8x6x6xf32>
}
