// RUN: wrapper-opt %s --wrapper-dedupe-kernels | FileCheck %s
// RUN: wrapper-opt %s --wrapper-dedupe-kernels="report=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// Tests that kernels whose implementations are equal (locations aside)
// share the first implementation, that the copies are erased, and that
// implementations differing in an op, an attribute or a type are kept.
// CHECK: func.func private @k0_impl
// CHECK-NOT: func.func private @k1_impl
// CHECK: func.func private @k2_impl
// CHECK: func.func private @k3_impl
// CHECK: func.func private @k4_impl
// CHECK: wrapper.kernel @k0 = @k0_impl
// CHECK-NEXT: wrapper.kernel @k1 = @k0_impl metadata {kind = "pointwise"}
// CHECK-NEXT: wrapper.kernel @k2 = @k2_impl
// CHECK-NEXT: wrapper.kernel @k3 = @k3_impl
// CHECK-NEXT: wrapper.kernel @k4 = @k4_impl
// REPORT: remark: wrapper-dedupe-kernels: removed 1 kernel implementations
func.func private @k0_impl(%a: memref<4xf32>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}
func.func private @k1_impl(%x: memref<4xf32>, %y: memref<4xf32>) {
  memref.copy %x, %y : memref<4xf32> to memref<4xf32> loc("elsewhere":1:1)
  return
}
func.func private @k2_impl(%a: memref<4xf32>, %b: memref<4xf32>) {
  memref.copy %b, %a : memref<4xf32> to memref<4xf32>
  return
}
func.func private @k3_impl(%a: memref<8xf32>, %b: memref<8xf32>) {
  memref.copy %a, %b : memref<8xf32> to memref<8xf32>
  return
}
func.func private @k4_impl(%a: memref<4xf32>, %b: memref<4xf32>) {
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%b : memref<4xf32>)
  return
}
wrapper.kernel @k0 = @k0_impl
wrapper.kernel @k1 = @k1_impl metadata {kind = "pointwise"}
wrapper.kernel @k2 = @k2_impl
wrapper.kernel @k3 = @k3_impl
wrapper.kernel @k4 = @k4_impl
