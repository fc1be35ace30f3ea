// RUN: wrapper-opt %s --wrapper-insert-debug-printer | FileCheck %s --check-prefix=PRINT
// RUN: wrapper-opt %s --wrapper-insert-debug-printer="level=save dir=/tmp/dbg kernels=k2,aten::mm" | FileCheck %s --check-prefix=SAVE
// RUN: wrapper-opt %s --wrapper-insert-debug-printer="level=kernel-names" | FileCheck %s --check-prefix=NAMES
// RUN: wrapper-opt %s --wrapper-insert-debug-printer="level=off" | FileCheck %s --check-prefix=OFF
// RUN: wrapper-opt %s --wrapper-insert-debug-printer="kernels=k9" 2>&1 | FileCheck %s --check-prefix=UNMATCHED
// RUN: not wrapper-opt %s --wrapper-insert-debug-printer="level=loud" 2>&1 | FileCheck %s --check-prefix=BAD

func.func private @k1_impl(memref<4xf32>, memref<4xf32>)
wrapper.kernel @k1 = @k1_impl
func.func private @k2_impl(memref<4xf32>, memref<4xf32>)
wrapper.kernel @k2 = @k2_impl

// PRINT-LABEL: wrapper.graph @g
// PRINT: wrapper.debug_print %[[X:.*]], "before k1 arg 0" : memref<4xf32>
// PRINT-NEXT: wrapper.debug_print %[[A:.*]], "before k1 arg 1" : memref<4xf32>
// PRINT-NEXT: wrapper.call @k1(%[[X]], %[[A]])
// PRINT-NEXT: wrapper.debug_print %[[X]], "after k1 arg 0" : memref<4xf32>
// PRINT-NEXT: wrapper.debug_print %[[A]], "after k1 arg 1" : memref<4xf32>
// PRINT: wrapper.debug_print %{{.*}}, "before k2 arg 0"
// PRINT: wrapper.debug_print %{{.*}}, "before aten::mm arg 0" : memref<2x2xf32>
// PRINT: wrapper.debug_print %{{.*}}, "after aten::mm arg 1" : memref<2x2xf32>
// PRINT: wrapper.debug_print %[[M:.*]], "after aten::mm arg 2" : memref<2x2xf32>
// PRINT-NOT: debug_message
// SAVE-LABEL: wrapper.graph @g
// SAVE-NOT: k1_arg
// SAVE: wrapper.debug_save %{{.*}}, "/tmp/dbg/k2_arg0_before.npy"
// SAVE: wrapper.debug_save %{{.*}}, "/tmp/dbg/k2_arg1_before.npy"
// SAVE: wrapper.call @k2
// SAVE: wrapper.debug_save %{{.*}}, "/tmp/dbg/k2_arg1_after.npy"
// SAVE: wrapper.debug_save %{{.*}}, "/tmp/dbg/aten__mm_arg2_after.npy"
// NAMES: wrapper.debug_message "k1"
// NAMES-NEXT: wrapper.call @k1
// NAMES: wrapper.debug_message "k2"
// NAMES-NEXT: wrapper.call @k2
// NAMES: wrapper.debug_message "aten::mm"
// NAMES-NOT: debug_print
// OFF-LABEL: wrapper.graph @g
// OFF-NOT: wrapper.debug_
// UNMATCHED: warning: wrapper-insert-debug-printer: no call of 'k9' in this module
// UNMATCHED-NOT: debug_print
// BAD: for the --level option: Cannot find option named 'loud'!
wrapper.graph @g(%x: memref<4xf32>, %m: memref<2x2xf32>) -> (memref<4xf32>, memref<2x2xf32>) {
  wrapper.debug_message "an existing one"
  %a = wrapper.alloc() : memref<4xf32>
  wrapper.call @k1(%x, %a) : memref<4xf32>, memref<4xf32>
  %b = wrapper.alloc() : memref<4xf32>
  wrapper.call @k2(%a, %b) : memref<4xf32>, memref<4xf32>
  wrapper.free %a : memref<4xf32>
  %p = wrapper.extern_alloc "aten::mm" ins(%m, %m : memref<2x2xf32>, memref<2x2xf32>) -> memref<2x2xf32>
  wrapper.return %b, %p : memref<4xf32>, memref<2x2xf32>
}
