// RUN: wrapper-run %s --verify --print=false --seed 8 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse | wrapper-run - --verify --print=false --seed 38 | FileCheck %s
// CHECK-COUNT-4: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<3x4x5xf32>) -> (tensor<4xf32>, tensor<3x1x1xf32>, tensor<3x4xf32>, tensor<3x5xi64>) {
  %0 = tensor_program.reduce_sum %x dims [0, 2] : tensor<3x4x5xf32> -> tensor<4xf32>
  %1 = tensor_program.reduce_max %x dims [1, 2] keepdim : tensor<3x4x5xf32> -> tensor<3x1x1xf32>
  %2 = tensor_program.reduce_min %x dims [2] : tensor<3x4x5xf32> -> tensor<3x4xf32>
  %3 = tensor_program.argmax %x dim 1 : tensor<3x4x5xf32> -> tensor<3x5xi64>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<3x1x1xf32>, tensor<3x4xf32>, tensor<3x5xi64>
}
