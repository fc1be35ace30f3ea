// RUN: wrapper-run %s --verify --print=false --seed 5 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-5: vs interpreter: {{.*}}: ok
func.func @main(%a: tensor<9x5xf32>, %b: tensor<5xf32>) -> (tensor<9x5xf32>, tensor<9x5xf32>, tensor<9x5xf32>, tensor<9x5xi1>, tensor<9x5xi1>) {
  %gt = tensor_program.compare gt, %a, %b : (tensor<9x5xf32>, tensor<5xf32>) -> tensor<9x5xi1>
  %0 = tensor_program.where %gt, %a, %b : (tensor<9x5xi1>, tensor<9x5xf32>, tensor<5xf32>) -> tensor<9x5xf32>
  %1 = tensor_program.max %a, %b : (tensor<9x5xf32>, tensor<5xf32>) -> tensor<9x5xf32>
  %2 = tensor_program.min %a, %b : (tensor<9x5xf32>, tensor<5xf32>) -> tensor<9x5xf32>
  %le = tensor_program.compare le, %a, %b : (tensor<9x5xf32>, tensor<5xf32>) -> tensor<9x5xi1>
  return %0, %1, %2, %gt, %le : tensor<9x5xf32>, tensor<9x5xf32>, tensor<9x5xf32>, tensor<9x5xi1>, tensor<9x5xi1>
}
