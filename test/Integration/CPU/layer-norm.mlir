// RUN: wrapper-run %s --verify --print=false --seed 10 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse | wrapper-run - --verify --print=false --seed 32 | FileCheck %s
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<6x4x32xf32>, %w: tensor<32xf32>, %b: tensor<32xf32>, %w2: tensor<4x32xf32>) -> (tensor<6x4x32xf32>, tensor<6x4x32xf32>, tensor<6x4x32xf32>) {
  %0 = tensor_program.layer_norm %x weight %w bias %b normalized_rank 1 eps 1.0e-05 : (tensor<6x4x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<6x4x32xf32>
  %1 = tensor_program.layer_norm %x weight %w2 normalized_rank 2 eps 1.0e-05 : (tensor<6x4x32xf32>, tensor<4x32xf32>) -> tensor<6x4x32xf32>
  %2 = tensor_program.layer_norm %x normalized_rank 1 eps 1.0e-03 : (tensor<6x4x32xf32>) -> tensor<6x4x32xf32>
  return %0, %1, %2 : tensor<6x4x32xf32>, tensor<6x4x32xf32>, tensor<6x4x32xf32>
}
