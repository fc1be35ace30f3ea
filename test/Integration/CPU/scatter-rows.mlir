// RUN: wrapper-run %s --verify --print=false --seed 5 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 6 --fuse=false | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cuda-pipeline | FileCheck %s --check-prefix=CUDA
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
// scatter with one index per full row (what nll_loss's backward does):
// lowered as a parallel select, so it also runs on the GPU (a kernel, not
// a host loop). Indices counted from the end, along dim 1 and dim 0, with
// and without a reduction.
// CUDA: gpu.binary
func.func @main(%x: tensor<4x8xf32>, %v: tensor<4x1xf32>, %w: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %io = tensor_program.iota dim 0 : tensor<4x1xi64>
  %k = tensor_program.constant dense<-3> : tensor<i64>
  %i = tensor_program.mul %io, %k : (tensor<4x1xi64>, tensor<i64>) -> tensor<4x1xi64>
  %0 = tensor_program.scatter %x, %i, %v dim 1 : (tensor<4x8xf32>, tensor<4x1xi64>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %1 = tensor_program.scatter %x, %io, %v dim 1 reduce add : (tensor<4x8xf32>, tensor<4x1xi64>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %jo = tensor_program.iota dim 1 : tensor<1x8xi64>
  %two = tensor_program.constant dense<2> : tensor<i64>
  %j = tensor_program.floor_div %jo, %two : (tensor<1x8xi64>, tensor<i64>) -> tensor<1x8xi64>
  %2 = tensor_program.scatter %x, %j, %w dim 0 reduce max : (tensor<4x8xf32>, tensor<1x8xi64>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
