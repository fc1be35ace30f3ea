// RUN: wrapper-opt %s --tensor-program-decompose --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-decompose="activations=false linear=false" --split-input-file | FileCheck %s --check-prefix=KEEP

// Tests that softmax becomes the max-subtracted form, scaled by the
// reciprocal of the row sum (one division per row).
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[ONE:.*]] = tensor_program.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[M:.*]] = tensor_program.reduce_max %[[X]] dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK: %[[C:.*]] = tensor_program.sub %[[X]], %[[M]]
// CHECK: %[[E:.*]] = tensor_program.exp %[[C]]
// CHECK: %[[S:.*]] = tensor_program.reduce_sum %[[E]] dims [1] keepdim
// CHECK: %[[INV:.*]] = tensor_program.div %[[ONE]], %[[S]] : (tensor<f32>, tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK: %[[R:.*]] = tensor_program.mul %[[E]], %[[INV]]
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.softmax %x dim 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that log_softmax subtracts the log of the sum from the centred input.
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[M:.*]] = tensor_program.reduce_max %{{.*}} dims [0] keepdim
// CHECK: %[[C:.*]] = tensor_program.sub %{{.*}}, %[[M]]
// CHECK: %[[E:.*]] = tensor_program.exp %[[C]]
// CHECK: %[[S:.*]] = tensor_program.reduce_sum %[[E]] dims [0] keepdim
// CHECK: %[[L:.*]] = tensor_program.log %[[S]]
// CHECK: tensor_program.sub %[[C]], %[[L]]
func.func @log_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.log_softmax %x dim 0 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that layer_norm over static dimensions uses sums divided by the
// element count, the biased variance, rsqrt(var + eps), weight and bias.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[N:.*]] = tensor_program.constant dense<3.200000e+01> : tensor<f32>
// CHECK-DAG: %[[EPS:.*]] = tensor_program.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: %[[SUM:.*]] = tensor_program.reduce_sum %[[X]] dims [1, 2] keepdim : tensor<2x4x8xf32> -> tensor<2x1x1xf32>
// CHECK: %[[MEAN:.*]] = tensor_program.div %[[SUM]], %[[N]]
// CHECK: %[[XC:.*]] = tensor_program.sub %[[X]], %[[MEAN]]
// CHECK: %[[SQ:.*]] = tensor_program.mul %[[XC]], %[[XC]]
// CHECK: tensor_program.reduce_sum %[[SQ]] dims [1, 2] keepdim
// CHECK: tensor_program.add %{{.*}}, %[[EPS]]
// CHECK: tensor_program.rsqrt
// CHECK: %[[Y:.*]] = tensor_program.mul %[[XC]], %{{.*}}
// CHECK: %[[YW:.*]] = tensor_program.mul %[[Y]], %[[W]]
// CHECK: tensor_program.add %[[YW]], %[[B]]
func.func @layer_norm(%x: tensor<2x4x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = tensor_program.layer_norm %x weight %w bias %b normalized_rank 2 eps 1.0e-05
      : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// Tests that a mean over a dynamic dimension stays a reduce_mean.
// CHECK-LABEL: func.func @dynamic_mean
// CHECK: tensor_program.reduce_mean %{{.*}} dims [0]
func.func @dynamic_mean(%x: tensor<?x8xf32>) -> tensor<8xf32> {
  %0 = tensor_program.reduce_mean %x dims [0] : tensor<?x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that rms_norm scales by rsqrt(mean(x^2) + eps) and the weight.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8xf32>)
// CHECK: %[[SQ:.*]] = tensor_program.mul %[[X]], %[[X]]
// CHECK: tensor_program.reduce_sum %[[SQ]] dims [1] keepdim
// CHECK: tensor_program.rsqrt
// CHECK: %[[Y:.*]] = tensor_program.mul %[[X]], %{{.*}}
// CHECK: tensor_program.mul %[[Y]], %[[W]]
func.func @rms_norm(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.rms_norm %x weight %w eps 1.0e-06 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that silu and both gelus expand, and nothing expands with
// activations=false.
// CHECK-LABEL: func.func @activations
// CHECK: %[[SIG:.*]] = tensor_program.sigmoid %[[X:.*]] : tensor<8xf32>
// CHECK: tensor_program.mul %[[X]], %[[SIG]]
// CHECK: tensor_program.tanh
// CHECK: tensor_program.erf
// CHECK-NOT: tensor_program.gelu
// KEEP-LABEL: func.func @activations
// KEEP: tensor_program.silu
// KEEP: tensor_program.gelu %{{.*}} approximate tanh
func.func @activations(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = tensor_program.silu %x : tensor<8xf32>
  %1 = tensor_program.gelu %x approximate tanh : tensor<8xf32>
  %2 = tensor_program.gelu %x : tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests that linear becomes matmul with the transposed weight plus the bias,
// and a rank-1 input is computed as one row.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[V:.*]]: tensor<8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: %[[WT:.*]] = tensor_program.permute %[[W]] [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK: %[[MM:.*]] = tensor_program.matmul %[[X]], %[[WT]] : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
// CHECK: tensor_program.add %[[MM]], %[[B]]
// CHECK: %[[ROW:.*]] = tensor_program.reshape %[[V]] : tensor<8xf32> -> tensor<1x8xf32>
// CHECK: %[[P:.*]] = tensor_program.matmul %[[ROW]], %{{.*}} : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
// CHECK: tensor_program.reshape %[[P]] : tensor<1x16xf32> -> tensor<16xf32>
// KEEP-LABEL: func.func @linear
// KEEP-COUNT-2: tensor_program.linear
func.func @linear(%x: tensor<?x8xf32>, %v: tensor<8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> (tensor<?x16xf32>, tensor<16xf32>) {
  %0 = tensor_program.linear %x, %w bias %b : (tensor<?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  %1 = tensor_program.linear %v, %w : (tensor<8xf32>, tensor<16x8xf32>) -> tensor<16xf32>
  return %0, %1 : tensor<?x16xf32>, tensor<16xf32>
}

// -----

// Tests that composites inside fused regions are decomposed too.
// CHECK-LABEL: func.func @inside_fused
// CHECK: tensor_program.fused reduction
// CHECK-NOT: tensor_program.softmax
// CHECK: tensor_program.reduce_max
func.func @inside_fused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tensor_program.fused"(%x) <{kind = 1 : i32}> ({
  ^bb0(%a: tensor<4xf32>):
    %s = tensor_program.reduce_max %a dims [0] keepdim : tensor<4xf32> -> tensor<1xf32>
    %t = tensor_program.sub %a, %s : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    tensor_program.yield %t : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
