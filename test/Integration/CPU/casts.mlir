// RUN: wrapper-run %s --verify --print=false --seed 21 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-4: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<50xf32>) -> (tensor<50xf16>, tensor<50xf32>, tensor<50xi1>, tensor<50xi32>) {
  %0 = tensor_program.cast %x : tensor<50xf32> to tensor<50xf16>
  %1 = tensor_program.cast %0 : tensor<50xf16> to tensor<50xf32>
  %z = tensor_program.relu %x : tensor<50xf32>
  %2 = tensor_program.cast %z : tensor<50xf32> to tensor<50xi1>
  %ten = tensor_program.constant dense<10.0> : tensor<f32>
  %s = tensor_program.mul %x, %ten : (tensor<50xf32>, tensor<f32>) -> tensor<50xf32>
  %3 = tensor_program.cast %s : tensor<50xf32> to tensor<50xi32>
  return %0, %1, %2, %3 : tensor<50xf16>, tensor<50xf32>, tensor<50xi1>, tensor<50xi32>
}
