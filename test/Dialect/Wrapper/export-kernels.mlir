// RUN: wrapper-opt %s --wrapper-export-kernels | FileCheck %s --implicit-check-not=wrapper.

// Tests that only the kernel implementations remain, made public, and that
// functions that are not kernels keep their visibility.
// CHECK: func.func @k_impl(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// CHECK: func.func private @helper()
func.func private @k_impl(%a: memref<4xf32>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}
func.func private @helper() {
  return
}
wrapper.kernel @k = @k_impl
wrapper.constant @w : memref<4xf32> = dense<1.0>
wrapper.graph @g(%x: memref<4xf32>) -> memref<4xf32> {
  %b = wrapper.alloc() : memref<4xf32>
  wrapper.call @k(%x, %b) : memref<4xf32>, memref<4xf32>
  wrapper.return %b : memref<4xf32>
}
