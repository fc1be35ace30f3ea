// RUN: wrapper-opt %s --split-input-file --wrapper-lower-extern-abi --verify-diagnostics | FileCheck %s

// The C ABI of each argument kind: tensors as descriptors, an absent
// optional tensor as null, int lists as a stack array and a length
// (defaults filled in), optional values by pointer, bool as i32,
// ScalarType as a dtype code; the _v2 entry point of cumsum.
// CHECK-LABEL: wrapper.graph @kinds
// CHECK: %[[X:.*]] = wrapper.tensor_descriptor %arg0 : memref<1x3x8x8xf32>
// CHECK: %[[W:.*]] = wrapper.tensor_descriptor %arg1 : memref<4x3x3x3xf32>
// CHECK: %[[NOBIAS:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[STRIDE:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: %[[R:.*]] = wrapper.result_descriptors [memref<1x4x3x6xf32>]
// CHECK: %[[S:.*]] = func.call @wrapper_shim_conv2d(%[[X]], %[[W]], %[[NOBIAS]], %[[STRIDE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[R]])
// CHECK: wrapper.check_status %[[S]], "aten::conv2d" : i32
// CHECK: %[[C:.*]] = wrapper.descriptor_buffer %[[R]][0] : memref<1x4x3x6xf32>
// CHECK: %[[DIM:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[KEEP:.*]] = arith.constant 0 : i32
// CHECK: func.call @wrapper_shim_argmax(%{{.*}}, %[[DIM]], %[[KEEP]], %{{.*}})
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[SLOT:.*]] = llvm.alloca
// CHECK: llvm.store %[[ONE]], %[[SLOT]]
// CHECK: func.call @wrapper_shim_argmax(%{{.*}}, %[[SLOT]],
// CHECK: %[[F64:.*]] = arith.constant 8 : i32
// CHECK: %[[DT:.*]] = llvm.alloca
// CHECK: llvm.store %[[F64]], %[[DT]]
// CHECK: func.call @wrapper_shim_cumsum_out_v2(%{{.*}}, %{{.*}}, %[[DT]], %{{.*}})
// CHECK: func.call @wrapper_shim_relu_inplace(
// CHECK: wrapper.free %[[C]]
// CHECK-DAG: func.func private @wrapper_shim_conv2d(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64, i64, !llvm.ptr) -> i32
// CHECK-DAG: func.func private @wrapper_shim_argmax(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr) -> i32
// CHECK-DAG: func.func private @wrapper_shim_cumsum_out_v2(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> i32
wrapper.graph @kinds(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %m: memref<4x8xf32>,
                     %acc: memref<4x8xf64> {wrapper.mutated}, %r: memref<4x8xf32> {wrapper.mutated}) {
  %c = wrapper.extern_alloc "aten::conv2d" ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) args {stride = [2, 1]} -> memref<1x4x3x6xf32>
  %a = wrapper.extern_alloc "aten::argmax" ins(%m : memref<4x8xf32>) -> memref<i64>
  %b = wrapper.extern_alloc "aten::argmax" ins(%m : memref<4x8xf32>) args {dim = 1 : i64} -> memref<4xi64>
  wrapper.extern_out "aten::cumsum" ins(%m : memref<4x8xf32>) outs(%acc : memref<4x8xf64>) args {dim = 1 : i64, dtype = f64}
  wrapper.extern_out "aten::relu_" outs(%r : memref<4x8xf32>)
  wrapper.free %c : memref<1x4x3x6xf32>
  wrapper.free %a : memref<i64>
  wrapper.free %b : memref<4xi64>
  wrapper.return
}

// -----

// Containers are taken apart: multi_output becomes the element's buffer;
// freeing the tuple frees what was not extracted; a list return is an array
// of descriptors and a count.
// CHECK-LABEL: wrapper.graph @containers
// CHECK: %[[V:.*]] = wrapper.result_descriptors [memref<4x2xf32>]
// CHECK: %[[I:.*]] = wrapper.result_descriptors [memref<4x2xi64>]
// CHECK: func.call @wrapper_shim_topk(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[V]], %[[I]])
// CHECK: %[[VB:.*]] = wrapper.descriptor_buffer %[[V]][0] : memref<4x2xf32>
// CHECK: %[[IB:.*]] = wrapper.descriptor_buffer %[[I]][0] : memref<4x2xi64>
// CHECK-NEXT: wrapper.free %[[VB]] : memref<4x2xf32>
// CHECK: %[[L:.*]] = wrapper.result_descriptors [memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<8xf32>]
// CHECK: %[[N:.*]] = arith.constant 4 : i64
// CHECK: func.call @wrapper_shim_unbind(%{{.*}}, %{{.*}}, %[[L]], %[[N]])
// CHECK: %[[L0:.*]] = wrapper.descriptor_buffer %[[L]][0]
// CHECK: %[[L1:.*]] = wrapper.descriptor_buffer %[[L]][1]
// CHECK: %[[L2:.*]] = wrapper.descriptor_buffer %[[L]][2]
// CHECK: %[[L3:.*]] = wrapper.descriptor_buffer %[[L]][3]
// CHECK: wrapper.free %[[L0]]
// CHECK: wrapper.free %[[L1]]
// CHECK: wrapper.free %[[L3]]
// CHECK: wrapper.return %[[IB]], %[[L2]]
wrapper.graph @containers(%m: memref<4x8xf32>) -> (memref<4x2xi64>, memref<8xf32>) {
  %t = wrapper.extern_alloc "aten::topk" ins(%m : memref<4x8xf32>) args {k = 2 : i64} -> !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  %i = wrapper.multi_output %t[1] : !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>> -> memref<4x2xi64>
  wrapper.free %t : !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  %u = wrapper.extern_alloc "aten::unbind" ins(%m : memref<4x8xf32>) -> !wrapper.list<memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<8xf32>>
  %u2 = wrapper.multi_output %u[2] : !wrapper.list<memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<8xf32>> -> memref<8xf32>
  wrapper.free %u : !wrapper.list<memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<8xf32>>
  wrapper.return %i, %u2 : memref<4x2xi64>, memref<8xf32>
}

// -----

wrapper.graph @unregistered(%m: memref<4x8xf32>, %o: memref<4x8xf32> {wrapper.mutated}) {
  // expected-error @below {{'wrapper.extern_out' op calls 'mylib::fancy', which the extern registry does not know; the C ABI needs its schema}}
  wrapper.extern_out "mylib::fancy" ins(%m : memref<4x8xf32>) outs(%o : memref<4x8xf32>)
  wrapper.return
}

// -----

wrapper.graph @missing_variant(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %o: memref<1x4x6x6xf32> {wrapper.mutated}) {
  // expected-error @below {{'wrapper.extern_out' op needs the out= variant of 'aten::conv2d', which the library does not implement; run --wrapper-synthesize-extern-variants first}}
  wrapper.extern_out "aten::conv2d" ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%o : memref<1x4x6x6xf32>)
  wrapper.return
}

// -----

// Tests that a proxy call (an op run by the embedding program) passes its
// key, a description, the input descriptors in a stack array and one empty
// descriptor per result, and reads each result back; a tuple of results is
// taken apart.
// CHECK-LABEL: wrapper.graph @proxy
// CHECK: %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: %[[A:.*]] = wrapper.tensor_descriptor %arg0 : memref<4x8xf32>
// CHECK: llvm.store %[[A]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: %[[R:.*]] = wrapper.result_descriptors [memref<4x3xf32>, memref<4x3xi64>]
// CHECK: %[[NAME:.*]] = llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<{{[0-9]+}} x i8>
// CHECK: %[[KEY:.*]] = arith.constant 7 : i64
// CHECK: %[[S:.*]] = func.call @wrapper_proxy_call(%[[KEY]], %[[NAME]], %{{.*}}, %[[ARRAY]], %{{.*}}, %[[R]]) : (i64, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr) -> i32
// CHECK: wrapper.check_status %[[S]], "aten.topk.default at node 'topk'" : i32
// CHECK: %[[V:.*]] = wrapper.descriptor_buffer %[[R]][0] : memref<4x3xf32>
// CHECK: %[[I:.*]] = wrapper.descriptor_buffer %[[R]][1] : memref<4x3xi64>
// CHECK: wrapper.free %[[V]]
// CHECK: return %[[I]]
wrapper.graph @proxy(%x: memref<4x8xf32>) -> memref<4x3xi64> {
  %t = wrapper.extern_alloc "proxy::7" ins(%x : memref<4x8xf32>) args {key = 7 : i64, name = "aten.topk.default at node 'topk'"} -> !wrapper.tuple<memref<4x3xf32>, memref<4x3xi64>>
  %v = wrapper.multi_output %t[0] : !wrapper.tuple<memref<4x3xf32>, memref<4x3xi64>> -> memref<4x3xf32>
  %i = wrapper.multi_output %t[1] : !wrapper.tuple<memref<4x3xf32>, memref<4x3xi64>> -> memref<4x3xi64>
  wrapper.free %v : memref<4x3xf32>
  wrapper.return %i : memref<4x3xi64>
}

// -----

func.func @proxy_without_key(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.extern_alloc' op calls the proxy 'proxy::1' without an integer 'key' argument}}
  %r = wrapper.extern_alloc "proxy::1" ins(%x : memref<4xf32>) -> memref<4xf32>
  return
}

// -----

// Tests that a collective calls wrapper_collective_start with the
// collective's code, the group's name, the reduction's code, the group
// size, the device (-1: host) and the descriptor arrays of its inputs and
// outputs, reads the handle back, and that its wait calls
// wrapper_collective_wait with that handle where the wait was.
// CHECK-LABEL: wrapper.graph @collective
// CHECK: %[[GROUP:.*]] = llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<3 x i8>
// CHECK: %[[WORK:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: %[[KIND:.*]] = arith.constant 2 : i32
// CHECK: %[[REDUCE:.*]] = arith.constant 4 : i32
// CHECK: %[[SIZE:.*]] = arith.constant 2 : i64
// CHECK: %[[DEVICE:.*]] = arith.constant -1 : i32
// CHECK: wrapper.tensor_descriptor %arg0 : memref<8xf32>
// CHECK: wrapper.tensor_descriptor %arg1 : memref<4xf32>
// CHECK: %[[S:.*]] = func.call @wrapper_collective_start(%[[KIND]], %[[GROUP]], %[[REDUCE]], %[[SIZE]], %[[DEVICE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WORK]]) : (i32, !llvm.ptr, i32, i64, i32, i32, !llvm.ptr, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK: wrapper.check_status %[[S]], "_c10d_functional::reduce_scatter_tensor" : i32
// CHECK: %[[H:.*]] = llvm.load %[[WORK]] : !llvm.ptr -> i64
// CHECK: wrapper.comment "overlapped"
// CHECK: %[[S2:.*]] = func.call @wrapper_collective_wait(%[[H]]) : (i64) -> i32
// CHECK: wrapper.check_status %[[S2]], "_c10d_functional::reduce_scatter_tensor" : i32
// CHECK-NOT: wrapper.collective
wrapper.graph @collective(%x: memref<8xf32>, %y: memref<4xf32>) {
  %w = wrapper.collective_start "reduce_scatter_tensor" ins(%x : memref<8xf32>) outs(%y : memref<4xf32>) group "g0" reduce "max" size 2 -> !wrapper.work
  wrapper.comment "overlapped"
  wrapper.collective_wait %w
  wrapper.return
}
