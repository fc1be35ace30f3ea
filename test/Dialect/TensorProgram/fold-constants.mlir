// RUN: wrapper-opt %s --tensor-program-fold-constants --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-fold-constants="report=true" --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: wrapper-opt %s --tensor-program-fold-constants="max-elements=3" --split-input-file | FileCheck %s --check-prefix=SMALL

// Tests that a weight transpose and the arithmetic on constants are
// computed at compile time, and that ops on arguments stay.
// REPORT: remark: tensor-program-fold-constants: folded 3 ops
// CHECK-LABEL: func.func @weights
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>)
// CHECK-DAG: %[[W:.*]] = tensor_program.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.*]] = tensor_program.constant dense<[2.000000e+00, -6.000000e+00]> : tensor<2xf32>
// CHECK: %[[M:.*]] = tensor_program.matmul %[[X]], %[[W]]
// CHECK: %[[R:.*]] = tensor_program.add %[[M]], %[[B]]
// CHECK: return %[[R]]
// SMALL-LABEL: func.func @weights
// SMALL: tensor_program.permute
// SMALL-NOT: tensor_program.mul
func.func @weights(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = tensor_program.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %t = tensor_program.permute %w [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  %b = tensor_program.constant dense<[0.5, -1.5]> : tensor<2xf32>
  %two = tensor_program.constant dense<2.0> : tensor<f32>
  %b2 = tensor_program.mul %b, %two : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %b3 = tensor_program.add %b2, %b2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %m = tensor_program.matmul %x, %t : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = tensor_program.add %m, %b3 : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Tests that composites, reductions and casts of constants fold whole, that
// ops with a non-constant operand stay, and that a result above
// max-elements stays (SMALL).
// CHECK-LABEL: func.func @kinds
// CHECK-DAG: tensor_program.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf16>
// CHECK-DAG: tensor_program.constant dense<4> : tensor<i32>
// CHECK-DAG: tensor_program.constant dense<5.000000e-01> : tensor<1x2xf32>
// CHECK: tensor_program.add %{{.*}}, %{{.*}} : (tensor<2xf32>, tensor<2xf32>)
// CHECK-NOT: tensor_program.softmax
// CHECK-NOT: tensor_program.reduce_sum
// SMALL-LABEL: func.func @kinds
// SMALL: tensor_program.broadcast
func.func @kinds(%x: tensor<2xf32>) -> (tensor<2xf16>, tensor<i32>, tensor<1x2xf32>, tensor<2xf32>, tensor<4x2xf32>) {
  %a = tensor_program.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %h = tensor_program.cast %a : tensor<2xf32> to tensor<2xf16>
  %i = tensor_program.constant dense<[1, 3]> : tensor<2xi32>
  %s = tensor_program.reduce_sum %i dims [0] : tensor<2xi32> -> tensor<i32>
  %z = tensor_program.constant dense<[[3.0, 3.0]]> : tensor<1x2xf32>
  %sm = tensor_program.softmax %z dim 1 : tensor<1x2xf32>
  %y = tensor_program.add %x, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = tensor_program.broadcast %a : tensor<2xf32> -> tensor<4x2xf32>
  return %h, %s, %sm, %y, %b : tensor<2xf16>, tensor<i32>, tensor<1x2xf32>, tensor<2xf32>, tensor<4x2xf32>
}
