// RUN: wrapper-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(wrapper-cuda-drop-host-waits))" | FileCheck %s

// Blocking waits go, before returns and in host loops, in public and
// private functions; a wait that yields a token stays.

// CHECK-LABEL: func.func @entry
// CHECK-NOT: gpu.wait
// CHECK: return
func.func @entry(%t: !gpu.async.token) {
  gpu.wait [%t]
  return
}

// CHECK-LABEL: func.func private @helper
// CHECK-NOT: gpu.wait
// CHECK: return
func.func private @helper(%t: !gpu.async.token) {
  gpu.wait [%t]
  return
}

// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK-NOT: gpu.wait [
// CHECK: return
func.func @loop(%n: index, %d: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %t = gpu.wait async
    %u = gpu.memset async [%t] %d, %f : memref<4xf32>, f32
    gpu.wait [%u]
  }
  return
}

// CHECK-LABEL: func.func @async_token
// CHECK: gpu.wait async
func.func @async_token(%t: !gpu.async.token) -> !gpu.async.token {
  %u = gpu.wait async [%t]
  return %u : !gpu.async.token
}

// A copy into a part of a device buffer (a concatenation's) or into an
// argument is a device copy: the waits go.

// CHECK-LABEL: func.func @into_a_part
// CHECK-NOT: gpu.wait [
// CHECK: return
func.func @into_a_part(%a: memref<4xf32>, %out: memref<4xf32>) -> memref<8xf32> {
  %d = gpu.alloc () : memref<8xf32>
  %part = memref.subview %d[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  %t = gpu.wait async
  %u = gpu.memcpy async [%t] %part, %a : memref<4xf32, strided<[1], offset: 4>>, memref<4xf32>
  %v = gpu.memcpy async [%u] %out, %a : memref<4xf32>, memref<4xf32>
  gpu.wait [%v]
  return %d : memref<8xf32>
}

// -----

// A copy into host memory keeps the function's waits: the host reads it
// after the wait.

// CHECK-LABEL: func.func @to_host
// CHECK: gpu.memcpy
// CHECK: gpu.wait [
// CHECK: memref.load
func.func @to_host(%d: memref<4xf32>) -> f32 {
  %h = memref.alloc() : memref<4xf32>
  %t = gpu.wait async
  %u = gpu.memcpy async [%t] %h, %d : memref<4xf32>, memref<4xf32>
  gpu.wait [%u]
  %c0 = arith.constant 0 : index
  %v = memref.load %h[%c0] : memref<4xf32>
  return %v : f32
}
