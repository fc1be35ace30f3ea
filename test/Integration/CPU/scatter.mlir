// RUN: wrapper-run %s --verify --print=false --seed 3 --dynamic-size=4 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --dynamic-size=3 --fuse=false --plan-memory=pool | FileCheck %s
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
// CUDA-REFUSES: scatter lowers to a sequential loop nest, which the CUDA pipeline does not map to the GPU
// scatter with indices counted from the end (a later write wins where they
// repeat), and with add and max reductions over repeated indices.
func.func @main(%x: tensor<?x8xf32>, %v: tensor<?x3xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %v, %c0 : tensor<?x3xf32>
  %io = tensor_program.iota dim 1 [%n] : tensor<?x3xi64>
  %k = tensor_program.constant dense<-3> : tensor<i64>
  %i = tensor_program.mul %io, %k : (tensor<?x3xi64>, tensor<i64>) -> tensor<?x3xi64>
  %0 = tensor_program.scatter %x, %i, %v dim 1 : (tensor<?x8xf32>, tensor<?x3xi64>, tensor<?x3xf32>) -> tensor<?x8xf32>
  %two = tensor_program.constant dense<2> : tensor<i64>
  %j = tensor_program.floor_div %io, %two : (tensor<?x3xi64>, tensor<i64>) -> tensor<?x3xi64>
  %1 = tensor_program.scatter %x, %j, %v dim 1 reduce add : (tensor<?x8xf32>, tensor<?x3xi64>, tensor<?x3xf32>) -> tensor<?x8xf32>
  %2 = tensor_program.scatter %x, %j, %v dim 1 reduce max : (tensor<?x8xf32>, tensor<?x3xi64>, tensor<?x3xf32>) -> tensor<?x8xf32>
  return %0, %1, %2 : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>
}
