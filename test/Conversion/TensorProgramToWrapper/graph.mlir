// RUN: wrapper-opt %s --tensor-program-fuse --convert-tensor-program-to-wrapper --split-input-file | FileCheck %s

// Tests that fused groups become kernels on buffers and the function a host
// graph: comment, allocation, call, free after the last use.
// CHECK-LABEL: wrapper.graph @mlp
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32>, %[[W:.*]]: memref<8x16xf32>) -> memref<4x16xf32>
// CHECK: wrapper.comment "Source nodes: exp, neg"
// CHECK: %[[T:.*]] = wrapper.alloc() : memref<4x8xf32>
// CHECK: wrapper.call @mlp_kernel_0(%[[X]], %[[T]]) : memref<4x8xf32>, memref<4x8xf32>
// CHECK: wrapper.comment "Source nodes: matmul, relu"
// CHECK: %[[O:.*]] = wrapper.alloc() : memref<4x16xf32>
// CHECK: wrapper.call @mlp_kernel_1(%[[T]], %[[W]], %[[O]])
// CHECK: wrapper.free %[[T]] : memref<4x8xf32>
// CHECK: wrapper.return %[[O]] : memref<4x16xf32>
// CHECK: func.func private @mlp_kernel_0_impl(%[[IN:.*]]: memref<4x8xf32>, %[[OUT:.*]]: memref<4x8xf32>)
// CHECK: bufferization.to_tensor %[[IN]] restrict : memref<4x8xf32> to tensor<4x8xf32>
// CHECK: linalg.generic
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[OUT]]
// CHECK: wrapper.kernel @mlp_kernel_0 = @mlp_kernel_0_impl metadata {kind = "pointwise", source_ops = ["exp", "neg"]}
// CHECK: func.func private @mlp_kernel_1_impl
// CHECK: linalg.matmul
// CHECK: wrapper.kernel @mlp_kernel_1 = @mlp_kernel_1_impl metadata {kind = "matmul", source_ops = ["matmul", "relu"]}
func.func @mlp(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = tensor_program.exp %x : tensor<4x8xf32>
  %1 = tensor_program.neg %0 : tensor<4x8xf32>
  %2 = tensor_program.matmul %1, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %3 = tensor_program.relu %2 : tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}

// -----

// Tests that a dynamic output size is read from the input it derives from.
// CHECK-LABEL: wrapper.graph @dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?x8xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[N:.*]] = memref.dim %[[X]], %[[C0]] : memref<?x8xf32>
// CHECK: %[[O:.*]] = wrapper.alloc(%[[N]]) : memref<?x4xf32>
// CHECK: wrapper.call @dynamic_kernel_0(%[[X]], %[[O]])
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x4xf32> {
  %0 = tensor_program.slice %x dim 1 start 0 end 4 : tensor<?x8xf32> -> tensor<?x4xf32>
  %1 = tensor_program.exp %0 : tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// Tests that a returned argument is declared an alias, a non-splat constant
// becomes a wrapper.constant (copied before it is returned), and copy_back
// of an elementwise update makes the kernel write into the argument, which
// is marked mutated (copy-back.mlir has the cases that copy).
// CHECK: wrapper.graph @signature(%[[S:.*]]: memref<4xf32> {wrapper.mutated}, %[[D:.*]]: memref<4xf32>)
// CHECK-SAME: -> (memref<4xf32> {wrapper.alias_of = 1 : i64}, memref<2xf32>)
// CHECK: %[[C:.*]] = wrapper.get_constant @signature_constant_0 : memref<2xf32>
// CHECK: wrapper.call @signature_kernel_0(%[[S]], %[[D]], %[[S]]) :
// CHECK: %[[FRESH:.*]] = wrapper.alloc() : memref<2xf32>
// CHECK: wrapper.call @signature_copy_1(%[[C]], %[[FRESH]])
// CHECK: wrapper.return %[[D]], %[[FRESH]]
// CHECK: wrapper.constant @signature_constant_0 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK: func.func private @signature_copy_1_impl
// CHECK: memref.copy
func.func @signature(%state: tensor<4xf32>, %delta: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %c = tensor_program.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = tensor_program.add %state, %delta : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  tensor_program.copy_back %0 to %state : tensor<4xf32>
  return %delta, %c : tensor<4xf32>, tensor<2xf32>
}

// -----

// Tests that a function with a scalar argument is not a graph: it is left
// for --convert-tensor-program-to-linalg.
// CHECK-LABEL: func.func @scalar_argument
// CHECK: tensor_program.fused
// CHECK-NOT: wrapper.graph
func.func @scalar_argument(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %0 = tensor_program.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
