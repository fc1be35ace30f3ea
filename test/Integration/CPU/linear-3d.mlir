// RUN: wrapper-opt %s --wrapper-cpu-pipeline | FileCheck %s --check-prefix=IR
// RUN: wrapper-run %s --verify --print=false --seed 3 --dynamic-size 5 | FileCheck %s
// RUN: wrapper-run %s --verify --print=false --seed 4 --dynamic-size 1 --gemm=false | FileCheck %s
// CHECK-COUNT-2: vs interpreter: {{.*}}: ok
// A linear layer and a matmul on [batch, tokens, features] (a transformer's
// projections): the batch and token dimensions fold into the GEMM's rows,
// so both products run on the GEMM template's micro-kernel; a 4-d product
// of two batched operands runs on the template too, one 2-d product per
// batch element (--wrapper-specialize-contractions), each of 5 rows: the
// small-M path, its accumulators in vector registers, no micro-kernel.
// (Kernel 0's product reads the weight's transpose in place.)
// IR-LABEL: llvm.func @main_kernel_0_impl(
// IR: llvm.call @__wrapper_gemm_ukernel_f32
// IR-LABEL: llvm.func @main_kernel_1_impl(
// IR: llvm.call @__wrapper_gemm_ukernel_f32
// IR-LABEL: llvm.func @main_kernel_2_impl(
// IR-NOT: llvm.call @__wrapper_gemm_ukernel_f32
// IR: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// IR-NOT: llvm.call @__wrapper_gemm_ukernel_f32
// IR: llvm.func @__wrapper_gemm_ukernel_f32
func.func @main(%x: tensor<?x7x48xf32>, %w: tensor<40x48xf32>, %b: tensor<40xf32>,
                %m: tensor<40x24xf32>, %q: tensor<2x3x5x8xf32>, %k: tensor<2x3x8x5xf32>)
    -> (tensor<?x7x40xf32>, tensor<?x7x24xf32>, tensor<2x3x5x5xf32>) {
  %h = tensor_program.linear %x, %w bias %b : (tensor<?x7x48xf32>, tensor<40x48xf32>, tensor<40xf32>) -> tensor<?x7x40xf32>
  %g = tensor_program.gelu %h : tensor<?x7x40xf32>
  %p = tensor_program.matmul %g, %m : (tensor<?x7x40xf32>, tensor<40x24xf32>) -> tensor<?x7x24xf32>
  %s = tensor_program.matmul %q, %k : (tensor<2x3x5x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x5x5xf32>
  return %g, %p, %s : tensor<?x7x40xf32>, tensor<?x7x24xf32>, tensor<2x3x5x5xf32>
}
