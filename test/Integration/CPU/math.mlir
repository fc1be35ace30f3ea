// RUN: wrapper-run %s --verify --print=false --seed 4 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-7: vs interpreter: {{.*}}: ok
// Functions that need positive inputs get |x| + 0.5.
func.func @main(%x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %half = tensor_program.constant dense<0.5> : tensor<f32>
  %ax = tensor_program.abs %x : tensor<64xf32>
  %p = tensor_program.add %ax, %half : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  %0 = tensor_program.log %p : tensor<64xf32>
  %1 = tensor_program.sqrt %p : tensor<64xf32>
  %2 = tensor_program.rsqrt %p : tensor<64xf32>
  %3 = tensor_program.pow %p, %y : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %4 = tensor_program.neg %y : tensor<64xf32>
  %5 = tensor_program.abs %y : tensor<64xf32>
  %6 = tensor_program.erf %y : tensor<64xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
