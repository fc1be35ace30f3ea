// RUN: wrapper-run %s --verify --print=false --seed 5 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 6 --parallel=false | FileCheck %s
// RUN: wrapper-compile %s --gemm-options="report=true" -o %t.so 2>&1 | FileCheck %s --check-prefix=REMARK
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
//
// A product whose consumer selects with a boolean mask (relu's backward:
// where(mask, 0, grad @ w)). The GEMM template does not fuse a consumer that
// reads or writes i1 buffers: its masked vector loads would read the
// bytes of the mask as packed bits (this gave wrong gradients).
// REMARK: epilogue none (the next op reads or writes a buffer of sub-byte elements (i1))
func.func @main(%a: tensor<5x4xf32>, %b: tensor<4x16xf32>, %m: tensor<5x16xi1>) -> (tensor<5x16xf32>, tensor<16x5xf32>) {
  %p = tensor_program.matmul %a, %b : (tensor<5x4xf32>, tensor<4x16xf32>) -> tensor<5x16xf32>
  %z = tensor_program.constant dense<0.0> : tensor<f32>
  %w = tensor_program.where %m, %z, %p : (tensor<5x16xi1>, tensor<f32>, tensor<5x16xf32>) -> tensor<5x16xf32>
  %p2 = tensor_program.matmul %a, %b : (tensor<5x4xf32>, tensor<4x16xf32>) -> tensor<5x16xf32>
  %w2 = tensor_program.where %m, %z, %p2 : (tensor<5x16xi1>, tensor<f32>, tensor<5x16xf32>) -> tensor<5x16xf32>
  %t = tensor_program.permute %w2 [1, 0] : tensor<5x16xf32> -> tensor<16x5xf32>
  return %w, %t : tensor<5x16xf32>, tensor<16x5xf32>
}
