// RUN: wrapper-opt %s --tensor-program-hoist-copy-backs --split-input-file | FileCheck %s

// Tests that an update computed at the end moves up to just after its
// gradient and the weight's last reader, its write-back right after it,
// and that the small value it needs (computed late from an argument)
// moves up with it; unrelated work stays after.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:.*]]: tensor<16x16xf32>, %[[X:.*]]: tensor<16x16xf32>, %[[LR:.*]]: tensor<f32>)
// CHECK-NEXT: %[[S:.*]] = tensor_program.mul %[[LR]], %[[LR]]
// CHECK-NEXT: %[[Y:.*]] = tensor_program.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[G:.*]] = tensor_program.matmul %[[X]], %[[Y]]
// CHECK-NEXT: %[[DX:.*]] = tensor_program.matmul %[[Y]], %[[W]]
// CHECK-NEXT: %[[NEW:.*]] = tensor_program.fused pointwise(%[[W]], %[[G]], %[[S]])
// CHECK: tensor_program.copy_back %[[NEW]] to %[[W]]
// CHECK-NEXT: %[[E:.*]] = tensor_program.exp %[[DX]]
// CHECK-NEXT: tensor_program.neg %[[E]]
func.func @step(%w: tensor<16x16xf32>, %x: tensor<16x16xf32>, %lr: tensor<f32>) -> tensor<16x16xf32> {
  %y = tensor_program.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %g = tensor_program.matmul %x, %y : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %dx = tensor_program.matmul %y, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %e = tensor_program.exp %dx : tensor<16x16xf32>
  %r = tensor_program.neg %e : tensor<16x16xf32>
  %s = tensor_program.mul %lr, %lr : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %new = tensor_program.fused pointwise(%w, %g, %s) : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<f32>):
    %0 = tensor_program.mul %b, %c : (tensor<16x16xf32>, tensor<f32>) -> tensor<16x16xf32>
    %1 = tensor_program.sub %a, %0 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    tensor_program.yield %1 : tensor<16x16xf32>
  }
  tensor_program.copy_back %new to %w : tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// Tests that a write-back placed before a reader of the old value moves
// after it, with its update, also when the reader reads a view of the
// argument.
// CHECK-LABEL: func.func @reader_after
// CHECK: %[[V:.*]] = tensor_program.reshape
// CHECK-NEXT: tensor_program.neg %[[V]]
// CHECK-NEXT: %[[NEW:.*]] = tensor_program.exp
// CHECK-NEXT: tensor_program.copy_back %[[NEW]]
// CHECK-NEXT: return
func.func @reader_after(%w: tensor<2x8xf32>) -> tensor<16xf32> {
  %new = tensor_program.exp %w : tensor<2x8xf32>
  tensor_program.copy_back %new to %w : tensor<2x8xf32>
  %v = tensor_program.reshape %w : tensor<2x8xf32> -> tensor<16xf32>
  %r = tensor_program.neg %v : tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Tests that an extern call (which may have effects) is not moved; its
// write-back follows it.
// CHECK-LABEL: func.func @extern_producer
// CHECK: tensor_program.exp
// CHECK-NEXT: %[[NEW:.*]] = tensor_program.extern "aten::neg"
// CHECK-NEXT: tensor_program.copy_back %[[NEW]]
func.func @extern_producer(%w: tensor<4xf32>) -> tensor<4xf32> {
  %r = tensor_program.exp %w : tensor<4xf32>
  %new = tensor_program.extern "aten::neg"(%w) : (tensor<4xf32>) -> tensor<4xf32>
  tensor_program.copy_back %new to %w : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that an update ordered before readers of the old weight (as fusion
// may order them) moves down after the last of them (here a reader of a
// view), so that it can write the weight in place, and that an update of
// arguments alone moves to the top, its write-back right after it.
// CHECK-LABEL: func.func @update_before_reader
// CHECK-NEXT: %[[M:.*]] = tensor_program.neg %arg1
// CHECK-NEXT: tensor_program.copy_back %[[M]] to %arg1
// CHECK-NEXT: %[[V:.*]] = tensor_program.reshape %arg0
// CHECK-NEXT: tensor_program.exp %[[M]]
// CHECK-NEXT: tensor_program.matmul %arg2, %[[V]]
// CHECK-NEXT: tensor_program.add %[[M]], %[[V]]
// CHECK-NEXT: %[[NEW:.*]] = tensor_program.sub %arg0, %arg2
// CHECK-NEXT: tensor_program.copy_back %[[NEW]] to %arg0
// CHECK-NEXT: return
func.func @update_before_reader(%w: tensor<8x8xf32>, %m: tensor<8x8xf32>, %g: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %v = tensor_program.reshape %w : tensor<8x8xf32> -> tensor<8x8xf32>
  %new = tensor_program.sub %w, %g : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  tensor_program.copy_back %new to %w : tensor<8x8xf32>
  %new_m = tensor_program.neg %m : tensor<8x8xf32>
  tensor_program.copy_back %new_m to %m : tensor<8x8xf32>
  %e = tensor_program.exp %new_m : tensor<8x8xf32>
  %r = tensor_program.matmul %g, %v : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = tensor_program.add %new_m, %v : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r, %e, %s : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Tests that an update with a user before the reader of the old weight
// stays where it is; only its write-back moves after the reader.
// CHECK-LABEL: func.func @user_before_reader
// CHECK-NEXT: %[[NEW:.*]] = tensor_program.neg %arg0
// CHECK-NEXT: %[[E:.*]] = tensor_program.exp %[[NEW]]
// CHECK-NEXT: tensor_program.add %arg0, %[[E]]
// CHECK-NEXT: tensor_program.copy_back %[[NEW]] to %arg0
func.func @user_before_reader(%w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %new = tensor_program.neg %w : tensor<8x8xf32>
  tensor_program.copy_back %new to %w : tensor<8x8xf32>
  %e = tensor_program.exp %new : tensor<8x8xf32>
  %r = tensor_program.add %w, %e : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
