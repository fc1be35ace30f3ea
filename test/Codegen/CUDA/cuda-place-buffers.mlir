// RUN: wrapper-opt %s --wrapper-cuda-place-buffers --split-input-file --verify-diagnostics | FileCheck %s

// Tests that a public function copies its argument to the device and its
// result back, that the result's buffer and the copy become device
// allocations freed before the return, and that a buffer only the host
// reads and writes (a reshape's shape) stays a host allocation.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: memref<?x6xf32>)
// CHECK: %[[DX:.*]] = gpu.alloc (%{{.*}}) : memref<?x6xf32>
// CHECK: gpu.memcpy %[[DX]], %[[X]]
// CHECK: %[[SHAPE:.*]] = memref.alloc() : memref<2xindex>
// CHECK: memref.store %{{.*}}, %[[SHAPE]]
// CHECK: memref.reshape %[[DX]](%[[SHAPE]])
// CHECK: %[[OUT:.*]] = gpu.alloc (%{{.*}}) : memref<?x6xf32>
// CHECK: gpu.launch
// CHECK: memref.dealloc %[[SHAPE]]
// CHECK: %[[HOST:.*]] = memref.alloc(%{{.*}}) : memref<?x6xf32>
// CHECK: gpu.memcpy %[[HOST]], %[[OUT]]
// CHECK: gpu.dealloc %[[OUT]]
// CHECK: gpu.dealloc %[[DX]]
// CHECK: return %[[HOST]]
func.func @main(%x: memref<?x6xf32>) -> memref<?x6xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %n = memref.dim %x, %c0 : memref<?x6xf32>
  %shape = memref.alloc() : memref<2xindex>
  memref.store %n, %shape[%c0] : memref<2xindex>
  memref.store %c6, %shape[%c1] : memref<2xindex>
  %r = memref.reshape %x(%shape) : (memref<?x6xf32>, memref<2xindex>) -> memref<?x6xf32>
  %out = memref.alloc(%n) : memref<?x6xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c6, %sy = %c1, %sz = %c1) {
    %v = memref.load %r[%bx, %tx] : memref<?x6xf32>
    memref.store %v, %out[%bx, %tx] : memref<?x6xf32>
    gpu.terminator
  }
  memref.dealloc %shape : memref<2xindex>
  return %out : memref<?x6xf32>
}

// -----

// Tests that host code reading a buffer a kernel writes is refused.
func.func @host_read(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{wrapper-cuda-place-buffers: host code reads or writes a buffer (a loop that was not mapped to the GPU, such as a reduction to a scalar); not supported on CUDA yet}}
  %v = memref.load %x[%c0] : memref<4xf32>
  return %v : f32
}
