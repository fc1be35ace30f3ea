// RUN: wrapper-opt %s --convert-wrapper-to-standard="external-constants" | FileCheck %s --check-prefix=SLOTS

// Tests external constants with external-constants: a hidden pointer slot,
// and a memref descriptor built on the pointer it holds.
// SLOTS: llvm.mlir.global external hidden @__wrapper_slot_w() {{.*}} : !llvm.ptr {
// SLOTS-NEXT: %[[Z:.*]] = llvm.mlir.zero : !llvm.ptr
// SLOTS-NEXT: llvm.return %[[Z]] : !llvm.ptr
// SLOTS: memref.global "private" constant @b : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// SLOTS-LABEL: func.func @slots
// SLOTS: %[[A:.*]] = llvm.mlir.addressof @__wrapper_slot_w : !llvm.ptr
// SLOTS: %[[P:.*]] = llvm.load %[[A]] : !llvm.ptr -> !llvm.ptr
// SLOTS: llvm.insertvalue %[[P]], %{{.*}}[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// SLOTS: llvm.insertvalue %[[P]], %{{.*}}[1]
// SLOTS: %[[M:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<3x4xf32>
// SLOTS: memref.get_global @b
wrapper.constant @w : memref<3x4xf32> external
wrapper.constant @b : memref<2xf32> = dense<[1.0, 2.0]>
wrapper.graph @slots() -> (memref<3x4xf32>, memref<2xf32>) {
  %w = wrapper.get_constant @w : memref<3x4xf32>
  %b = wrapper.get_constant @b : memref<2xf32>
  wrapper.return %w, %b : memref<3x4xf32>, memref<2xf32>
}
