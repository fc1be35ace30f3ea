// REQUIRES: cuda-runtime
// RUN: wrapper-run %s --target=cuda --entry=batch_norm_stats --verify --print=false | FileCheck %s
// RUN: wrapper-run %s --target=cuda --entry=outer --verify --print=false --dynamic-size 37 | FileCheck %s --check-prefix=OUTER
// Reductions that are not row reductions, one block per output element
// (--wrapper-cuda-block-reductions), against the reference interpreter:
// batch_norm's statistics (mean, and the variance around it) over
// [N, H, W] of [8, 64, 32, 32]; sums and maxima over outer dimensions with
// a dynamic size among the reduced ones and among the kept ones.
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
// OUTER-COUNT-3: vs interpreter: {{.*}}: ok
func.func @batch_norm_stats(%x: tensor<8x64x32x32xf32>) -> (tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>) {
  %mean = tensor_program.reduce_mean %x dims [0, 2, 3] keepdim : tensor<8x64x32x32xf32> -> tensor<1x64x1x1xf32>
  %d = tensor_program.sub %x, %mean : (tensor<8x64x32x32xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x32x32xf32>
  %d2 = tensor_program.mul %d, %d : (tensor<8x64x32x32xf32>, tensor<8x64x32x32xf32>) -> tensor<8x64x32x32xf32>
  %var = tensor_program.reduce_mean %d2 dims [0, 2, 3] keepdim : tensor<8x64x32x32xf32> -> tensor<1x64x1x1xf32>
  return %mean, %var : tensor<1x64x1x1xf32>, tensor<1x64x1x1xf32>
}
func.func @outer(%x: tensor<?x24x300xf32>, %y: tensor<6x?x50xf32>) -> (tensor<24xf32>, tensor<24xf32>, tensor<?xf32>) {
  %s = tensor_program.reduce_sum %x dims [0, 2] : tensor<?x24x300xf32> -> tensor<24xf32>
  %m = tensor_program.reduce_max %x dims [0, 2] : tensor<?x24x300xf32> -> tensor<24xf32>
  %t = tensor_program.reduce_sum %y dims [0, 2] : tensor<6x?x50xf32> -> tensor<?xf32>
  return %s, %m, %t : tensor<24xf32>, tensor<24xf32>, tensor<?xf32>
}
