// RUN: wrapper-opt %s --split-input-file --wrapper-cpu-pipeline="vector-width=8" | FileCheck %s
// RUN: wrapper-opt %s --split-input-file --wrapper-cpu-pipeline="vector-width=8 vectorize=false" | FileCheck %s --check-prefix=SCALAR

// Each kernel kind reaches LLVM as vector code (issue 20: vectorization at
// the MLIR level, not left to LLVM's loop vectorizer): 16-lane f32 loads
// and stores with vector-width=8 (two AVX2 registers a step; row
// reductions 32 lanes, four registers), horizontal
// reductions once per row. With vectorize=false the kernels are scalar
// loops.

// Tests a bias + relu (elementwise, broadcast, NaN-propagating max).
// CHECK-LABEL: llvm.func @bias_relu_kernel_0_impl
// CHECK: llvm.load {{.*}} -> vector<16xf32>
// CHECK: llvm.intr.maximum({{.*}}) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK: llvm.store {{.*}} : vector<16xf32>, !llvm.ptr
// SCALAR-LABEL: llvm.func @bias_relu_kernel_0_impl
// SCALAR-NOT: vector<
// SCALAR: llvm.return
func.func @bias_relu(%x: tensor<6x40xf32>, %b: tensor<40xf32>) -> tensor<6x40xf32> {
  %s = tensor_program.add %x, %b : (tensor<6x40xf32>, tensor<40xf32>) -> tensor<6x40xf32>
  %r = tensor_program.relu %s : tensor<6x40xf32>
  return %r : tensor<6x40xf32>
}

// -----

// Tests a softmax over the last dimension of a rank-4 tensor (attention
// scores): a vector max, then exponentials and a vector sum, then a vector
// scale, each reduced horizontally once per row.
// CHECK-LABEL: llvm.func @softmax_kernel_0_impl
// CHECK: llvm.intr.vector.reduce.fmaximum({{.*}}) {{.*}} : (vector<32xf32>) -> f32
// CHECK: "llvm.intr.vector.reduce.fadd"({{.*}}) <{fastmathFlags = #llvm.fastmath<reassoc>}> : (f32, vector<32xf32>) -> f32
// CHECK: llvm.fdiv {{.*}} : vector<16xf32>
func.func @softmax(%x: tensor<2x3x37x37xf32>) -> tensor<2x3x37x37xf32> {
  %0 = tensor_program.softmax %x dim 3 : tensor<2x3x37x37xf32>
  return %0 : tensor<2x3x37x37xf32>
}

// -----

// Tests a layer norm over [B, T, C]: vector sums for the statistics and a
// vector normalization.
// CHECK-LABEL: llvm.func @layer_norm_kernel_0_impl
// CHECK: "llvm.intr.vector.reduce.fadd"({{.*}}) {{.*}} : (f32, vector<32xf32>) -> f32
// CHECK: llvm.fmul {{.*}} : vector<16xf32>
func.func @layer_norm(%x: tensor<2x5x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x5x64xf32> {
  %0 = tensor_program.layer_norm %x weight %w bias %b normalized_rank 1 eps 1.0e-05 : (tensor<2x5x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x5x64xf32>
  return %0 : tensor<2x5x64xf32>
}

// -----

// Tests a column reduction (over dimension 0): vector accumulators added
// lane by lane, no horizontal reduction.
// CHECK-LABEL: llvm.func @column_sum_kernel_0_impl
// CHECK: llvm.fadd {{.*}} : vector<16xf32>
// CHECK-NOT: llvm.intr.vector.reduce
// CHECK: llvm.return
func.func @column_sum(%x: tensor<37x48xf32>) -> tensor<48xf32> {
  %0 = tensor_program.reduce_sum %x dims [0] : tensor<37x48xf32> -> tensor<48xf32>
  return %0 : tensor<48xf32>
}

// -----

// Tests a cast to bf16: f32 vectors truncated as vectors.
// CHECK-LABEL: llvm.func @to_bf16_kernel_0_impl
// CHECK: llvm.fptrunc {{.*}} : vector<16xf32> to vector<16xbf16>
func.func @to_bf16(%x: tensor<4x64xf32>) -> tensor<4x64xbf16> {
  %0 = tensor_program.cast %x : tensor<4x64xf32> to tensor<4x64xbf16>
  return %0 : tensor<4x64xbf16>
}

// -----

// Tests a transpose: vector stores of the output's rows.
// CHECK-LABEL: llvm.func @transpose_kernel_0_impl
// CHECK: llvm.store {{.*}} : vector<16xf32>, !llvm.ptr
func.func @transpose(%x: tensor<64x48xf32>) -> tensor<48x64xf32> {
  %0 = tensor_program.permute %x [1, 0] : tensor<64x48xf32> -> tensor<48x64xf32>
  %1 = tensor_program.relu %0 : tensor<48x64xf32>
  return %1 : tensor<48x64xf32>
}
