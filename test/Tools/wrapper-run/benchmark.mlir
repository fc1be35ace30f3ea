// RUN: wrapper-run %s --benchmark=3 | FileCheck %s
// RUN: wrapper-run %s --entry=rows --dynamic-size=10 --benchmark=2 | FileCheck %s --check-prefix=DYN

// Tests that --benchmark reports run times and a per-kernel breakdown with
// the bytes each kernel's calls pass (the format and the bytes only: timings
// are never asserted). The matmul passes x, w and its 64x64 result
// (3 * 16384 bytes), the row sum its input and 64 floats.
// CHECK: benchmark: 3 runs, min {{[0-9.]+}} ms, median {{[0-9.]+}} ms
// CHECK-NEXT: kernel main_kernel_0: {{[0-9.]+}} ms per run ({{[0-9.]+}}%), 1 calls per run, 49152 bytes per run ({{[0-9.]+}} GB/s)
// CHECK-NEXT: kernel main_kernel_1: {{[0-9.]+}} ms per run ({{[0-9.]+}}%), 1 calls per run, 16640 bytes per run ({{[0-9.]+}} GB/s)
// CHECK-NEXT: kernels moved 65792 bytes per run
// CHECK-NOT: kernel
func.func @main(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64xf32> {
  %m = tensor_program.matmul %x, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = tensor_program.reduce_sum %m dims [1] : tensor<64x64xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// Dynamic sizes count at run time: 10 rows of 32 f16 in, 10 f16 out.
// DYN: kernel rows_kernel_0: {{.*}}, 1 calls per run, 660 bytes per run
// DYN-NEXT: kernels moved 660 bytes per run
func.func @rows(%x: tensor<?x32xf16>) -> tensor<?xf16> {
  %s = tensor_program.reduce_sum %x dims [1] : tensor<?x32xf16> -> tensor<?xf16>
  return %s : tensor<?xf16>
}
