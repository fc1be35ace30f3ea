// RUN: wrapper-opt %s --convert-tensor-program-to-linalg --split-input-file | FileCheck %s --implicit-check-not=tensor_program.

// Tests that broadcasting becomes indexing maps: a size-1 dimension reads
// index 0, a missing leading dimension is dropped.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast_add
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: arith.addf
func.func @broadcast_add(%a: tensor<4x1xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.add %a, %b : (tensor<4x1xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that a dynamic result dimension takes its size from the operand
// that has it.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x8xf32>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %[[C0]]
// CHECK: tensor.empty(%[[D]]) : tensor<?x8xf32>
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = tensor_program.mul %a, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Tests that f16 arithmetic is done in f32 and rounded once.
// CHECK-LABEL: func.func @half
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[T:.*]] = math.tanh %[[W]] : f32
// CHECK: %[[N:.*]] = arith.truncf %[[T]] : f32 to f16
// CHECK: linalg.yield %[[N]] : f16
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = tensor_program.tanh %x : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Tests the payloads of comparisons, selection, casts and activations.
// CHECK-LABEL: func.func @payloads
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.maximumf
// CHECK: math.erf
// CHECK: arith.cmpi sge
// CHECK: arith.cmpf une
func.func @payloads(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>) {
  %c = tensor_program.compare lt, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %w = tensor_program.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = tensor_program.cast %a : tensor<4xf32> to tensor<4xi32>
  %r = tensor_program.relu %a : tensor<4xf32>
  %g = tensor_program.gelu %a : tensor<4xf32>
  %k = tensor_program.compare ge, %i, %t : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %z = tensor_program.cast %a : tensor<4xf32> to tensor<4xi1>
  return %w, %t, %r, %g, %k, %z : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Tests constants and full.
// CHECK-LABEL: func.func @creation
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: %[[V:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<?xf32>)
func.func @creation(%n: index) -> (tensor<2xf32>, tensor<?xf32>) {
  %0 = tensor_program.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = tensor_program.full 0.5 [%n] : tensor<?xf32>
  return %0, %1 : tensor<2xf32>, tensor<?xf32>
}

// -----

// Tests that a fused region is inlined and lowered.
// CHECK-LABEL: func.func @fused
// CHECK: arith.addf
// CHECK: arith.maximumf
func.func @fused(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor_program.fused pointwise (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %s = tensor_program.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = tensor_program.relu %s : tensor<4xf32>
    tensor_program.yield %r : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
