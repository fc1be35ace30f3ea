// RUN: wrapper-run %s --verify --print=false --seed 3 --dynamic-size 37 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --dynamic-size 1 --parallel=false | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cpu-frontend | FileCheck %s --check-prefix=IR
// RUN: wrapper-run %s --entry=odd_rows --verify --print=false | FileCheck %s --check-prefix=ODD
// CHECK-COUNT-3: vs interpreter: {{.*}}: ok
// Rows of 35 f64: two full vector steps and a 3-lane remainder step, whose
// Philox multiplies (arith.mului_extended, two results) on vector<1x3xi32>
// once failed to translate to LLVM IR.
// ODD: output #0 vs interpreter: {{.*}}: ok
// Counter-based random numbers (Philox4x32-10) compiled and in the
// interpreter: the same bits whatever the threads and tiles, a dropout-like
// mask from them, and an f64 result of another stream.
// IR: arith.mului_extended
func.func @main(%x: tensor<?x33xf32>, %seed: tensor<i64>) -> (tensor<?x33xf32>, tensor<?x33xi1>, tensor<5x7xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x33xf32>
  %u = tensor_program.uniform %seed stream 3 [%n] : tensor<i64> -> tensor<?x33xf32>
  %p = tensor_program.full 0.75 [%n] : tensor<?x33xf32>
  %keep = tensor_program.compare lt, %u, %p : (tensor<?x33xf32>, tensor<?x33xf32>) -> tensor<?x33xi1>
  %y = tensor_program.mul %x, %u : (tensor<?x33xf32>, tensor<?x33xf32>) -> tensor<?x33xf32>
  %w = tensor_program.uniform %seed stream 4 : tensor<i64> -> tensor<5x7xf64>
  return %y, %keep, %w : tensor<?x33xf32>, tensor<?x33xi1>, tensor<5x7xf64>
}

func.func @odd_rows(%seed: tensor<i64>) -> tensor<5x35xf64> {
  %w = tensor_program.uniform %seed stream 4 : tensor<i64> -> tensor<5x35xf64>
  return %w : tensor<5x35xf64>
}
