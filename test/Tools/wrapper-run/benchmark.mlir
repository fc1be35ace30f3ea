// RUN: wrapper-run %s --benchmark=3 | FileCheck %s

// Tests that --benchmark reports run times and a per-kernel breakdown (the
// format only: timings are never asserted).
// CHECK: benchmark: 3 runs, min {{[0-9.]+}} ms, median {{[0-9.]+}} ms
// CHECK-NEXT: kernel main_kernel_0: {{[0-9.]+}} ms per run ({{[0-9.]+}}%), 1 calls per run
// CHECK-NEXT: kernel main_kernel_1: {{[0-9.]+}} ms per run ({{[0-9.]+}}%), 1 calls per run
// CHECK-NOT: kernel
func.func @main(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64xf32> {
  %m = tensor_program.matmul %x, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = tensor_program.reduce_sum %m dims [1] : tensor<64x64xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
