// RUN: wrapper-run %s --verify --print=false --seed 24 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse | wrapper-run - --verify --print=false --seed 35 | FileCheck %s
// CHECK: output #0 vs interpreter: {{.*}}: ok
// A pre-norm transformer layer (one head): x + attn(ln(x)), then + mlp(ln(.)).
func.func @main(%x: tensor<8x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>,
                %w1: tensor<64x32xf32>, %w2: tensor<32x64xf32>, %g: tensor<32xf32>) -> tensor<8x32xf32> {
  %n = tensor_program.rms_norm %x weight %g eps 1.0e-06 : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %q = tensor_program.linear %n, %wq : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
  %k = tensor_program.linear %n, %wk : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
  %v = tensor_program.linear %n, %wv : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
  %kt = tensor_program.permute %k [1, 0] : tensor<8x32xf32> -> tensor<32x8xf32>
  %s = tensor_program.matmul %q, %kt : (tensor<8x32xf32>, tensor<32x8xf32>) -> tensor<8x8xf32>
  %c = tensor_program.constant dense<0.1767767> : tensor<f32>
  %ss = tensor_program.mul %s, %c : (tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32>
  %p = tensor_program.softmax %ss dim 1 : tensor<8x8xf32>
  %a = tensor_program.matmul %p, %v : (tensor<8x8xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = tensor_program.add %x, %a : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  %n2 = tensor_program.layer_norm %h normalized_rank 1 eps 1.0e-05 : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %u = tensor_program.linear %n2, %w1 : (tensor<8x32xf32>, tensor<64x32xf32>) -> tensor<8x64xf32>
  %act = tensor_program.silu %u : tensor<8x64xf32>
  %d = tensor_program.linear %act, %w2 : (tensor<8x64xf32>, tensor<32x64xf32>) -> tensor<8x32xf32>
  %y = tensor_program.add %h, %d : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
