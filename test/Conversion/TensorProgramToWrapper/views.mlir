// RUN: wrapper-opt %s --tensor-program-fuse="elementwise=false" --convert-tensor-program-to-wrapper --split-input-file | FileCheck %s

// Tests that a kernel that only reshapes a contiguous buffer becomes a view
// (wrapper.reinterpret), not a copy, and that the viewed buffer is freed
// after the last use of the view.
// CHECK-LABEL: wrapper.graph @static_view
// CHECK: %[[E:.*]] = wrapper.alloc() : memref<4x6xf32>
// CHECK: wrapper.call @static_view_kernel_0(%{{.*}}, %[[E]])
// CHECK-NOT: wrapper.call
// CHECK: %[[V:.*]] = wrapper.reinterpret %[[E]] to offset: [0], sizes: [3, 8], strides: [8, 1] : memref<4x6xf32> to memref<3x8xf32>
// CHECK: %[[O:.*]] = wrapper.alloc() : memref<3x8xf32>
// CHECK: wrapper.call @static_view_kernel_1(%[[V]], %[[O]])
// CHECK-NEXT: wrapper.free %[[E]] : memref<4x6xf32>
// CHECK-NEXT: wrapper.return %[[O]]
func.func @static_view(%x: tensor<4x6xf32>) -> tensor<3x8xf32> {
  %e = tensor_program.exp %x : tensor<4x6xf32>
  %r = tensor_program.reshape %e : tensor<4x6xf32> -> tensor<3x8xf32>
  %n = tensor_program.neg %r : tensor<3x8xf32>
  return %n : tensor<3x8xf32>
}

// -----

// Tests a view with a dynamic size and stride.
// CHECK-LABEL: wrapper.graph @dynamic_view
// CHECK: %[[E:.*]] = wrapper.alloc(%{{.*}}) : memref<?x6xf32>
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x6xf32>
// CHECK: wrapper.reinterpret %[[E]] to offset: [0], sizes: [%[[N]], 3, 2], strides: [6, 2, 1] : memref<?x6xf32> to memref<?x3x2xf32>
func.func @dynamic_view(%x: tensor<?x6xf32>) -> tensor<?x3x2xf32> {
  %e = tensor_program.exp %x : tensor<?x6xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x6xf32>
  %r = tensor_program.reshape %e [%d] : tensor<?x6xf32> -> tensor<?x3x2xf32>
  %n = tensor_program.neg %r : tensor<?x3x2xf32>
  return %n : tensor<?x3x2xf32>
}
