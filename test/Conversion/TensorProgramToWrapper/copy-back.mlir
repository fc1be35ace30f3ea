// RUN: wrapper-opt %s --convert-tensor-program-to-wrapper --split-input-file | FileCheck %s

// Tests that an elementwise update is computed straight into the argument
// it is written back to (no allocation, no copy) when nothing reads the
// argument after the kernel, and that a momentum written in place is what
// the next update reads.
// CHECK-LABEL: wrapper.graph @sgd
// CHECK-SAME: (%[[P:.*]]: memref<8x4xf32> {wrapper.mutated}, %[[M:.*]]: memref<8x4xf32> {wrapper.mutated}, %[[G:.*]]: memref<8x4xf32>)
// CHECK-NOT: wrapper.alloc
// CHECK: wrapper.call @sgd_kernel_0(%[[M]], %[[G]], %[[M]])
// CHECK-NEXT: wrapper.comment
// CHECK-NEXT: wrapper.call @sgd_kernel_1(%[[M]], %[[P]], %[[P]])
// CHECK-NOT: copy
// CHECK: wrapper.return
func.func @sgd(%p: tensor<8x4xf32>, %m: tensor<8x4xf32>, %g: tensor<8x4xf32>) {
  %new_m = tensor_program.fused pointwise(%m, %g) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>):
    %c = tensor_program.constant dense<0.9> : tensor<f32>
    %0 = tensor_program.mul %a, %c : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xf32>
    %1 = tensor_program.add %0, %b : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    tensor_program.yield %1 : tensor<8x4xf32>
  }
  %new_p = tensor_program.fused pointwise(%new_m, %p) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>):
    %0 = tensor_program.sub %b, %a : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    tensor_program.yield %0 : tensor<8x4xf32>
  }
  tensor_program.copy_back %new_m to %m : tensor<8x4xf32>
  tensor_program.copy_back %new_p to %p : tensor<8x4xf32>
  return
}

// -----

// Tests that an argument read after the update's kernel keeps its value:
// the update goes to a new buffer, copied in at the write-back (after the
// reader).
// CHECK-LABEL: wrapper.graph @read_later
// CHECK-SAME: (%[[P:.*]]: memref<4xf32> {wrapper.mutated}, %[[G:.*]]: memref<4xf32>)
// CHECK: %[[NEW:.*]] = wrapper.alloc() : memref<4xf32>
// CHECK: wrapper.call @read_later_kernel_0(%[[P]], %[[G]], %[[NEW]])
// CHECK: wrapper.call @read_later_kernel_1(%[[P]], %[[OUT:.*]])
// CHECK: wrapper.call @read_later_copy_2(%[[NEW]], %[[P]])
// CHECK: wrapper.return %[[OUT]]
func.func @read_later(%p: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %new = tensor_program.fused pointwise(%p, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %0 = tensor_program.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tensor_program.yield %0 : tensor<4xf32>
  }
  %r = tensor_program.fused pointwise(%p) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = tensor_program.exp %a : tensor<4xf32>
    tensor_program.yield %0 : tensor<4xf32>
  }
  tensor_program.copy_back %new to %p : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that a write-back placed before a reader of the argument is done
// at the end (the reader sees the old value), and that a returned
// argument is returned as it was before the write-back (a copy).
// CHECK-LABEL: wrapper.graph @write_before_read
// CHECK-SAME: (%[[P:.*]]: memref<4xf32> {wrapper.mutated}, %[[G:.*]]: memref<4xf32>)
// CHECK: %[[NEW:.*]] = wrapper.alloc() : memref<4xf32>
// CHECK: wrapper.call @write_before_read_kernel_0(%[[P]], %[[G]], %[[NEW]])
// CHECK: wrapper.call @write_before_read_kernel_1(%[[P]], %[[OUT:.*]])
// CHECK: %[[OLD:.*]] = wrapper.alloc() : memref<4xf32>
// CHECK: wrapper.call @write_before_read_copy_2(%[[P]], %[[OLD]])
// CHECK: wrapper.call @write_before_read_copy_3(%[[NEW]], %[[P]])
// CHECK: wrapper.return %[[OUT]], %[[OLD]]
func.func @write_before_read(%p: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %new = tensor_program.fused pointwise(%p, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %0 = tensor_program.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tensor_program.yield %0 : tensor<4xf32>
  }
  tensor_program.copy_back %new to %p : tensor<4xf32>
  %r = tensor_program.fused pointwise(%p) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = tensor_program.exp %a : tensor<4xf32>
    tensor_program.yield %0 : tensor<4xf32>
  }
  return %r, %p : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests what is not written in place: an argument read at other positions
// (a transpose), one whose values reach a second result, and a reduction.
// CHECK-LABEL: wrapper.graph @not_in_place
// CHECK-SAME: (%[[A:.*]]: memref<4x4xf32> {wrapper.mutated}, %[[B:.*]]: memref<4xf32> {wrapper.mutated}, %[[C:.*]]: memref<4x4xf32> {wrapper.mutated})
// CHECK: %[[T:.*]] = wrapper.alloc() : memref<4x4xf32>
// CHECK: wrapper.call @not_in_place_kernel_0(%[[A]], %[[T]])
// CHECK: %[[B1:.*]] = wrapper.alloc() : memref<4xf32>
// CHECK: %[[B2:.*]] = wrapper.alloc() : memref<4xf32>
// CHECK: wrapper.call @not_in_place_kernel_1(%[[B]], %[[B1]], %[[B2]])
// CHECK: %[[S:.*]] = wrapper.alloc() : memref<4x4xf32>
// CHECK: wrapper.call @not_in_place_kernel_2(%[[C]], %[[S]])
// CHECK: wrapper.call @not_in_place_copy_3(%[[T]], %[[A]])
// CHECK: wrapper.call @not_in_place_copy_4(%[[B1]], %[[B]])
// CHECK: wrapper.call @not_in_place_copy_5(%[[S]], %[[C]])
func.func @not_in_place(%a: tensor<4x4xf32>, %b: tensor<4xf32>, %c: tensor<4x4xf32>) -> tensor<4xf32> {
  %t = tensor_program.fused pointwise(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%x: tensor<4x4xf32>):
    %0 = tensor_program.permute %x [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    tensor_program.yield %0 : tensor<4x4xf32>
  }
  %b1, %b2 = tensor_program.fused pointwise(%b) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>):
    %0 = tensor_program.exp %x : tensor<4xf32>
    %1 = tensor_program.neg %0 : tensor<4xf32>
    tensor_program.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  %s = tensor_program.fused reduction(%c) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%x: tensor<4x4xf32>):
    %0 = tensor_program.reduce_sum %x dims [1] : tensor<4x4xf32> -> tensor<4xf32>
    %1 = tensor_program.reshape %0 : tensor<4xf32> -> tensor<4x1xf32>
    %2 = tensor_program.sub %x, %1 : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
    tensor_program.yield %2 : tensor<4x4xf32>
  }
  tensor_program.copy_back %t to %a : tensor<4x4xf32>
  tensor_program.copy_back %b1 to %b : tensor<4xf32>
  tensor_program.copy_back %s to %c : tensor<4x4xf32>
  return %b2 : tensor<4xf32>
}

// -----

// Tests that a view of the argument read after the update keeps the
// update out of the argument.
// CHECK-LABEL: wrapper.graph @view_read_later
// CHECK: %[[V:.*]] = wrapper.reinterpret %[[P:[^ ]*]] to
// CHECK: %[[NEW:.*]] = wrapper.alloc() : memref<2x2xf32>
// CHECK: wrapper.call @view_read_later_kernel_{{[0-9]+}}(%[[P]], %[[NEW]])
// CHECK: wrapper.call @view_read_later_kernel_{{[0-9]+}}(%[[V]], %{{.*}})
// CHECK: wrapper.call @view_read_later_copy_{{[0-9]+}}(%[[NEW]], %[[P]])
func.func @view_read_later(%p: tensor<2x2xf32>) -> tensor<4xf32> {
  %v = tensor_program.fused pointwise(%p) : (tensor<2x2xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<2x2xf32>):
    %0 = tensor_program.reshape %x : tensor<2x2xf32> -> tensor<4xf32>
    tensor_program.yield %0 : tensor<4xf32>
  }
  %new = tensor_program.fused pointwise(%p) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
  ^bb0(%x: tensor<2x2xf32>):
    %0 = tensor_program.exp %x : tensor<2x2xf32>
    tensor_program.yield %0 : tensor<2x2xf32>
  }
  %r = tensor_program.fused pointwise(%v) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %0 = tensor_program.neg %x : tensor<4xf32>
    tensor_program.yield %0 : tensor<4xf32>
  }
  tensor_program.copy_back %new to %p : tensor<2x2xf32>
  return %r : tensor<4xf32>
}
