// RUN: wrapper-opt %s --canonicalize --split-input-file | FileCheck %s

// Tests that a view of a view becomes a view of the storage (offsets are
// relative to the storage, so nothing else changes).
// CHECK-LABEL: wrapper.graph @view_of_view
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>)
// CHECK: %[[V:.*]] = wrapper.reinterpret %[[X]] to offset: [2], sizes: [2, 2], strides: [4, 1] : memref<16xf32> to memref<2x2xf32, strided<[4, 1], offset: 2>>
// CHECK: wrapper.return %[[V]]
wrapper.graph @view_of_view(%x: memref<16xf32>) -> (memref<2x2xf32, strided<[4, 1], offset: 2>> {wrapper.alias_of = 0 : i64}) {
  %a = wrapper.reinterpret %x to offset: [0], sizes: [4, 4], strides: [4, 1] : memref<16xf32> to memref<4x4xf32>
  %b = wrapper.reinterpret %a to offset: [2], sizes: [2, 2], strides: [4, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1], offset: 2>>
  wrapper.return %b : memref<2x2xf32, strided<[4, 1], offset: 2>>
}

// -----

// Tests that a view restating its source's type is the source.
// CHECK-LABEL: wrapper.graph @identity_view
// CHECK-SAME: (%[[X:.*]]: memref<4x4xf32>)
// CHECK-NEXT: wrapper.return %[[X]]
wrapper.graph @identity_view(%x: memref<4x4xf32>) -> (memref<4x4xf32> {wrapper.alias_of = 0 : i64}) {
  %a = wrapper.reinterpret %x to offset: [0], sizes: [4, 4], strides: [4, 1] : memref<4x4xf32> to memref<4x4xf32>
  wrapper.return %a : memref<4x4xf32>
}

// -----

// Tests that dead views are erased but allocations, frees, comments and debug
// output are not.
// CHECK-LABEL: wrapper.graph @kept
// CHECK-NEXT: wrapper.comment "kept"
// CHECK-NEXT: %[[B:.*]] = wrapper.alloc()
// CHECK-NEXT: wrapper.debug_print %[[B]], "b"
// CHECK-NEXT: wrapper.free %[[B]]
// CHECK-NEXT: wrapper.return
wrapper.graph @kept() {
  wrapper.comment "kept"
  %b = wrapper.alloc() : memref<4xf32>
  %v = wrapper.reinterpret %b to offset: [0], sizes: [2], strides: [1] : memref<4xf32> to memref<2xf32>
  wrapper.debug_print %b, "b" : memref<4xf32>
  wrapper.free %b : memref<4xf32>
  wrapper.return
}
