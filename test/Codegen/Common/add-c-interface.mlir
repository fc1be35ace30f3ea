// RUN: wrapper-opt %s --wrapper-add-c-interface | FileCheck %s

// Public functions with a body get the attribute; private functions and
// declarations do not.

// CHECK-LABEL: func.func @entry
// CHECK-SAME: attributes {llvm.emit_c_interface}
func.func @entry(%a: memref<4xf32>) {
  return
}

// CHECK-LABEL: func.func private @helper
// CHECK-NOT: llvm.emit_c_interface
func.func private @helper(%a: memref<4xf32>) {
  return
}

// CHECK: func.func private @external(memref<4xf32>){{$}}
func.func private @external(memref<4xf32>)
