// RUN: wrapper-opt %s --convert-wrapper-to-standard | FileCheck %s --implicit-check-not=wrapper.

// A host program on a CUDA device (after --wrapper-place-on-device):
// allocations and frees become the gpu dialect's (the CUDA runtime's caching
// allocator), views stay memref views of device storage, kernels `on` the
// device plain calls, constants host globals (copied to the device by
// --wrapper-cuda-place-buffers), and memory spaces are dropped.
// CHECK: memref.global "private" constant @bias : memref<4xf32>
// CHECK-LABEL: func.func @graph
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>, %[[N:.*]]: index) -> memref<4xf32>
// CHECK: %[[B:.*]] = memref.get_global @bias : memref<4xf32>
// CHECK: %[[O:.*]] = gpu.alloc  () : memref<4xf32>
// CHECK: call @add_impl(%[[X]], %[[B]], %[[O]]) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
// CHECK: %[[T:.*]] = gpu.alloc  (%[[N]]) : memref<?xf32>
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[T]] to offset: [0], sizes: [4], strides: [1] : memref<?xf32> to memref<4xf32>
// CHECK: call @add_impl(%[[O]], %[[V]], %[[V]])
// CHECK: gpu.dealloc  %[[T]] : memref<?xf32>
// CHECK: %[[S:.*]] = gpu.alloc  () : memref<8xf32>
// CHECK: %[[R:.*]] = memref.reinterpret_cast %[[S]] to offset: [0], sizes: [2, 2], strides: [2, 1] : memref<8xf32> to memref<2x2xf32>
// CHECK: gpu.dealloc  %[[R]] : memref<2x2xf32>
// CHECK: return %[[O]] : memref<4xf32>
wrapper.constant @bias : memref<4xf32, #wrapper.device<cuda>> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func private @add_impl(memref<4xf32>, memref<4xf32>, memref<4xf32>)
wrapper.kernel @add = @add_impl on #wrapper.device<cuda>
wrapper.graph @graph(%x: memref<4xf32, #wrapper.device<cuda>>, %n: index) -> memref<4xf32, #wrapper.device<cuda>> {
  %b = wrapper.get_constant @bias : memref<4xf32, #wrapper.device<cuda>>
  %o = wrapper.alloc() : memref<4xf32, #wrapper.device<cuda>>
  wrapper.call @add(%x, %b, %o) : memref<4xf32, #wrapper.device<cuda>>, memref<4xf32, #wrapper.device<cuda>>, memref<4xf32, #wrapper.device<cuda>>
  %t = wrapper.alloc(%n) : memref<?xf32, #wrapper.device<cuda>>
  %v = wrapper.reinterpret %t to offset: [0], sizes: [4], strides: [1] : memref<?xf32, #wrapper.device<cuda>> to memref<4xf32, #wrapper.device<cuda>>
  wrapper.call @add(%o, %v, %v) : memref<4xf32, #wrapper.device<cuda>>, memref<4xf32, #wrapper.device<cuda>>, memref<4xf32, #wrapper.device<cuda>>
  wrapper.free %t : memref<?xf32, #wrapper.device<cuda>>
  %s = wrapper.alloc() : memref<8xf32, #wrapper.device<cuda>>
  %r = wrapper.reuse %s : memref<8xf32, #wrapper.device<cuda>> to memref<2x2xf32, #wrapper.device<cuda>>
  wrapper.free %r : memref<2x2xf32, #wrapper.device<cuda>>
  wrapper.return %o : memref<4xf32, #wrapper.device<cuda>>
}
