// RUN: wrapper-opt %s --convert-wrapper-to-standard --split-input-file | FileCheck %s --implicit-check-not=wrapper.

// Tests that the host program becomes func and memref ops.
// CHECK: memref.global "private" constant @bias : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> {alignment = 64 : i64}
// CHECK: func.func private @add_impl
// CHECK-LABEL: func.func @graph
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>, %[[N:.*]]: index) -> memref<4xf32>
// CHECK: %[[B:.*]] = memref.get_global @bias : memref<4xf32>
// CHECK: %[[O:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: call @add_impl(%[[X]], %[[B]], %[[O]]) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
// CHECK: %[[T:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?xf32>
// CHECK: memref.reinterpret_cast %[[T]] to offset: [0], sizes: [2], strides: [1]
// CHECK: memref.dealloc %[[T]] : memref<?xf32>
// CHECK: %[[R:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [4], strides: [1] : memref<8xf32> to memref<4xf32>
// CHECK: memref.dealloc %[[V]] : memref<4xf32>
// CHECK: return %[[O]] : memref<4xf32>
wrapper.constant @bias : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func private @add_impl(memref<4xf32>, memref<4xf32>, memref<4xf32>)
wrapper.kernel @add = @add_impl
wrapper.graph @graph(%x: memref<4xf32, #wrapper.device<cpu>>, %n: index) -> memref<4xf32> {
  %b = wrapper.get_constant @bias : memref<4xf32>
  wrapper.comment "Source nodes: add"
  %o = wrapper.alloc() : memref<4xf32>
  wrapper.call @add(%x, %b, %o) : memref<4xf32, #wrapper.device<cpu>>, memref<4xf32>, memref<4xf32>
  %t = wrapper.alloc(%n) : memref<?xf32>
  %v = wrapper.reinterpret %t to offset: [0], sizes: [2], strides: [1] : memref<?xf32> to memref<2xf32>
  wrapper.free %t : memref<?xf32>
  %r = wrapper.alloc() : memref<8xf32>
  wrapper.free_if_not_reused %r : memref<8xf32>
  %s = wrapper.reuse %r : memref<8xf32> to memref<4xf32>
  wrapper.free %s : memref<4xf32>
  wrapper.return %o : memref<4xf32>
}
