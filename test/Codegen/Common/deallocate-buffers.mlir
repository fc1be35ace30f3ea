// RUN: wrapper-opt %s --wrapper-deallocate-buffers --split-input-file | FileCheck %s

// A function that frees its own buffers is left as written; one that does
// not gets the frees of what it allocates and does not return.

// CHECK-LABEL: func.func @frees_itself
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.dealloc %[[A]] : memref<4xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return %[[B]]
func.func @frees_itself() -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %b : memref<4xf32>
}

// CHECK-LABEL: func.func @temporary
// CHECK: %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.copy
// CHECK: memref.dealloc %[[T]] : memref<4xf32>
// CHECK: return
func.func @temporary(%x: memref<4xf32>, %y: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  memref.copy %t, %y : memref<4xf32> to memref<4xf32>
  return
}

// CHECK-LABEL: func.func @returned
// CHECK: %[[R:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return %[[R]]
func.func @returned() -> memref<4xf32> {
  %r = memref.alloc() : memref<4xf32>
  return %r : memref<4xf32>
}
