// RUN: wrapper-opt %s --wrapper-dedupe-constants | FileCheck %s
// RUN: wrapper-opt %s --wrapper-dedupe-constants="report=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// Tests that constants of equal type and value are stored once, that the
// reads of the merged ones are redirected, and that different values, other
// types and external constants are kept.
// CHECK: wrapper.constant @a : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NOT: wrapper.constant @b
// CHECK: wrapper.constant @c : memref<2xf32> = dense<[1.000000e+00, 3.000000e+00]>
// CHECK: wrapper.constant @d : memref<1x2xf32>
// CHECK: wrapper.constant @e : memref<2xf32> external
// CHECK: wrapper.constant @f : memref<2xf32> external
// CHECK-NOT: wrapper.constant @h
// CHECK-LABEL: wrapper.graph @g
// CHECK: wrapper.get_constant @a
// CHECK-NEXT: wrapper.get_constant @a
// CHECK-NEXT: wrapper.get_constant @c
// CHECK-NEXT: wrapper.get_constant @a
// REPORT: remark: wrapper-dedupe-constants: merged 2 constants, saving 16 bytes
wrapper.constant @a : memref<2xf32> = dense<[1.0, 2.0]>
wrapper.constant @b : memref<2xf32> = dense<[1.0, 2.0]>
wrapper.constant @c : memref<2xf32> = dense<[1.0, 3.0]>
wrapper.constant @d : memref<1x2xf32> = dense<[[1.0, 2.0]]>
wrapper.constant @e : memref<2xf32> external
wrapper.constant @f : memref<2xf32> external
wrapper.constant @h : memref<2xf32> = dense<[1.0, 2.0]>
wrapper.graph @g() -> (memref<2xf32>, memref<2xf32>, memref<2xf32>, memref<2xf32>) {
  %0 = wrapper.get_constant @a : memref<2xf32>
  %1 = wrapper.get_constant @b : memref<2xf32>
  %2 = wrapper.get_constant @c : memref<2xf32>
  %3 = wrapper.get_constant @h : memref<2xf32>
  wrapper.return %0, %1, %2, %3 : memref<2xf32>, memref<2xf32>, memref<2xf32>, memref<2xf32>
}
