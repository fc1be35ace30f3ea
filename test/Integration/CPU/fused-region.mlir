// RUN: wrapper-run %s --verify --print=false --seed 23 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
// Explicit fused regions (as --tensor-program-fuse will produce them).
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %0 = tensor_program.fused pointwise (%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>):
    %s = tensor_program.add %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %r = tensor_program.relu %s : tensor<4x8xf32>
    tensor_program.yield %r : tensor<4x8xf32>
  }
  %1 = tensor_program.fused reduction (%0) : (tensor<4x8xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4x8xf32>):
    %e = tensor_program.exp %x : tensor<4x8xf32>
    %s = tensor_program.reduce_sum %e dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    tensor_program.yield %s : tensor<4xf32>
  }
  return %0, %1 : tensor<4x8xf32>, tensor<4xf32>
}
