// RUN: wrapper-run %s --entry=m1 --verify --print=false --seed 1 | FileCheck %s
// RUN: wrapper-run %s --entry=m3 --verify --print=false --seed 2 | FileCheck %s
// RUN: wrapper-run %s --entry=m3 --verify --print=false --seed 2 --parallel=false | FileCheck %s
// RUN: wrapper-run %s --entry=m4const --verify --print=false --seed 3 | FileCheck %s
// RUN: wrapper-run %s --entry=dyn --verify --print=false --dynamic-size=2 | FileCheck %s
// RUN: wrapper-run %s --entry=bmm --verify --print=false --seed 4 | FileCheck %s
// RUN: wrapper-run %s --entry=m1 --verify --print=false --mattr=-avx512f | FileCheck %s
// RUN: wrapper-run %s --entry=m13 --verify --print=false --seed 5 | FileCheck %s
// RUN: wrapper-run %s --entry=m13 --verify --print=false --seed 6 --mattr=-avx512f | FileCheck %s
// RUN: wrapper-run %s --entry=heads --verify --print=false --seed 7 | FileCheck %s
// RUN: wrapper-run %s --entry=heads --verify --print=false --seed 7 --num-threads=1 | FileCheck %s
// RUN: wrapper-compile %s --entry=m4const --gemm-options="report=true" -o %t.so 2>&1 | FileCheck %s --check-prefix=REMARK
// CHECK: vs interpreter: {{.*}}: ok
//
// f32 products of 16 rows or fewer (small-m-rows) take the GEMM template's
// small-M path (B read in place or from its compile-time panels,
// accumulators in registers across K in groups of rows, the epilogue on
// each block), against the reference interpreter: a bias + relu epilogue
// over 45 columns (a masked tail), 3 rows of 130 x 70, constant weights
// with a tanh epilogue, a dynamic M (the packed path), a batched product
// of single rows, 13 rows in two groups (8 and 5) with a bias epilogue,
// attention's batched 16 x 16 products, and AVX2 vectors.
// REMARK: small M (4 rows, 16 or fewer): {{.*}}; B prepacked at compile time; epilogue fused (1 payload ops)
func.func @m1(%x: tensor<1x37xf32>, %w: tensor<37x45xf32>, %bias: tensor<45xf32>) -> tensor<1x45xf32> {
  %m = tensor_program.matmul %x, %w : (tensor<1x37xf32>, tensor<37x45xf32>) -> tensor<1x45xf32>
  %bb = tensor_program.broadcast %bias : tensor<45xf32> -> tensor<1x45xf32>
  %a = tensor_program.add %m, %bb : (tensor<1x45xf32>, tensor<1x45xf32>) -> tensor<1x45xf32>
  %r = tensor_program.relu %a : tensor<1x45xf32>
  return %r : tensor<1x45xf32>
}
func.func @m3(%x: tensor<3x130xf32>, %w: tensor<130x70xf32>) -> tensor<3x70xf32> {
  %m = tensor_program.matmul %x, %w : (tensor<3x130xf32>, tensor<130x70xf32>) -> tensor<3x70xf32>
  return %m : tensor<3x70xf32>
}
func.func @m4const(%x: tensor<4x64xf32>) -> tensor<4x100xf32> {
  %w = tensor_program.iota dim 1 : tensor<64x100xf32>
  %s = tensor_program.constant dense<0.01> : tensor<64x100xf32>
  %ws = tensor_program.mul %w, %s : (tensor<64x100xf32>, tensor<64x100xf32>) -> tensor<64x100xf32>
  %m = tensor_program.matmul %x, %ws : (tensor<4x64xf32>, tensor<64x100xf32>) -> tensor<4x100xf32>
  %t = tensor_program.tanh %m : tensor<4x100xf32>
  return %t : tensor<4x100xf32>
}
func.func @dyn(%x: tensor<?x16xf32>, %w: tensor<16x20xf32>) -> tensor<?x20xf32> {
  %m = tensor_program.matmul %x, %w : (tensor<?x16xf32>, tensor<16x20xf32>) -> tensor<?x20xf32>
  return %m : tensor<?x20xf32>
}
func.func @bmm(%x: tensor<2x1x24xf32>, %w: tensor<2x24x33xf32>) -> tensor<2x1x33xf32> {
  %m = tensor_program.batch_matmul %x, %w : (tensor<2x1x24xf32>, tensor<2x24x33xf32>) -> tensor<2x1x33xf32>
  return %m : tensor<2x1x33xf32>
}
func.func @m13(%x: tensor<13x70xf32>, %w: tensor<70x45xf32>, %bias: tensor<45xf32>) -> tensor<13x45xf32> {
  %m = tensor_program.matmul %x, %w : (tensor<13x70xf32>, tensor<70x45xf32>) -> tensor<13x45xf32>
  %bb = tensor_program.broadcast %bias : tensor<45xf32> -> tensor<13x45xf32>
  %a = tensor_program.add %m, %bb : (tensor<13x45xf32>, tensor<13x45xf32>) -> tensor<13x45xf32>
  return %a : tensor<13x45xf32>
}
func.func @heads(%q: tensor<2x4x16x16xf32>, %k: tensor<2x4x16x16xf32>, %v: tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32> {
  %kt = tensor_program.permute %k [0, 1, 3, 2] : tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %s = tensor_program.matmul %q, %kt : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %p = tensor_program.softmax %s dim 3 : tensor<2x4x16x16xf32>
  %o = tensor_program.matmul %p, %v : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  return %o : tensor<2x4x16x16xf32>
}
