// RUN: wrapper-opt %s --tensor-program-split-weight-prep --split-input-file --verify-diagnostics | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-split-weight-prep="max-elements=100" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=SMALL

// Tests that a weight's transpose moves into @main_prepare, whose result
// @main takes as a new last argument; the weight argument nothing else
// reads goes, the bias (read by @main itself) stays.

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:.*]]: tensor<?x64xf32>, %[[B:.*]]: tensor<256xf32> {tensor_program.weight}, %[[T:.*]]: tensor<64x256xf32> {tensor_program.prepared = 0 : i64})
// CHECK-NEXT: %[[Y:.*]] = tensor_program.matmul %[[X]], %[[T]]
// CHECK-NEXT: tensor_program.add %[[Y]], %[[B]]
// CHECK-LABEL: func.func @main_prepare(
// CHECK-SAME: %[[W:.*]]: tensor<256x64xf32> {tensor_program.name = "fc.weight", tensor_program.weight}) -> tensor<64x256xf32>
// CHECK-NEXT: %[[P:.*]] = tensor_program.permute %[[W]] [1, 0]
// CHECK-NEXT: return %[[P]]
// SMALL-LABEL: func.func @main(
// SMALL-SAME: %{{.*}}: tensor<256x64xf32> {tensor_program.name = "fc.weight", tensor_program.weight}
// SMALL-NOT: @main_prepare
func.func @main(%x: tensor<?x64xf32>, %w: tensor<256x64xf32> {tensor_program.weight, tensor_program.name = "fc.weight"}, %b: tensor<256xf32> {tensor_program.weight}) -> tensor<?x256xf32> {
  %t = tensor_program.permute %w [1, 0] : tensor<256x64xf32> -> tensor<64x256xf32>
  %y = tensor_program.matmul %x, %t : (tensor<?x64xf32>, tensor<64x256xf32>) -> tensor<?x256xf32>
  %z = tensor_program.add %y, %b : (tensor<?x256xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  return %z : tensor<?x256xf32>
}

// -----

// Tests a chain with a constant (batch norm's scale from its weight and
// variance): the chain's last value is prepared, its intermediate values
// and the constant only it reads are not; a weight read both by the chain
// and by @main itself stays an argument of both; the constant that @main
// also reads is cloned and kept.

// SMALL-LABEL: func.func @main(
// SMALL: func.func @main_prepare(
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[X:.*]]: tensor<4x3xf32>, %[[G:.*]]: tensor<3xf32> {tensor_program.weight}, %[[S:.*]]: tensor<3xf32> {tensor_program.prepared = 0 : i64})
// CHECK-NEXT: %[[C:.*]] = tensor_program.constant dense<2.000000e+00>
// CHECK-NEXT: %[[M:.*]] = tensor_program.mul %[[X]], %[[S]]
// CHECK-NEXT: %[[A:.*]] = tensor_program.add %[[M]], %[[G]]
// CHECK-NEXT: tensor_program.mul %[[A]], %[[C]]
// CHECK-LABEL: func.func @main_prepare(
// CHECK-SAME: %[[G2:.*]]: tensor<3xf32> {tensor_program.weight}, %[[V:.*]]: tensor<3xf32> {tensor_program.weight}) -> tensor<3xf32>
// CHECK-DAG: tensor_program.constant dense<9.99999974E-6>
// CHECK-DAG: tensor_program.constant dense<2.000000e+00>
// CHECK: tensor_program.rsqrt
// CHECK: %[[R:.*]] = tensor_program.mul %[[G2]]
// CHECK: return %[[R]]
func.func @main(%x: tensor<4x3xf32>, %g: tensor<3xf32> {tensor_program.weight}, %v: tensor<3xf32> {tensor_program.weight}) -> tensor<4x3xf32> {
  %eps = tensor_program.constant dense<1.0e-05> : tensor<3xf32>
  %two = tensor_program.constant dense<2.0> : tensor<3xf32>
  %ve = tensor_program.add %v, %eps : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %vt = tensor_program.mul %ve, %two : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %r = tensor_program.rsqrt %vt : tensor<3xf32>
  %s = tensor_program.mul %g, %r : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %m = tensor_program.mul %x, %s : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %a = tensor_program.add %m, %g : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %o = tensor_program.mul %a, %two : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

// -----

// Tests that nothing moves without weight arguments, nor from ops that also
// read a non-weight value.

// CHECK-LABEL: func.func @plain(
// CHECK-NOT: tensor_program.prepared
// CHECK: tensor_program.permute
// CHECK-NOT: @plain_prepare
func.func @plain(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %t = tensor_program.permute %w [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %y = tensor_program.add %x, %t : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{several public functions: name the one to split with the entry option}}
module {
  func.func @a(%w: tensor<4xf32> {tensor_program.weight}) -> tensor<4xf32> {
    return %w : tensor<4xf32>
  }
  func.func @b(%w: tensor<4xf32> {tensor_program.weight}) -> tensor<4xf32> {
    return %w : tensor<4xf32>
  }
}

// -----

func.func private @main_prepare()
// expected-error @+1 {{cannot split the weight computation: @main_prepare exists already}}
func.func @main(%w: tensor<4xf32> {tensor_program.weight}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}
