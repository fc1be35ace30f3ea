// NaN propagation through vectorized max/min reductions: a NaN inside a
// full vector step (column 50) and one in the remainder (column 68, past
// 2 x 32 and 4 x 16) must reach every row's max and min, as in the
// reference interpreter (and PyTorch's amax/amin); rows without NaN are
// exact.
// RUN: wrapper-run %s --verify --print=false --seed 71 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 72 --mattr=-avx512f | FileCheck %s
// RUN: wrapper-run %s --verify --seed 73 | FileCheck %s --check-prefix=VALUES
// CHECK-COUNT-4: vs interpreter: {{.*}}: ok
// VALUES: output #0: f32 [4]
// VALUES-NEXT: [nan, nan, nan, nan]
// VALUES: output #1: f32 [4]
// VALUES-NEXT: [nan, nan, nan, nan]
func.func @main(%x: tensor<4x70xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<70xf32>, tensor<4xf32>) {
  %a = tensor_program.constant dense<[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0x7FC00000, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]> : tensor<70xf32>
  %b = tensor_program.constant dense<[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0x7FC00000, 0.0]> : tensor<70xf32>
  %xa = tensor_program.add %x, %a : (tensor<4x70xf32>, tensor<70xf32>) -> tensor<4x70xf32>
  %xb = tensor_program.add %x, %b : (tensor<4x70xf32>, tensor<70xf32>) -> tensor<4x70xf32>
  %0 = tensor_program.reduce_max %xa dims [1] : tensor<4x70xf32> -> tensor<4xf32>
  %1 = tensor_program.reduce_min %xb dims [1] : tensor<4x70xf32> -> tensor<4xf32>
  %2 = tensor_program.reduce_max %xa dims [0] : tensor<4x70xf32> -> tensor<70xf32>
  %3 = tensor_program.reduce_max %x dims [1] : tensor<4x70xf32> -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<70xf32>, tensor<4xf32>
}
