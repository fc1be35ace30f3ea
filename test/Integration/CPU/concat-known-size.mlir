// RUN: wrapper-run %s --verify --print=false --seed 5 --dynamic-size 3 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 6 --dynamic-size 3 --wrapper-host=false | FileCheck %s
// CHECK: vs interpreter: {{.*}}: ok
// Sizes that do not add up are refused before anything runs:
// RUN: not wrapper-run %s --print=false --dynamic-size 2 2>&1 | FileCheck %s --check-prefix=SUM
// SUM: error: the input shapes do not fit the program: (input #0 dimension 1 + input #1 dimension 1) (4) must equal 6
// A concatenation of two dynamic halves whose sum the program knows (a
// tensor split at a symbolic point and joined again, as Dynamo traces
// timm's sequencer2d): the result type is static, then computed on.
func.func @main(%a: tensor<2x?xf32>, %b: tensor<2x?xf32>) -> tensor<2x6xf32> {
  %c = tensor_program.concat %a, %b dim 1 : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x6xf32>
  %e = tensor_program.exp %c : tensor<2x6xf32>
  %s = tensor_program.reduce_sum %e dims [1] keepdim : tensor<2x6xf32> -> tensor<2x1xf32>
  %r = tensor_program.div %e, %s : (tensor<2x6xf32>, tensor<2x1xf32>) -> tensor<2x6xf32>
  return %r : tensor<2x6xf32>
}
