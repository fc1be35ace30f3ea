// RUN: wrapper-opt %s --tensor-program-fuse=report --verify-diagnostics -o /dev/null

// Tests the report of --tensor-program-fuse: a pointwise chain (2 ops) and a
// matmul with an epilogue (2 ops) make 2 kernels holding 4 ops.
// expected-remark @below {{fused 4 ops into 2 kernels}}
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = tensor_program.exp %x : tensor<4x8xf32>
  %1 = tensor_program.neg %0 : tensor<4x8xf32>
  %2 = tensor_program.matmul %1, %w : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %3 = tensor_program.relu %2 : tensor<4x2xf32>
  return %3 : tensor<4x2xf32>
}
