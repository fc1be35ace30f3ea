// RUN: wrapper-run %s --differential --seed 7 --dynamic-size 5 | FileCheck %s
// RUN: wrapper-run %s --seed 7 --tile-elements=1 --verify --print=false | FileCheck %s --check-prefix=OK
// RUN: wrapper-run %s --seed 7 --dynamic-size 1 --verify --print=false | FileCheck %s --check-prefix=OK
// CHECK: differential: all configurations agree
// OK-COUNT-3: vs interpreter: {{.*}}: ok
//
// Tests tensor_program.flip against the reference interpreter: a
// transposed convolution's kernel transform (channels swapped, both
// spatial dimensions flipped) fused with its permute and reshape, a flip of
// a dynamic dimension behind an add, and a flip of a constant (folded),
// with every fusion setting, memory planner and tile size.
func.func @main(%w: tensor<6x4x3x3xf32>, %x: tensor<?x7xf32>, %y: tensor<?x7xf32>) -> (tensor<4x54xf32>, tensor<?x7xf32>, tensor<2x3xi64>) {
  %p = tensor_program.permute %w [1, 0, 2, 3] : tensor<6x4x3x3xf32> -> tensor<4x6x3x3xf32>
  %f = tensor_program.flip %p [2, 3] : tensor<4x6x3x3xf32>
  %r = tensor_program.reshape %f : tensor<4x6x3x3xf32> -> tensor<4x54xf32>
  %s = tensor_program.add %x, %y : (tensor<?x7xf32>, tensor<?x7xf32>) -> tensor<?x7xf32>
  %t = tensor_program.flip %s [0] : tensor<?x7xf32>
  %c = tensor_program.constant dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi64>
  %d = tensor_program.flip %c [0, 1] : tensor<2x3xi64>
  return %r, %t, %d : tensor<4x54xf32>, tensor<?x7xf32>, tensor<2x3xi64>
}
