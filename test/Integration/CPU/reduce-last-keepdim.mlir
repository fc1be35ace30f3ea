// RUN: wrapper-run %s --verify --print=false --seed 7 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<5x129xf32>) -> (tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x129xf32>) {
  %0 = tensor_program.reduce_sum %x dims [1] keepdim : tensor<5x129xf32> -> tensor<5x1xf32>
  %1 = tensor_program.reduce_mean %x dims [1] keepdim : tensor<5x129xf32> -> tensor<5x1xf32>
  %2 = tensor_program.sub %x, %1 : (tensor<5x129xf32>, tensor<5x1xf32>) -> tensor<5x129xf32>
  return %0, %1, %2 : tensor<5x1xf32>, tensor<5x1xf32>, tensor<5x129xf32>
}
