// Transposes lowered in square tiles (one register's lanes along both the
// loop that reads the input contiguously and the innermost loop,
// transposed in registers) against the reference interpreter: sizes with
// partial tiles on both sides, a dynamic size, a transpose fused behind an
// add over a batch (NCHW to NHWC), bf16, i64, a rank-3 permutation of f64,
// on AVX-512 and AVX2, one thread and two.
// RUN: wrapper-run %s --entry=odd --verify --print=false --seed 1 | FileCheck %s
// RUN: wrapper-run %s --entry=odd --verify --print=false --seed 1 --mattr=-avx512f | FileCheck %s
// RUN: wrapper-run %s --entry=odd --verify --print=false --seed 1 --parallel=false | FileCheck %s
// RUN: wrapper-run %s --entry=dyn --verify --print=false --seed 2 --dynamic-size=45 | FileCheck %s
// RUN: wrapper-run %s --entry=dyn --verify --print=false --seed 2 --dynamic-size=3 | FileCheck %s
// RUN: wrapper-run %s --entry=nchw --verify --print=false --seed 3 | FileCheck %s
// RUN: wrapper-run %s --entry=bf --verify --print=false --seed 4 | FileCheck %s
// RUN: wrapper-run %s --entry=i64 --verify --print=false --seed 5 | FileCheck %s
// RUN: wrapper-run %s --entry=f64 --verify --print=false --seed 6 | FileCheck %s
// CHECK: vs interpreter: {{.*}}: ok
func.func @odd(%w: tensor<1000x515xf32>) -> tensor<515x1000xf32> {
  %t = tensor_program.permute %w [1, 0] : tensor<1000x515xf32> -> tensor<515x1000xf32>
  return %t : tensor<515x1000xf32>
}
func.func @dyn(%w: tensor<?x77xf32>) -> tensor<77x?xf32> {
  %t = tensor_program.permute %w [1, 0] : tensor<?x77xf32> -> tensor<77x?xf32>
  return %t : tensor<77x?xf32>
}
func.func @nchw(%x: tensor<2x37x50xf32>, %y: tensor<2x37x50xf32>) -> tensor<2x50x37xf32> {
  %a = tensor_program.add %x, %y : (tensor<2x37x50xf32>, tensor<2x37x50xf32>) -> tensor<2x37x50xf32>
  %t = tensor_program.permute %a [0, 2, 1] : tensor<2x37x50xf32> -> tensor<2x50x37xf32>
  return %t : tensor<2x50x37xf32>
}
func.func @bf(%w: tensor<70x90xbf16>) -> tensor<90x70xbf16> {
  %t = tensor_program.permute %w [1, 0] : tensor<70x90xbf16> -> tensor<90x70xbf16>
  return %t : tensor<90x70xbf16>
}
func.func @i64(%w: tensor<33x40xi64>) -> tensor<40x33xi64> {
  %t = tensor_program.permute %w [1, 0] : tensor<33x40xi64> -> tensor<40x33xi64>
  return %t : tensor<40x33xi64>
}
func.func @f64(%w: tensor<3x20x17xf64>) -> tensor<17x3x20xf64> {
  %t = tensor_program.permute %w [2, 0, 1] : tensor<3x20x17xf64> -> tensor<17x3x20xf64>
  return %t : tensor<17x3x20xf64>
}
