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

// -----

// Tests that debug output becomes calls of the runtime: the view as dtype,
// rank, sizes and strides in a stack array, storage pointer and offset; the
// strings as internal globals.
// CHECK-DAG: llvm.mlir.global internal constant @[[LABEL:__wrapper_debug_str_[0-9]+]]("v\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[PATH:__wrapper_debug_str_[0-9]+]]("/tmp/x.npy\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[MSG:__wrapper_debug_str_[0-9]+]]("k0\00")
// CHECK-DAG: func.func private @wrapper_debug_print(!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, i64)
// CHECK-DAG: func.func private @wrapper_debug_save(!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, i64)
// CHECK-DAG: func.func private @wrapper_debug_message(!llvm.ptr)
// CHECK-LABEL: func.func @debug
// CHECK: call @wrapper_debug_message
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %{{.*}} : memref<2x2xf32, strided<[4, 1], offset: 1>>
// CHECK: %[[META:.*]] = memref.alloca() : memref<4xi64>
// CHECK: %[[L:.*]] = llvm.mlir.addressof @[[LABEL]] : !llvm.ptr
// CHECK: %[[F32:.*]] = arith.constant 7 : i32
// CHECK: %[[RANK:.*]] = arith.constant 2 : i32
// CHECK: call @wrapper_debug_print(%[[L]], %[[F32]], %[[RANK]], %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK: llvm.mlir.addressof @[[PATH]]
// CHECK: call @wrapper_debug_save
wrapper.graph @debug(%x: memref<8xf32>) {
  wrapper.debug_message "k0"
  %v = wrapper.reinterpret %x to offset: [1], sizes: [2, 2], strides: [4, 1] : memref<8xf32> to memref<2x2xf32, strided<[4, 1], offset: 1>>
  wrapper.debug_print %v, "v" : memref<2x2xf32, strided<[4, 1], offset: 1>>
  wrapper.debug_save %x, "/tmp/x.npy" : memref<8xf32>
  wrapper.return
}


// -----

// Tests that ops of other dialects get the converted types, their regions
// too: memref.dim of a buffer with a memory space, and an scf.for whose body
// calls a kernel on it.
// CHECK-LABEL: func.func @other_ops
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]]
// CHECK:   call @fill_impl(%[[X]]) : (memref<?xf32>) -> ()
// CHECK-NOT: unrealized_conversion_cast
func.func private @fill_impl(memref<?xf32>)
wrapper.kernel @fill = @fill_impl
wrapper.graph @other_ops(%x: memref<?xf32, #wrapper.device<cpu>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32, #wrapper.device<cpu>>
  scf.for %i = %c0 to %n step %c1 {
    wrapper.call @fill(%x) : memref<?xf32, #wrapper.device<cpu>>
  }
  wrapper.return
}
