// RUN: wrapper-opt %s --convert-tensor-program-to-wrapper | FileCheck %s

// Extern calls become wrapper.extern_alloc: one result as a buffer, several
// as a tuple (or the list of a Tensor[] return) taken apart with
// multi_output, as Inductor's ExternKernelAlloc + MultiOutput lines do.
// Each buffer is freed after its last use.
// CHECK-LABEL: wrapper.graph @topk_then_mm
// CHECK: %[[T:.*]] = wrapper.extern_alloc "aten::topk" ins(%arg0 : memref<4x8xf32>) args {k = 2 : i64} -> !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
// CHECK: %[[V:.*]] = wrapper.multi_output %[[T]][0]
// CHECK: %[[I:.*]] = wrapper.multi_output %[[T]][1]
// CHECK: wrapper.free %[[T]]
// CHECK: %[[M:.*]] = wrapper.extern_alloc "aten::mm" ins(%[[V]], %arg1 : memref<4x2xf32>, memref<2x3xf32>) -> memref<4x3xf32>
// CHECK: wrapper.free %[[V]]
// CHECK: wrapper.return %[[M]], %[[I]]
func.func @topk_then_mm(%x: tensor<4x8xf32>, %w: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<4x2xi64>) {
  %v, %i = tensor_program.extern "aten::topk"(%x) args {k = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  %m = tensor_program.extern "aten::mm"(%v, %w) : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %m, %i : tensor<4x3xf32>, tensor<4x2xi64>
}

// CHECK-LABEL: wrapper.graph @unbind
// CHECK: %[[L:.*]] = wrapper.extern_alloc "aten::unbind" ins(%arg0 : memref<2x4xf32>) -> !wrapper.list<memref<4xf32>, memref<4xf32>>
// CHECK: wrapper.multi_output %[[L]][0]
// CHECK: wrapper.multi_output %[[L]][1]
func.func @unbind(%x: tensor<2x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a, %b = tensor_program.extern "aten::unbind"(%x) : (tensor<2x4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
