// Checked by scripts/test.sh:
//   downstream-opt %s --tensor-program-fuse=strategy=first-two | FileCheck %s
// The downstream strategy groups the first two ops; the third is alone.

// CHECK-LABEL: func.func @program
// CHECK: tensor_program.fused pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor_program.add
// CHECK-NEXT: tensor_program.relu
// CHECK: tensor_program.fused pointwise
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor_program.exp
func.func @program(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = tensor_program.relu %0 : tensor<4x8xf32>
  %2 = tensor_program.exp %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
