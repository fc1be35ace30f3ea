// RUN: wrapper-run %s --verify --print=false --seed 3 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-6: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<7x19xf32>) -> (tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>) {
  %0 = tensor_program.relu %x : tensor<7x19xf32>
  %1 = tensor_program.gelu %x : tensor<7x19xf32>
  %2 = tensor_program.gelu %x approximate tanh : tensor<7x19xf32>
  %3 = tensor_program.silu %x : tensor<7x19xf32>
  %4 = tensor_program.sigmoid %x : tensor<7x19xf32>
  %5 = tensor_program.tanh %x : tensor<7x19xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>, tensor<7x19xf32>
}
