// RUN: wrapper-run %s --verify --print=false --seed 6 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-5: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<37x6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = tensor_program.reduce_sum %x dims [0] : tensor<37x6xf32> -> tensor<6xf32>
  %1 = tensor_program.reduce_max %x dims [0] : tensor<37x6xf32> -> tensor<6xf32>
  %2 = tensor_program.reduce_min %x dims [0] : tensor<37x6xf32> -> tensor<6xf32>
  %3 = tensor_program.reduce_mean %x dims [0] : tensor<37x6xf32> -> tensor<6xf32>
  %s = tensor_program.slice %x dim 0 start 0 end 8 : tensor<37x6xf32> -> tensor<8x6xf32>
  %4 = tensor_program.reduce_prod %s dims [0] : tensor<8x6xf32> -> tensor<6xf32>
  return %0, %1, %2, %3, %4 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
