// RUN: wrapper-opt %s | wrapper-opt | FileCheck %s
// RUN: wrapper-opt %s --mlir-print-op-generic | wrapper-opt | FileCheck %s

// Tests that every wrapper op, type and attribute round-trips.

// CHECK: func.func private @add_impl(memref<4xf32>, memref<4xf32>, memref<4xf32>)
func.func private @add_impl(memref<4xf32>, memref<4xf32>, memref<4xf32>)
func.func private @dyn_impl(memref<?x8xf32>, index)

// CHECK: wrapper.kernel @add_kernel = @add_impl metadata {kind = "pointwise", source_ops = ["add"]}
wrapper.kernel @add_kernel = @add_impl metadata {kind = "pointwise", source_ops = ["add"]}
// CHECK: wrapper.kernel @dyn_kernel = @dyn_impl{{$}}
wrapper.kernel @dyn_kernel = @dyn_impl
// CHECK: wrapper.kernel @device_kernel = @dyn_impl on #wrapper.device<cuda:0> metadata {kind = "pointwise"}
wrapper.kernel @device_kernel = @dyn_impl on #wrapper.device<cuda> metadata {kind = "pointwise"}

gpu.module @gpu_kernels {
  gpu.func @scale(%x: memref<128xf32>) kernel {
    gpu.return
  }
}
// CHECK: wrapper.kernel @scale_kernel = @gpu_kernels::@scale
wrapper.kernel @scale_kernel = @gpu_kernels::@scale

// CHECK: wrapper.constant @bias : memref<4xf32> = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]>
wrapper.constant @bias : memref<4xf32> = dense<[0.0, 1.0, 2.0, 3.0]>
// CHECK: wrapper.constant @weight : memref<4x4xf32> external
wrapper.constant @weight : memref<4x4xf32> external
// CHECK: wrapper.constant @ones : memref<2x2xf16> = dense<1.000000e+00>
wrapper.constant @ones : memref<2x2xf16> = dense<1.0>

// CHECK-LABEL: wrapper.graph @buffers
// CHECK-SAME: (%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32> {wrapper.mutated})
// CHECK-SAME: -> (memref<4xf32>, memref<2x2xf32> {wrapper.alias_of = 0 : i64})
wrapper.graph @buffers(%x: memref<4xf32>, %acc: memref<4xf32> {wrapper.mutated})
    -> (memref<4xf32>, memref<2x2xf32> {wrapper.alias_of = 0 : i64}) {
  // CHECK: wrapper.comment "Source nodes: add"
  wrapper.comment "Source nodes: add"
  // CHECK: %[[BUF0:.*]] = wrapper.alloc() {name = "buf0"} : memref<4xf32>
  %buf0 = wrapper.alloc() {name = "buf0"} : memref<4xf32>
  // CHECK: wrapper.call @add_kernel(%{{.*}}, %{{.*}}, %[[BUF0]]) : memref<4xf32>, memref<4xf32>, memref<4xf32>
  wrapper.call @add_kernel(%x, %acc, %buf0) : memref<4xf32>, memref<4xf32>, memref<4xf32>
  // CHECK: %[[B:.*]] = wrapper.get_constant @bias : memref<4xf32>
  %b = wrapper.get_constant @bias : memref<4xf32>
  // CHECK: wrapper.extern_out "aten::add" ins(%[[BUF0]], %[[B]] : memref<4xf32>, memref<4xf32>) outs(%{{.*}} : memref<4xf32>) args {alpha = 1.000000e+00 : f64}
  wrapper.extern_out "aten::add" ins(%buf0, %b : memref<4xf32>, memref<4xf32>) outs(%acc : memref<4xf32>) args {alpha = 1.0 : f64}
  // CHECK: wrapper.debug_print %[[BUF0]], "after add_kernel" : memref<4xf32>
  wrapper.debug_print %buf0, "after add_kernel" : memref<4xf32>
  // CHECK: wrapper.debug_message "add_kernel"
  wrapper.debug_message "add_kernel"
  // CHECK: wrapper.debug_save %[[BUF0]], "add_kernel_buf0.npy" : memref<4xf32>
  wrapper.debug_save %buf0, "add_kernel_buf0.npy" : memref<4xf32>
  // CHECK: %[[V:.*]] = wrapper.reinterpret %{{.*}} to offset: [0], sizes: [2, 2], strides: [2, 1] : memref<4xf32> to memref<2x2xf32>
  %view = wrapper.reinterpret %x to offset: [0], sizes: [2, 2], strides: [2, 1] : memref<4xf32> to memref<2x2xf32>
  // CHECK: wrapper.return %[[BUF0]], %[[V]] : memref<4xf32>, memref<2x2xf32>
  wrapper.return %buf0, %view : memref<4xf32>, memref<2x2xf32>
}

// CHECK-LABEL: wrapper.graph @pooled
wrapper.graph @pooled() {
  // CHECK: %[[POOL:.*]] = wrapper.alloc() {name = "pool"} : memref<1024xi8>
  %pool = wrapper.alloc() {name = "pool"} : memref<1024xi8>
  // CHECK: %{{.*}} = wrapper.view %[[POOL]][512] {name = "buf3"} : memref<1024xi8> to memref<16x8xf32>
  %v = wrapper.view %pool[512] {name = "buf3"} : memref<1024xi8> to memref<16x8xf32>
  // CHECK: wrapper.free %[[POOL]] : memref<1024xi8>
  wrapper.free %pool : memref<1024xi8>
  wrapper.return
}

// CHECK-LABEL: wrapper.graph @lifetimes
wrapper.graph @lifetimes(%n: index) -> memref<32xf32> {
  // CHECK: %[[A:.*]] = wrapper.alloc() : memref<4x8xf32>
  %a = wrapper.alloc() : memref<4x8xf32>
  // CHECK: %[[D:.*]] = wrapper.alloc(%{{.*}}) : memref<?x8xf32>
  %d = wrapper.alloc(%n) : memref<?x8xf32>
  // CHECK: wrapper.call @dyn_kernel(%[[D]], %{{.*}}) : memref<?x8xf32>, index
  wrapper.call @dyn_kernel(%d, %n) : memref<?x8xf32>, index
  // CHECK: %[[S:.*]] = wrapper.alloc() : memref<4x8xf32, strided<[16, 1]>>
  %s = wrapper.alloc() : memref<4x8xf32, strided<[16, 1]>>
  // CHECK: wrapper.free %[[S]] : memref<4x8xf32, strided<[16, 1]>>
  wrapper.free %s : memref<4x8xf32, strided<[16, 1]>>
  // CHECK: wrapper.free_if_not_reused %[[A]] : memref<4x8xf32>
  wrapper.free_if_not_reused %a : memref<4x8xf32>
  // CHECK: %[[R:.*]] = wrapper.reuse %[[A]] : memref<4x8xf32> to memref<32xf32>
  %r = wrapper.reuse %a : memref<4x8xf32> to memref<32xf32>
  // CHECK: %[[R2:.*]] = wrapper.reuse %[[D]] {name = "buf3"} : memref<?x8xf32> to memref<?x8xf32>
  %r2 = wrapper.reuse %d {name = "buf3"} : memref<?x8xf32> to memref<?x8xf32>
  // CHECK: wrapper.reinterpret %[[R2]] to offset: [%{{.*}}], sizes: [%{{.*}}, 4], strides: [4, 1] : memref<?x8xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
  %v = wrapper.reinterpret %r2 to offset: [%n], sizes: [%n, 4], strides: [4, 1] : memref<?x8xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
  // CHECK: wrapper.free %[[R2]] : memref<?x8xf32>
  wrapper.free %r2 : memref<?x8xf32>
  wrapper.return %r : memref<32xf32>
}

// CHECK-LABEL: wrapper.graph @externs
wrapper.graph @externs(%x: memref<4x8xf32>) -> (memref<4x2xf32>, memref<4x2xi64>) {
  // CHECK: %[[MM:.*]] = wrapper.extern_alloc "aten::mm" ins(%{{.*}}, %{{.*}} : memref<4x8xf32>, memref<4x8xf32>) -> memref<4x4xf32>
  %mm = wrapper.extern_alloc "aten::mm" ins(%x, %x : memref<4x8xf32>, memref<4x8xf32>) -> memref<4x4xf32>
  // CHECK: %[[T:.*]] = wrapper.extern_alloc "aten::topk" ins(%{{.*}} : memref<4x8xf32>) args {k = 2 : i64} -> !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  %t = wrapper.extern_alloc "aten::topk" ins(%x : memref<4x8xf32>) args {k = 2 : i64} -> !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  // CHECK: wrapper.multi_output %[[T]][0] : !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>> -> memref<4x2xf32>
  %values = wrapper.multi_output %t[0] : !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>> -> memref<4x2xf32>
  %indices = wrapper.multi_output %t[1] : !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>> -> memref<4x2xi64>
  // CHECK: wrapper.free %[[T]] : !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  wrapper.free %t : !wrapper.tuple<memref<4x2xf32>, memref<4x2xi64>>
  // CHECK: %[[N:.*]] = wrapper.extern_alloc "aten::split_nested" -> !wrapper.tuple<memref<4xf32>, !wrapper.list<memref<2xf32>, memref<2xf32>>>
  %nested = wrapper.extern_alloc "aten::split_nested" -> !wrapper.tuple<memref<4xf32>, !wrapper.list<memref<2xf32>, memref<2xf32>>>
  // CHECK: wrapper.multi_output %[[N]][1, 0] : !wrapper.tuple<memref<4xf32>, !wrapper.list<memref<2xf32>, memref<2xf32>>> -> memref<2xf32>
  %part = wrapper.multi_output %nested[1, 0] : !wrapper.tuple<memref<4xf32>, !wrapper.list<memref<2xf32>, memref<2xf32>>> -> memref<2xf32>
  wrapper.free %part : memref<2xf32>
  wrapper.free %nested : !wrapper.tuple<memref<4xf32>, !wrapper.list<memref<2xf32>, memref<2xf32>>>
  wrapper.free %mm : memref<4x4xf32>
  // CHECK: %{{.*}}, %{{.*}} = wrapper.extern_alloc "aten::two" -> memref<1xf32>, memref<2xf32>
  %two:2 = wrapper.extern_alloc "aten::two" -> memref<1xf32>, memref<2xf32>
  wrapper.free %two#0 : memref<1xf32>
  wrapper.free %two#1 : memref<2xf32>
  // CHECK: %{{.*}} = wrapper.extern_alloc "aten::empty_list" -> !wrapper.list<>
  %empty = wrapper.extern_alloc "aten::empty_list" -> !wrapper.list<>
  wrapper.free %empty : !wrapper.list<>
  wrapper.return %values, %indices : memref<4x2xf32>, memref<4x2xi64>
}

// CHECK-LABEL: wrapper.graph @cuda
// CHECK-SAME: memref<128xf32, #wrapper.device<cuda:0>>
wrapper.graph @cuda(%x: memref<128xf32, #wrapper.device<cuda:0>> {wrapper.mutated}) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // CHECK: wrapper.call @scale_kernel(%{{.*}}) grid(%{{.*}}, %{{.*}}, %{{.*}}) block(%{{.*}}, %{{.*}}, %{{.*}}) : memref<128xf32, #wrapper.device<cuda:0>>
  wrapper.call @scale_kernel(%x) grid(%c1, %c1, %c1) block(%c128, %c1, %c1) : memref<128xf32, #wrapper.device<cuda:0>>
  // CHECK: wrapper.alloc() : memref<4xf16, #wrapper.device<cuda:1>>
  %b = wrapper.alloc() : memref<4xf16, #wrapper.device<cuda:1>>
  wrapper.free %b : memref<4xf16, #wrapper.device<cuda:1>>
  // CHECK: wrapper.alloc() : memref<4xf16, #wrapper.device<cpu>>
  %c = wrapper.alloc() : memref<4xf16, #wrapper.device<cpu>>
  wrapper.free %c : memref<4xf16, #wrapper.device<cpu>>
  // CHECK: wrapper.return{{$}}
  wrapper.return
}

// Tests that `cuda` alone means `cuda:0`.
// CHECK-LABEL: wrapper.graph @default_ordinal
// CHECK-SAME: memref<2xf32, #wrapper.device<cuda:0>>
wrapper.graph @default_ordinal(%x: memref<2xf32, #wrapper.device<cuda>>) {
  wrapper.return
}
