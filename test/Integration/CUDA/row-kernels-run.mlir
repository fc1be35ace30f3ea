// REQUIRES: cuda-runtime
// RUN: wrapper-run %s --target=cuda --entry=softmax --verify --print=false --dynamic-size 33 | FileCheck %s
// RUN: wrapper-run %s --target=cuda --entry=layer_norm --verify --print=false --dynamic-size 7 | FileCheck %s
// RUN: wrapper-run %s --target=cuda --entry=sums --verify --print=false | FileCheck %s --check-prefix=SUMS
// RUN: wrapper-run %s --target=cuda --entry=folded --verify --print=false --dynamic-size 9 | FileCheck %s --check-prefix=FOLDED
// The row kernels on the GPU against the reference interpreter: softmax
// with rows kept in registers (1024 = 64 threads x 4 vectors x 4 lanes)
// over a dynamic number of rows; layer_norm with unaligned rows of 1001
// (scalar loop); a row sum (a row kernel), a column sum (parallel loops)
// and the sum of a whole vector (one block).
// CHECK: output #0 vs interpreter: {{.*}}: ok
// SUMS-COUNT-3: vs interpreter: {{.*}}: ok
// Reductions over several innermost dimensions (folded into one row): a
// whole tensor to a scalar, and [?, 5, 6] over its last two dimensions.
// FOLDED-COUNT-2: vs interpreter: {{.*}}: ok
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %0 = tensor_program.softmax %x dim 1 : tensor<?x1024xf32>
  return %0 : tensor<?x1024xf32>
}
func.func @layer_norm(%x: tensor<?x1001xf32>, %w: tensor<1001xf32>, %b: tensor<1001xf32>) -> tensor<?x1001xf32> {
  %0 = tensor_program.layer_norm %x weight %w bias %b normalized_rank 1 eps 1.0e-05
      : (tensor<?x1001xf32>, tensor<1001xf32>, tensor<1001xf32>) -> tensor<?x1001xf32>
  return %0 : tensor<?x1001xf32>
}
func.func @sums(%x: tensor<64x2048xf32>, %v: tensor<5000xf32>) -> (tensor<64x1xf32>, tensor<1x2048xf32>, tensor<f32>) {
  %r = tensor_program.reduce_sum %x dims [1] keepdim : tensor<64x2048xf32> -> tensor<64x1xf32>
  %c = tensor_program.reduce_sum %x dims [0] keepdim : tensor<64x2048xf32> -> tensor<1x2048xf32>
  %s = tensor_program.reduce_sum %v dims [0] : tensor<5000xf32> -> tensor<f32>
  return %r, %c, %s : tensor<64x1xf32>, tensor<1x2048xf32>, tensor<f32>
}

func.func @folded(%x: tensor<3x5x6xf32>, %y: tensor<?x5x6xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %0 = tensor_program.reduce_sum %x dims [0, 1, 2] : tensor<3x5x6xf32> -> tensor<f32>
  %1 = tensor_program.reduce_max %y dims [1, 2] : tensor<?x5x6xf32> -> tensor<?xf32>
  return %0, %1 : tensor<f32>, tensor<?xf32>
}
