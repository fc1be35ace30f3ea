// RUN: wrapper-run %s --verify --print=false --seed 13 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 77 --tile-elements=5 --plan-memory=pool | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose --tensor-program-fuse | wrapper-run - --verify --print=false --seed 34 | FileCheck %s
// CHECK: output #0 vs interpreter: {{.*}}: ok
// Scaled dot-product attention over 2 heads: softmax(q k^T / sqrt(d)) v.
func.func @main(%q: tensor<2x16x32xf32>, %k: tensor<2x16x32xf32>, %v: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %kt = tensor_program.permute %k [0, 2, 1] : tensor<2x16x32xf32> -> tensor<2x32x16xf32>
  %s = tensor_program.matmul %q, %kt : (tensor<2x16x32xf32>, tensor<2x32x16xf32>) -> tensor<2x16x16xf32>
  %scale = tensor_program.constant dense<0.17677669529663687> : tensor<f32>
  %ss = tensor_program.mul %s, %scale : (tensor<2x16x16xf32>, tensor<f32>) -> tensor<2x16x16xf32>
  %p = tensor_program.softmax %ss dim 2 : tensor<2x16x16xf32>
  %o = tensor_program.batch_matmul %p, %v : (tensor<2x16x16xf32>, tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  return %o : tensor<2x16x32xf32>
}
