// RUN: wrapper-run %s --verify --print=false --seed 14 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse="elementwise=false" | wrapper-run - --verify --print=false --seed 41 | FileCheck %s
// CHECK-COUNT-4: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<4x6xf32>) -> (tensor<3x8xf32>, tensor<6x4xf32>, tensor<2x4x3xf32>, tensor<3x2x2xf32>) {
  %0 = tensor_program.reshape %x : tensor<4x6xf32> -> tensor<3x8xf32>
  %1 = tensor_program.permute %x [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  %r = tensor_program.reshape %x : tensor<4x6xf32> -> tensor<4x2x3xf32>
  %2 = tensor_program.permute %r [1, 0, 2] : tensor<4x2x3xf32> -> tensor<2x4x3xf32>
  %3 = tensor_program.as_strided %x sizes [3, 2, 2] strides [6, 1, 3] offset 2 : tensor<4x6xf32> -> tensor<3x2x2xf32>
  return %0, %1, %2, %3 : tensor<3x8xf32>, tensor<6x4xf32>, tensor<2x4x3xf32>, tensor<3x2x2xf32>
}
