// RUN: wrapper-opt %s -split-input-file --convert-tensor-program-to-wrapper -verify-diagnostics | FileCheck %s

// PyTorch's functional collectives become collectives of the host graph:
// all_reduce reduces a fresh copy of its input in place (the input stays
// as it was), all_gather_into_tensor and reduce_scatter_tensor write a new
// buffer (sized from the input and the group size, also when dim 0 is
// dynamic), wait_tensor waits and passes the buffer on. A buffer in flight
// is freed only after its wait, even when nothing uses it afterwards.

// CHECK-LABEL: wrapper.graph @all_reduce
// CHECK: %[[R:.*]] = wrapper.alloc() : memref<8xf32>
// CHECK: wrapper.call @{{.*}}copy{{.*}}(%arg0, %[[R]])
// CHECK: %[[W:.*]] = wrapper.collective_start "all_reduce" outs(%[[R]] : memref<8xf32>) group "0" reduce "sum" -> !wrapper.work
// CHECK: wrapper.collective_wait %[[W]]
// CHECK: wrapper.return %[[R]]
func.func @all_reduce(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = tensor_program.extern "_c10d_functional::all_reduce"(%x) args {group_name = "0", reduce_op = "sum"} : (tensor<8xf32>) -> tensor<8xf32>
  %w = tensor_program.extern "_c10d_functional::wait_tensor"(%r) : (tensor<8xf32>) -> tensor<8xf32>
  return %w : tensor<8xf32>
}

// An intermediate that nothing reads afterwards is reduced in place; one
// that is read again is copied first.
// CHECK-LABEL: wrapper.graph @in_place
// CHECK: %[[Y:.*]] = wrapper.alloc() : memref<8xf32>
// CHECK: wrapper.call @{{.*}}(%arg0, %[[Y]])
// CHECK-NOT: copy
// CHECK: %[[W:.*]] = wrapper.collective_start "all_reduce" outs(%[[Y]] : memref<8xf32>)
// CHECK: %[[Z:.*]] = wrapper.alloc() : memref<8xf32>
// CHECK: wrapper.call @{{.*}}(%arg0, %[[Z]])
// CHECK: %[[C:.*]] = wrapper.alloc() : memref<8xf32>
// CHECK: wrapper.call @{{.*}}copy{{.*}}(%[[Z]], %[[C]])
// CHECK: wrapper.collective_start "all_reduce" outs(%[[C]] : memref<8xf32>)
func.func @in_place(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %y = tensor_program.relu %x : tensor<8xf32>
  %r = tensor_program.extern "_c10d_functional::all_reduce"(%y) args {group_name = "0", reduce_op = "sum"} : (tensor<8xf32>) -> tensor<8xf32>
  %w = tensor_program.extern "_c10d_functional::wait_tensor"(%r) : (tensor<8xf32>) -> tensor<8xf32>
  %z = tensor_program.neg %x : tensor<8xf32>
  %s = tensor_program.extern "_c10d_functional::all_reduce"(%z) args {group_name = "0", reduce_op = "sum"} : (tensor<8xf32>) -> tensor<8xf32>
  %sw = tensor_program.extern "_c10d_functional::wait_tensor"(%s) : (tensor<8xf32>) -> tensor<8xf32>
  return %w, %sw, %z : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// CHECK-LABEL: wrapper.graph @unused_result
// CHECK: %[[R:.*]] = wrapper.alloc() : memref<8xf32>
// CHECK: %[[W:.*]] = wrapper.collective_start "all_reduce"
// CHECK-NEXT: wrapper.collective_wait %[[W]]
// CHECK-NEXT: wrapper.free %[[R]]
func.func @unused_result(%x: tensor<8xf32>) {
  %r = tensor_program.extern "_c10d_functional::all_reduce"(%x) args {group_name = "0", reduce_op = "avg"} : (tensor<8xf32>) -> tensor<8xf32>
  %w = tensor_program.extern "_c10d_functional::wait_tensor"(%r) : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// CHECK-LABEL: wrapper.graph @gather_scatter
// CHECK: %[[D:.*]] = memref.dim %arg0, %c0
// CHECK: %[[N:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK: %[[G:.*]] = wrapper.alloc(%[[N]]) : memref<?x4xf32>
// CHECK: %[[WG:.*]] = wrapper.collective_start "all_gather_into_tensor" ins(%arg0 : memref<?x4xf32>) outs(%[[G]] : memref<?x4xf32>) group "g" size 2
// CHECK: wrapper.collective_wait %[[WG]]
// CHECK: %[[S:.*]] = wrapper.alloc() : memref<4x4xf32>
// CHECK: wrapper.collective_start "reduce_scatter_tensor" ins(%arg1 : memref<8x4xf32>) outs(%[[S]] : memref<4x4xf32>) group "g" reduce "sum" size 2
func.func @gather_scatter(%x: tensor<?x4xf32>, %y: tensor<8x4xf32>) -> (tensor<?x4xf32>, tensor<4x4xf32>) {
  %g = tensor_program.extern "_c10d_functional::all_gather_into_tensor"(%x) args {group_name = "g", group_size = 2 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %gw = tensor_program.extern "_c10d_functional::wait_tensor"(%g) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = tensor_program.extern "_c10d_functional::reduce_scatter_tensor"(%y) args {group_name = "g", group_size = 2 : i64, reduce_op = "sum"} : (tensor<8x4xf32>) -> tensor<4x4xf32>
  %sw = tensor_program.extern "_c10d_functional::wait_tensor"(%s) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %gw, %sw : tensor<?x4xf32>, tensor<4x4xf32>
}

// -----

func.func @no_wait(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{starts a collective that no wait_tensor waits for}}
  %r = tensor_program.extern "_c10d_functional::all_reduce"(%x) args {group_name = "0", reduce_op = "sum"} : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

func.func @wait_without_collective(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{waits for a tensor that no collective in flight produced}}
  %w = tensor_program.extern "_c10d_functional::wait_tensor"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %w : tensor<8xf32>
}

// -----

func.func @unknown_collective(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{calls '_c10d_functional::broadcast', a collective this compiler does not know}}
  %r = tensor_program.extern "_c10d_functional::broadcast"(%x) args {group_name = "0"} : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

func.func @no_group(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @below {{calls '_c10d_functional::all_reduce' without a 'group_name' argument}}
  %r = tensor_program.extern "_c10d_functional::all_reduce"(%x) args {reduce_op = "sum"} : (tensor<8xf32>) -> tensor<8xf32>
  %w = tensor_program.extern "_c10d_functional::wait_tensor"(%r) : (tensor<8xf32>) -> tensor<8xf32>
  return %w : tensor<8xf32>
}
