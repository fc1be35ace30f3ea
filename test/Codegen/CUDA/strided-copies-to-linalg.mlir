// RUN: wrapper-opt %s --wrapper-strided-copies-to-linalg | FileCheck %s

// A copy into a strided slice becomes linalg.copy (a kernel on the GPU); a
// copy between contiguous buffers stays memref.copy (a device memcpy).

// CHECK-LABEL: func.func @copies
// CHECK: linalg.copy ins(%{{.*}} : memref<4x8xf32>) outs(%{{.*}} : memref<4x8xf32, strided<[16, 1]>>)
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4x8xf32> to memref<4x8xf32>
// CHECK-NOT: linalg.copy
func.func @copies(%src: memref<4x8xf32>, %dst: memref<4x16xf32>, %flat: memref<4x8xf32>) {
  %view = memref.subview %dst[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  memref.copy %src, %view : memref<4x8xf32> to memref<4x8xf32, strided<[16, 1]>>
  memref.copy %src, %flat : memref<4x8xf32> to memref<4x8xf32>
  return
}
