// RUN: wrapper-opt %s -allow-unregistered-dialect --wrapper-promote-tile-buffers --split-input-file | FileCheck %s
// RUN: wrapper-opt %s -allow-unregistered-dialect --wrapper-promote-tile-buffers="max-stack-bytes=8" --split-input-file | FileCheck %s --check-prefix=SMALL

// Tests that small static temporaries of a tile go to the stack, released
// at the end of each tile, and large or dynamic ones are freed there.
// CHECK-LABEL: func.func @tile
// CHECK: scf.forall
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<1xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<1x256xf32>
// CHECK: %[[DYN:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.dealloc %[[DYN]]
// CHECK-NEXT: llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NEXT: }
// SMALL-LABEL: func.func @tile
// SMALL: memref.alloca() {alignment = 64 : i64} : memref<1xf32>
// SMALL: %[[BIG:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x256xf32>
// SMALL: memref.dealloc %[[BIG]]
func.func @tile(%out: memref<8x256xf32>, %n: index) {
  scf.forall (%i) in (8) {
    %a = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
    %b = memref.alloc() {alignment = 64 : i64} : memref<1x256xf32>
    %c = memref.alloc(%n) : memref<?xf32>
    "test.use"(%a, %b, %c) : (memref<1xf32>, memref<1x256xf32>, memref<?xf32>) -> ()
  }
  return
}

// -----

// Tests that a loop without allocations is left as it is, and that an
// allocation that is already freed is not freed twice.
// CHECK-LABEL: func.func @nothing
// CHECK-NOT: llvm.intr.stacksave
// CHECK-LABEL: func.func @freed
// CHECK: memref.alloc(%{{.*}})
// CHECK-COUNT-1: memref.dealloc
// CHECK-NOT: memref.dealloc
func.func @nothing(%out: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  scf.forall (%i) in (8) {
    memref.store %z, %out[%i] : memref<8xf32>
  }
  return
}
func.func @freed(%n: index) {
  scf.forall (%i) in (8) {
    %c = memref.alloc(%n) : memref<?xf32>
    "test.use"(%c) : (memref<?xf32>) -> ()
    memref.dealloc %c : memref<?xf32>
  }
  return
}
