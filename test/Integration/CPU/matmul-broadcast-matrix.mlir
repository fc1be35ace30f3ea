// Products by a matrix broadcast over the batch (aten.matmul's expand +
// bmm) against the reference interpreter, which runs them as written:
// the canonicalization multiplies by the matrix itself (a linear layer on
// the rows of a transposed input, and a shared left operand).
// RUN: wrapper-run %s --entry=right --verify --print=false --seed 1 | FileCheck %s
// RUN: wrapper-run %s --entry=left --verify --print=false --seed 2 | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cpu-frontend | FileCheck %s --check-prefix=IR
// CHECK: vs interpreter: {{.*}}: ok
// The right-hand matrix is read once (no [7, 48, 40] copy of it).
// IR-LABEL: wrapper.graph @right
// IR-NOT: memref<7x48x40xf32>
// IR: wrapper.graph @left
func.func @right(%x: tensor<3x7x48xf32>, %w: tensor<48x40xf32>, %bias: tensor<40xf32>) -> tensor<7x3x40xf32> {
  %t = tensor_program.permute %x [1, 0, 2] : tensor<3x7x48xf32> -> tensor<7x3x48xf32>
  %wb = tensor_program.broadcast %w : tensor<48x40xf32> -> tensor<7x48x40xf32>
  %m = tensor_program.batch_matmul %t, %wb : (tensor<7x3x48xf32>, tensor<7x48x40xf32>) -> tensor<7x3x40xf32>
  %bb = tensor_program.broadcast %bias : tensor<40xf32> -> tensor<7x3x40xf32>
  %y = tensor_program.add %m, %bb : (tensor<7x3x40xf32>, tensor<7x3x40xf32>) -> tensor<7x3x40xf32>
  return %y : tensor<7x3x40xf32>
}
func.func @left(%a: tensor<20x33xf32>, %b: tensor<4x33x25xf32>) -> tensor<4x20x25xf32> {
  %ab = tensor_program.broadcast %a : tensor<20x33xf32> -> tensor<4x20x33xf32>
  %m = tensor_program.batch_matmul %ab, %b : (tensor<4x20x33xf32>, tensor<4x33x25xf32>) -> tensor<4x20x25xf32>
  return %m : tensor<4x20x25xf32>
}
