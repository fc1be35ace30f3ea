// RUN: wrapper-opt %s --tensor-program-decompose=report --verify-diagnostics -o /dev/null

// Tests the report of --tensor-program-decompose: softmax, and layer_norm
// with the two means it creates, count 4 expansions.
// expected-remark @below {{decomposed 4 composite ops}}
module {
  func.func @f(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %0 = tensor_program.softmax %x dim 1 : tensor<4x8xf32>
    %1 = tensor_program.layer_norm %x normalized_rank 1 eps 1.0e-05 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
  }
}
