// RUN: wrapper-opt %s --wrapper-cuda-pipeline --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --wrapper-cuda-pipeline="row-block-size=64 vectorize=false" --split-input-file | FileCheck %s --check-prefix=SCALAR
// The PTX of each row-kernel kind (checked without a GPU).

// Softmax over rows of 1024 f32: one kernel, one block per row of 64
// threads (1024 / 4 lanes / 4 vectors per thread); each thread loads its
// four 128-bit vectors of the row once (kept in registers for all three
// passes), the block combines max and sum with warp shuffles plus a
// shared-memory step and barriers, and stores 128-bit vectors.
// CHECK-LABEL: gpu.binary @softmax_kernel
// CHECK-SAME: .maxntid 64, 1, 1
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: ld.global.v4.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: st.global.v4.b32
// Scalar accesses and row loops when asked (vectorize=false), with the
// requested block size.
// SCALAR-LABEL: gpu.binary @softmax_kernel
// SCALAR-SAME: .maxntid 64, 1, 1
// SCALAR-NOT: ld.global.v4
// SCALAR-SAME: shfl.sync.bfly.b32
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %0 = tensor_program.softmax %x dim 1 : tensor<?x1024xf32>
  return %0 : tensor<?x1024xf32>
}

// -----

// layer_norm: x - mean is recomputed in the variance and the normalization
// (no temporary), so the one kernel reads x, weight and bias once each.
// CHECK-LABEL: gpu.binary @layer_norm_kernel
// CHECK-COUNT-12: ld.global.v4.b32
// CHECK-NOT: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32
func.func @layer_norm(%x: tensor<8x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<8x1024xf32> {
  %0 = tensor_program.layer_norm %x weight %w bias %b normalized_rank 1 eps 1.0e-05
      : (tensor<8x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<8x1024xf32>
  return %0 : tensor<8x1024xf32>
}

// -----

// Rows of 1001 elements are not 128-bit aligned: scalar accesses in a loop
// over the row.
// CHECK-LABEL: gpu.binary @rows_1001_kernel
// CHECK-NOT: ld.global.v4
// CHECK-SAME: shfl.sync.bfly.b32
func.func @rows_1001(%x: tensor<4x1001xf32>) -> tensor<4x1xf32> {
  %0 = tensor_program.reduce_sum %x dims [1] keepdim : tensor<4x1001xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// A reduction of a whole vector is one row: one block.
// CHECK-LABEL: llvm.func @vector_sum
// CHECK: gpu.launch_func {{.*}} blocks in (%[[ONE:.*]], %[[ONE]], %[[ONE]])
// CHECK-LABEL: gpu.binary @vector_sum_kernel
// CHECK-SAME: shfl.sync.bfly.b32
func.func @vector_sum(%x: tensor<4096xf32>) -> tensor<f32> {
  %0 = tensor_program.reduce_sum %x dims [0] : tensor<4096xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
