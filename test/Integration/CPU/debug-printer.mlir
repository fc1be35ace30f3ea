// RUN: wrapper-opt %s --tensor-program-fuse="elementwise=false reductions=false" -o %t.mlir
// RUN: wrapper-run %t.mlir --debug-printer=print | FileCheck %s --check-prefix=PRINT
// RUN: wrapper-run %t.mlir --debug-printer=kernel-names --print=false | FileCheck %s --check-prefix=NAMES
// RUN: rm -rf %t && mkdir -p %t
// RUN: wrapper-run %t.mlir --debug-printer=save --debug-dir=%t --debug-kernels=main_kernel_1 --print=false | FileCheck %s --allow-empty --check-prefix=SAVE
// RUN: wrapper-run %t.mlir --compare %t/main_kernel_1_arg1_after.npy --print=false | FileCheck %s --check-prefix=COMPARE
// RUN: not wrapper-run %t.mlir --compare %t/main_kernel_1_arg0_before.npy --print=false | FileCheck %s --check-prefix=DIFFERS
// RUN: not ls %t/main_kernel_0_arg0_before.npy
// RUN: wrapper-run %s --debug-printer=print --debug-kernels=main_kernel_7 --print=false 2>&1 | FileCheck %s --check-prefix=UNMATCHED
// Tests the debug printer end to end: statistics and values printed around
// each kernel, kernel names, and .npy files saved for a selected kernel
// whose "after" file holds the program's output.
// PRINT: before main_kernel_0 arg 0: shape [4] float32 min -3 max 2 mean -0.375 std 1.84983
// PRINT-NEXT: values: -1 0.5 2 -3
// PRINT: after main_kernel_0 arg 1: shape [4] float32 min 0 max 2 mean 0.625 std 0.81968
// PRINT-NEXT: values: 0 0.5 2 0
// PRINT: before main_kernel_1 arg 0: shape [2, 2] float32 min 0 max 2 mean 0.625 std 0.81968
// PRINT-NEXT: values: 0 0.5 2 0
// PRINT: after main_kernel_1 arg 1: shape [2, 2] float32 min 0 max 4 mean 1.0625 std 1.69903
// PRINT-NEXT: values: 0 0.25 4 0
// PRINT-NEXT: output #0: f32 [2, 2] min 0 max 4 mean 1.0625
// NAMES: main_kernel_0
// NAMES-NEXT: main_kernel_1
// SAVE-NOT: {{.}}
// COMPARE: output #0 vs {{.*}}main_kernel_1_arg1_after.npy{{.*}}: ok
// DIFFERS: output #0 vs {{.*}}main_kernel_1_arg0_before.npy{{.*}}: FAIL
// UNMATCHED: warning: wrapper-insert-debug-printer: no call of 'main_kernel_7' in this module
func.func @main() -> tensor<2x2xf32> {
  %c = tensor_program.constant dense<[-1.0, 0.5, 2.0, -3.0]> : tensor<4xf32>
  %r = tensor_program.relu %c : tensor<4xf32>
  %v = tensor_program.reshape %r : tensor<4xf32> -> tensor<2x2xf32>
  %y = tensor_program.mul %v, %v : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
