// RUN: wrapper-opt %s --wrapper-cuda-stream-ordered-calls | FileCheck %s

// The host wait before a call of a stream-ordered function goes (the callee
// queues on the runtime's stream); the one before any other call stays.

func.func private @gemm(memref<4xf32>) attributes {wrapper.cuda_stream_ordered}
func.func private @other(memref<4xf32>)

// CHECK-LABEL: func.func @calls
// CHECK-NEXT: call @gemm
// CHECK-NEXT: gpu.wait
// CHECK-NEXT: call @other
func.func @calls(%a: memref<4xf32>, %t: !gpu.async.token) {
  gpu.wait [%t]
  call @gemm(%a) : (memref<4xf32>) -> ()
  gpu.wait
  call @other(%a) : (memref<4xf32>) -> ()
  return
}
