// RUN: wrapper-run %s --verify --print=false --seed 22 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
func.func @main(%a: tensor<3x5x7xf32>, %b: tensor<3x7x4xf32>, %w: tensor<7x6xf32>, %q: tensor<2x1x5x7xf32>) -> (tensor<3x5x4xf32>, tensor<3x5x6xf32>, tensor<2x3x5x4xf32>) {
  %0 = tensor_program.batch_matmul %a, %b : (tensor<3x5x7xf32>, tensor<3x7x4xf32>) -> tensor<3x5x4xf32>
  %1 = tensor_program.matmul %a, %w : (tensor<3x5x7xf32>, tensor<7x6xf32>) -> tensor<3x5x6xf32>
  %2 = tensor_program.matmul %q, %b : (tensor<2x1x5x7xf32>, tensor<3x7x4xf32>) -> tensor<2x3x5x4xf32>
  return %0, %1, %2 : tensor<3x5x4xf32>, tensor<3x5x6xf32>, tensor<2x3x5x4xf32>
}
