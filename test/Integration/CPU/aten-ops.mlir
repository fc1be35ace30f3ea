// RUN: wrapper-run %s --verify --print=false --seed 3 --dynamic-size=4 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --dynamic-size=3 --fuse=false | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 5 --dynamic-size=5 --tile-elements=7 --plan-memory=pool | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 6 --dynamic-size=2 --fold-constants=false | FileCheck %s
// CHECK-COUNT-12: vs interpreter: {{.*}}: ok
// The ops of the core ATen importer: convolution (plain, as im2col and a
// product, and grouped with dilation, direct), max and average pooling
// with padding, take with indices counted from the end, iota and a
// cumulative sum over a dynamic dimension, elementwise math, a dynamic
// slice whose bounds are size arithmetic, slice_scatter and gather.
func.func @main(%x: tensor<2x3x9x9xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %dw: tensor<3x1x3x3xf32>, %i: tensor<2x5xi64>, %e: tensor<7x4xf32>, %v: tensor<?x6xf32>, %gw: tensor<6x1x3x3xf32>) -> (tensor<2x6x5x5xf32>, tensor<2x4x4x4xf32>, tensor<2x3x7x7xf32>, tensor<2x3x5x5xf32>, tensor<2x3x5x5xf32>, tensor<2x5x4xf32>, tensor<?x6xf32>, tensor<?x6xf32>, tensor<2x3x9x9xf32>, tensor<?x3xf32>, tensor<?x6xf32>, tensor<?x3xf32>) {
  %g = tensor_program.convolution %x, %gw stride [1, 1] dilation [2, 2] groups 3 : (tensor<2x3x9x9xf32>, tensor<6x1x3x3xf32>) -> tensor<2x6x5x5xf32>
  %0 = tensor_program.convolution %x, %w bias %b stride [2, 2] dilation [1, 1] groups 1 : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32>
  %1 = tensor_program.convolution %x, %dw stride [1, 1] dilation [1, 1] groups 3 : (tensor<2x3x9x9xf32>, tensor<3x1x3x3xf32>) -> tensor<2x3x7x7xf32>
  %2 = tensor_program.max_pool %x window [3, 3] stride [2, 2] dilation [1, 1] padding_low [1, 1] padding_high [1, 1] : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>
  %3 = tensor_program.avg_pool %x window [3, 3] stride [2, 2] padding_low [1, 1] padding_high [1, 1] : tensor<2x3x9x9xf32> -> tensor<2x3x5x5xf32>
  %c7 = tensor_program.constant dense<9> : tensor<i64>
  %ii = tensor_program.remainder %i, %c7 : (tensor<2x5xi64>, tensor<i64>) -> tensor<2x5xi64>
  %4 = tensor_program.take %e, %ii dim 0 : (tensor<7x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %v, %c0 : tensor<?x6xf32>
  %io = tensor_program.iota dim 1 [%n] : tensor<?x6xf32>
  %5 = tensor_program.add %io, %v : (tensor<?x6xf32>, tensor<?x6xf32>) -> tensor<?x6xf32>
  %6 = tensor_program.cumsum %5 dim 0 : tensor<?x6xf32>
  %7 = tensor_program.sin %x : tensor<2x3x9x9xf32>
  %c1 = arith.constant 1 : index
  %m = arith.subi %n, %c1 : index
  %8 = tensor_program.dynamic_slice %v dim 0 [%m, %n] step 1 : tensor<?x6xf32> -> tensor<?x6xf32>
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %9 = tensor_program.reshape %8 [%c2] : tensor<?x6xf32> -> tensor<?x3xf32>
  %z = tensor_program.full 0.0 [%n] : tensor<?x2xf32>
  %10 = tensor_program.slice_scatter %v, %z dim 1 start 1 end 5 step 2 : (tensor<?x6xf32>, tensor<?x2xf32>) -> tensor<?x6xf32>
  %gi = tensor_program.iota dim 1 [%n] : tensor<?x3xi64>
  %11 = tensor_program.gather %v, %gi dim 1 : (tensor<?x6xf32>, tensor<?x3xi64>) -> tensor<?x3xf32>
  return %g, %0, %1, %2, %3, %4, %5, %6, %7, %9, %10, %11 : tensor<2x6x5x5xf32>, tensor<2x4x4x4xf32>, tensor<2x3x7x7xf32>, tensor<2x3x5x5xf32>, tensor<2x3x5x5xf32>, tensor<2x5x4xf32>, tensor<?x6xf32>, tensor<?x6xf32>, tensor<2x3x9x9xf32>, tensor<?x3xf32>, tensor<?x6xf32>, tensor<?x3xf32>
}
