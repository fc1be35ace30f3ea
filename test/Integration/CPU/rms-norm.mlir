// RUN: wrapper-run %s --verify --print=false --seed 11 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
func.func @main(%x: tensor<10x64xf32>, %w: tensor<64xf32>) -> (tensor<10x64xf32>, tensor<10x64xf32>) {
  %0 = tensor_program.rms_norm %x weight %w eps 1.0e-06 : (tensor<10x64xf32>, tensor<64xf32>) -> tensor<10x64xf32>
  %1 = tensor_program.rms_norm %x eps 1.0e-06 : (tensor<10x64xf32>) -> tensor<10x64xf32>
  return %0, %1 : tensor<10x64xf32>, tensor<10x64xf32>
}
