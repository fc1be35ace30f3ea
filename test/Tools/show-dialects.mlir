// RUN: wrapper-opt --show-dialects | FileCheck %s

// Tests that wrapper-opt registers both project dialects and the upstream
// dialects their programs use.
// CHECK: Available Dialects:
// CHECK-SAME: arith
// CHECK-SAME: func
// CHECK-SAME: gpu
// CHECK-SAME: linalg
// CHECK-SAME: memref
// CHECK-SAME: tensor_program
// CHECK-SAME: wrapper
