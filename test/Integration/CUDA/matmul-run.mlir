// REQUIRES: cuda-runtime
// RUN: wrapper-run %s --target=cuda --entry=linear --verify --print=false --seed 4 --dynamic-size 37 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --target=cuda --entry=attention --verify --print=false --seed 5 | FileCheck %s --check-prefix=ONE
// RUN: wrapper-run %s --target=cuda --entry=linear --benchmark 3 --dynamic-size 64 | FileCheck %s --check-prefix=STATS
// Matrix products through cuBLAS on the GPU, compared with the reference
// interpreter: a linear layer with a dynamic batch, bias and relu; bf16
// attention scores, softmax and the weighted sum (two batched products).
// ONE: output #0 vs interpreter: {{.*}}: ok
// STATS: mean {{.*}} ms
func.func @linear(%x: tensor<?x256xf32>, %w: tensor<256x96xf32>, %b: tensor<96xf32>) -> tensor<?x96xf32> {
  %0 = tensor_program.matmul %x, %w : (tensor<?x256xf32>, tensor<256x96xf32>) -> tensor<?x96xf32>
  %1 = tensor_program.add %0, %b : (tensor<?x96xf32>, tensor<96xf32>) -> tensor<?x96xf32>
  %2 = tensor_program.relu %1 : tensor<?x96xf32>
  return %2 : tensor<?x96xf32>
}
func.func @attention(%q: tensor<4x64x32xbf16>, %kt: tensor<4x32x64xbf16>, %v: tensor<4x64x32xbf16>) -> tensor<4x64x32xbf16> {
  %s = tensor_program.batch_matmul %q, %kt : (tensor<4x64x32xbf16>, tensor<4x32x64xbf16>) -> tensor<4x64x64xbf16>
  %p = tensor_program.softmax %s dim 2 : tensor<4x64x64xbf16>
  %o = tensor_program.batch_matmul %p, %v : (tensor<4x64x64xbf16>, tensor<4x64x32xbf16>) -> tensor<4x64x32xbf16>
  return %o : tensor<4x64x32xbf16>
}
