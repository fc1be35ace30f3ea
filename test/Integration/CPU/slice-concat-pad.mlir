// RUN: wrapper-run %s --verify --print=false --seed 15 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-4: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<5x8xf32>, %y: tensor<3x8xf32>) -> (tensor<5x3xf32>, tensor<8x8xf32>, tensor<7x11xf32>, tensor<2x4x8xf32>) {
  %0 = tensor_program.slice %x dim 1 start 1 end 100 step 3 : tensor<5x8xf32> -> tensor<5x3xf32>
  %1 = tensor_program.concat %x, %y dim 0 : (tensor<5x8xf32>, tensor<3x8xf32>) -> tensor<8x8xf32>
  %2 = tensor_program.pad %x low [1, 2] high [1, 1] value -2.5 : tensor<5x8xf32> -> tensor<7x11xf32>
  %3 = tensor_program.broadcast %y : tensor<3x8xf32> -> tensor<2x3x8xf32>
  %4 = tensor_program.slice %3 dim 1 start 1 : tensor<2x3x8xf32> -> tensor<2x2x8xf32>
  %5 = tensor_program.concat %4, %4 dim 1 : (tensor<2x2x8xf32>, tensor<2x2x8xf32>) -> tensor<2x4x8xf32>
  return %0, %1, %2, %5 : tensor<5x3xf32>, tensor<8x8xf32>, tensor<7x11xf32>, tensor<2x4x8xf32>
}
