// RUN: wrapper-run %s --verify --print=false --seed 12 --plan-memory=none | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool --atol=1e-4 | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse | wrapper-run - --verify --print=false --seed 33 | FileCheck %s
// CHECK: output #0 vs interpreter: {{.*}}: ok
// An MLP block: linear + bias + gelu + linear + bias.
func.func @main(%x: tensor<8x64xf32>, %w1: tensor<256x64xf32>, %b1: tensor<256xf32>, %w2: tensor<64x256xf32>, %b2: tensor<64xf32>) -> tensor<8x64xf32> {
  %h = tensor_program.linear %x, %w1 bias %b1 : (tensor<8x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<8x256xf32>
  %g = tensor_program.gelu %h : tensor<8x256xf32>
  %o = tensor_program.linear %g, %w2 bias %b2 : (tensor<8x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  return %o : tensor<8x64xf32>
}
