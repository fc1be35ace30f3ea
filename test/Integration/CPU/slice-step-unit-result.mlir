// RUN: wrapper-run %s --differential --seed 3089 --dynamic-size 6 | FileCheck %s
// RUN: wrapper-run %s --seed 3089 --tile-elements=1 --verify --print=false | FileCheck %s --check-prefix=OK
// RUN: wrapper-run %s --seed 3089 --tile-elements=16 --verify --print=false | FileCheck %s --check-prefix=OK
// CHECK: differential: all configurations agree
// OK: vs interpreter: {{.*}}: ok
//
// Found by the differential test (seed 3089), reduced. A slice with step 2
// whose result has one element along that dimension, in a kernel tiled
// into small row tiles: the tiles' rank-reducing views carried the step on
// a unit dimension, and MLIR 22's SubViewOp::getDroppedDims crashed (or
// ran out of memory) when it had to tell which unit dimension a view
// dropped. Such a slice now lowers with stride 1 there.
func.func @main(%a0: tensor<3x16xf32>, %a1: tensor<16xf32>, %a2: tensor<2x3x16xf32>) -> (tensor<1x3x9xf32>) {
  %v6 = tensor_program.constant dense<[3, 0, 1, 8]> : tensor<4xi64>
  %v7 = tensor_program.gather %a1, %v6 dim 0 : (tensor<16xf32>, tensor<4xi64>) -> tensor<4xf32>
  %v8 = tensor_program.constant dense<[3]> : tensor<1xi64>
  %v9 = tensor_program.gather %v7, %v8 dim 0 : (tensor<4xf32>, tensor<1xi64>) -> tensor<1xf32>
  %v10 = tensor_program.slice %a2 dim 2 start 7 end 16 step 1 : tensor<2x3x16xf32> -> tensor<2x3x9xf32>
  %v11 = tensor_program.slice %v10 dim 0 start 0 end 2 step 2 : tensor<2x3x9xf32> -> tensor<1x3x9xf32>
  %v12 = tensor_program.mul %v11, %v9 : (tensor<1x3x9xf32>, tensor<1xf32>) -> tensor<1x3x9xf32>
  return %v12 : tensor<1x3x9xf32>
}
