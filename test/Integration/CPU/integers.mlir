// RUN: wrapper-run %s --verify --print=false --seed 20 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-5: vs interpreter: {{.*}}: ok
func.func @main(%a: tensor<6x7xi32>, %b: tensor<7xi32>) -> (tensor<6x7xi32>, tensor<6x7xi32>, tensor<6xi32>, tensor<6x7xf32>, tensor<6x7xi32>) {
  %0 = tensor_program.mul %a, %b : (tensor<6x7xi32>, tensor<7xi32>) -> tensor<6x7xi32>
  %1 = tensor_program.relu %0 : tensor<6x7xi32>
  %2 = tensor_program.reduce_sum %a dims [1] : tensor<6x7xi32> -> tensor<6xi32>
  %3 = tensor_program.cast %0 : tensor<6x7xi32> to tensor<6x7xf32>
  %one = tensor_program.constant dense<3> : tensor<i32>
  %4 = tensor_program.div %a, %one : (tensor<6x7xi32>, tensor<i32>) -> tensor<6x7xi32>
  return %0, %1, %2, %3, %4 : tensor<6x7xi32>, tensor<6x7xi32>, tensor<6xi32>, tensor<6x7xf32>, tensor<6x7xi32>
}
