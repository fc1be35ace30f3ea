// RUN: wrapper-opt %s -allow-unregistered-dialect --wrapper-lower-alloca-scopes | FileCheck %s

// Tests that an alloca_scope (nested ones too) is inlined between
// stacksave and stackrestore, results forwarded, so that loops inside it can
// then become branches.
// CHECK-LABEL: func.func @scopes
// CHECK: %[[OUTER:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK: memref.alloca() : memref<4xf32>
// CHECK: scf.for
// CHECK: %[[INNER:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK: memref.alloca() : memref<2xf32>
// CHECK: llvm.intr.stackrestore %[[INNER]] : !llvm.ptr
// CHECK: %[[V:.*]] = memref.load
// CHECK: llvm.intr.stackrestore %[[OUTER]] : !llvm.ptr
// CHECK-NOT: memref.alloca_scope
// CHECK: return %[[V]]
func.func @scopes(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = memref.alloca_scope -> f32 {
    %a = memref.alloca() : memref<4xf32>
    scf.for %i = %c0 to %n step %c1 {
      memref.alloca_scope {
        %b = memref.alloca() : memref<2xf32>
        "test.use"(%a, %b) : (memref<4xf32>, memref<2xf32>) -> ()
      }
    }
    %v = memref.load %a[%c0] : memref<4xf32>
    memref.alloca_scope.return %v : f32
  }
  return %r : f32
}
