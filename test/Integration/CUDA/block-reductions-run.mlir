// REQUIRES: cuda-runtime
// RUN: wrapper-run %s --target=cuda --entry=batch_norm_stats --verify --print=false | FileCheck %s
// RUN: wrapper-run %s --target=cuda --entry=outer --verify --print=false --dynamic-size 37 | FileCheck %s --check-prefix=OUTER
// RUN: wrapper-run %s --target=cuda --entry=batch_norm_backward --verify --print=false | FileCheck %s --check-prefix=BACKWARD
// Reductions that are not row reductions, one block per output element
// (--wrapper-cuda-block-reductions), against the reference interpreter:
// batch_norm's statistics (mean, and the variance around it) over
// [N, H, W] of [8, 64, 32, 32]; sums and maxima over outer dimensions with
// a dynamic size among the reduced ones and among the kept ones.
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
// OUTER-COUNT-3: vs interpreter: {{.*}}: ok
// batch_norm's backward: per-channel sums whose zero fill and elementwise
// tails (the scalings, the weight gradient, the running statistics'
// update) run in the reductions' launches (one block per channel).
// BACKWARD-COUNT-4: vs interpreter: {{.*}}: ok
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

func.func @batch_norm_backward(%x: tensor<8x64x16x16xf32>, %dy: tensor<8x64x16x16xf32>,
                               %mean: tensor<1x64x1x1xf32>, %rstd: tensor<1x64x1x1xf32>,
                               %running: tensor<64xf32>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x64x16x16xf32>) {
  %sum = tensor_program.reduce_sum %dy dims [0, 2, 3] : tensor<8x64x16x16xf32> -> tensor<64xf32>
  %centered = tensor_program.sub %x, %mean : (tensor<8x64x16x16xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x16x16xf32>
  %xhat = tensor_program.mul %centered, %rstd : (tensor<8x64x16x16xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x16x16xf32>
  %prod = tensor_program.mul %dy, %xhat : (tensor<8x64x16x16xf32>, tensor<8x64x16x16xf32>) -> tensor<8x64x16x16xf32>
  %dot = tensor_program.reduce_sum %prod dims [0, 2, 3] : tensor<8x64x16x16xf32> -> tensor<64xf32>
  %inv = tensor_program.constant dense<4.8828125e-04> : tensor<f32>
  %dot_mean = tensor_program.mul %dot, %inv : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  %momentum = tensor_program.constant dense<0.9> : tensor<f32>
  %kept = tensor_program.mul %running, %momentum : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  %updated = tensor_program.add %kept, %dot_mean : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %sum_mean = tensor_program.mul %sum, %inv : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  %sum4 = tensor_program.reshape %sum_mean : tensor<64xf32> -> tensor<1x64x1x1xf32>
  %dot4 = tensor_program.reshape %dot_mean : tensor<64xf32> -> tensor<1x64x1x1xf32>
  %a = tensor_program.mul %xhat, %dot4 : (tensor<8x64x16x16xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x16x16xf32>
  %b = tensor_program.sub %dy, %sum4 : (tensor<8x64x16x16xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x16x16xf32>
  %c = tensor_program.sub %b, %a : (tensor<8x64x16x16xf32>, tensor<8x64x16x16xf32>) -> tensor<8x64x16x16xf32>
  %dx = tensor_program.mul %c, %rstd : (tensor<8x64x16x16xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x16x16xf32>
  return %sum, %dot, %updated, %dx : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x64x16x16xf32>
}
