// RUN: wrapper-run %s --verify --print=false --seed 1 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 2 --parallel=false | FileCheck %s
// CHECK: output #0 vs interpreter: {{.*}}: ok
func.func @main(%a: tensor<16x1xf32>, %b: tensor<33xf32>, %c: tensor<f32>) -> tensor<16x33xf32> {
  %0 = tensor_program.add %a, %b : (tensor<16x1xf32>, tensor<33xf32>) -> tensor<16x33xf32>
  %1 = tensor_program.mul %0, %c : (tensor<16x33xf32>, tensor<f32>) -> tensor<16x33xf32>
  %2 = tensor_program.sub %1, %a : (tensor<16x33xf32>, tensor<16x1xf32>) -> tensor<16x33xf32>
  %3 = tensor_program.exp %2 : tensor<16x33xf32>
  %4 = tensor_program.div %3, %b : (tensor<16x33xf32>, tensor<33xf32>) -> tensor<16x33xf32>
  return %4 : tensor<16x33xf32>
}
