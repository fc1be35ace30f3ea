// RUN: wrapper-opt %s --wrapper-place-on-device --split-input-file -verify-diagnostics | FileCheck %s

// Every buffer of the graph moves to the device: arguments, results,
// allocations, views, reuses, constants; func.func kernels are marked `on`
// it; kernels' own signatures keep plain memrefs.
// CHECK: wrapper.constant @w : memref<4xf32, #wrapper.device<cuda:0>> = dense
// CHECK: wrapper.kernel @k = @k_impl on #wrapper.device<cuda:0>
// CHECK-LABEL: wrapper.graph @g
// CHECK-SAME: (%[[X:.*]]: memref<4xf32, #wrapper.device<cuda:0>>, %{{.*}}: index) -> (memref<4xf32, #wrapper.device<cuda:0>>, memref<2x2xf32, #wrapper.device<cuda:0>>)
// CHECK: wrapper.get_constant @w : memref<4xf32, #wrapper.device<cuda:0>>
// CHECK: wrapper.alloc() : memref<4xf32, #wrapper.device<cuda:0>>
// CHECK: wrapper.alloc(%{{.*}}) : memref<?xf32, #wrapper.device<cuda:0>>
// CHECK: wrapper.reinterpret {{.*}} : memref<?xf32, #wrapper.device<cuda:0>> to memref<4xf32, #wrapper.device<cuda:0>>
// CHECK: wrapper.reuse {{.*}} : memref<8xf32, #wrapper.device<cuda:0>> to memref<2x2xf32, #wrapper.device<cuda:0>>
// CHECK: func.func private @k_impl(memref<4xf32>, memref<4xf32>, memref<4xf32>)
wrapper.constant @w : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
wrapper.kernel @k = @k_impl
wrapper.graph @g(%x: memref<4xf32>, %n: index) -> (memref<4xf32>, memref<2x2xf32>) {
  %w = wrapper.get_constant @w : memref<4xf32>
  %o = wrapper.alloc() : memref<4xf32>
  wrapper.call @k(%x, %w, %o) : memref<4xf32>, memref<4xf32>, memref<4xf32>
  %t = wrapper.alloc(%n) : memref<?xf32>
  %v = wrapper.reinterpret %t to offset: [0], sizes: [4], strides: [1] : memref<?xf32> to memref<4xf32>
  wrapper.call @k(%o, %v, %v) : memref<4xf32>, memref<4xf32>, memref<4xf32>
  wrapper.free %t : memref<?xf32>
  %s = wrapper.alloc() : memref<8xf32>
  %r = wrapper.reuse %s : memref<8xf32> to memref<2x2xf32>
  wrapper.return %o, %r : memref<4xf32>, memref<2x2xf32>
}
func.func private @k_impl(memref<4xf32>, memref<4xf32>, memref<4xf32>)

// -----

wrapper.graph @extern(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error @below {{'wrapper.extern_alloc' op calls the library kernel 'aten::relu', which has no cuda:0 implementation yet; cannot place the graph on the device}}
  %b = wrapper.extern_alloc "aten::relu" ins(%x : memref<4xf32>) -> memref<4xf32>
  wrapper.return %b : memref<4xf32>
}

// -----

wrapper.graph @printed(%x: memref<4xf32>) {
  // expected-error @below {{'wrapper.debug_print' op reads a buffer on the host; debug printing is not supported for graphs on cuda:0}}
  wrapper.debug_print %x, "x" : memref<4xf32>
  wrapper.return
}

// -----

// expected-error @below {{'wrapper.graph' op uses a buffer of type 'memref<4xf32, #wrapper.device<cuda:1>>', which is not on the CPU; cannot place it on cuda:0}}
wrapper.graph @other_device(%x: memref<4xf32, #wrapper.device<cuda:1>>) {
  wrapper.return
}
