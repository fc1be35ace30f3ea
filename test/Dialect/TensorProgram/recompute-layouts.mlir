// RUN: wrapper-opt %s --tensor-program-recompute-layouts=min-distance=2 --split-input-file | FileCheck %s

// Tests that a kernel that only moves elements (here a broadcast to 8x
// its input) is computed again before a late use, which takes the copy,
// while the early use keeps the first one.
// CHECK-LABEL: func.func @late_use
// CHECK: %[[B:.*]] = tensor_program.fused pointwise(%[[X:.*]]) : (tensor<4x8xf32>) -> tensor<8x4x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor_program.broadcast
// CHECK: tensor_program.fused pointwise(%[[B]])
// CHECK: tensor_program.exp
// CHECK: tensor_program.neg
// CHECK: %[[B2:.*]] = tensor_program.fused pointwise(%[[X]]) : (tensor<4x8xf32>) -> tensor<8x4x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor_program.broadcast
// CHECK: tensor_program.fused pointwise(%[[B2]], %{{.*}})
func.func @late_use(%a: tensor<4x8xf32>, %y: tensor<8x4x8xf32>) -> (tensor<8x4x8xf32>, tensor<8x4x8xf32>) {
  %x = tensor_program.fused pointwise(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    %0 = tensor_program.exp %v : tensor<4x8xf32>
    tensor_program.yield %0 : tensor<4x8xf32>
  }
  %b = tensor_program.fused pointwise(%x) : (tensor<4x8xf32>) -> tensor<8x4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    %0 = tensor_program.broadcast %v : tensor<4x8xf32> -> tensor<8x4x8xf32>
    tensor_program.yield %0 : tensor<8x4x8xf32>
  }
  %early = tensor_program.fused pointwise(%b) : (tensor<8x4x8xf32>) -> tensor<8x4x8xf32> {
  ^bb0(%v: tensor<8x4x8xf32>):
    %0 = tensor_program.neg %v : tensor<8x4x8xf32>
    tensor_program.yield %0 : tensor<8x4x8xf32>
  }
  %m1 = tensor_program.fused pointwise(%y) : (tensor<8x4x8xf32>) -> tensor<8x4x8xf32> {
  ^bb0(%v: tensor<8x4x8xf32>):
    %0 = tensor_program.exp %v : tensor<8x4x8xf32>
    tensor_program.yield %0 : tensor<8x4x8xf32>
  }
  %m2 = tensor_program.fused pointwise(%m1) : (tensor<8x4x8xf32>) -> tensor<8x4x8xf32> {
  ^bb0(%v: tensor<8x4x8xf32>):
    %0 = tensor_program.neg %v : tensor<8x4x8xf32>
    tensor_program.yield %0 : tensor<8x4x8xf32>
  }
  %late = tensor_program.fused pointwise(%b, %m2) : (tensor<8x4x8xf32>, tensor<8x4x8xf32>) -> tensor<8x4x8xf32> {
  ^bb0(%v: tensor<8x4x8xf32>, %w: tensor<8x4x8xf32>):
    %0 = tensor_program.add %v, %w : (tensor<8x4x8xf32>, tensor<8x4x8xf32>) -> tensor<8x4x8xf32>
    tensor_program.yield %0 : tensor<8x4x8xf32>
  }
  return %early, %late : tensor<8x4x8xf32>, tensor<8x4x8xf32>
}

// -----

// Tests that a layout tail fused after a reduction (im2col after a pool)
// is recomputed from the reduced value, which the region then returns too.
// CHECK-LABEL: func.func @tail_after_reduction
// CHECK: %[[R:.*]]:2 = tensor_program.fused reduction(%{{.*}}) : (tensor<8x4xf32>) -> (tensor<8x8x4xf32>, tensor<4xf32>)
// CHECK: tensor_program.reduce_max
// CHECK: tensor_program.yield %{{.*}}, %{{.*}} : tensor<8x8x4xf32>, tensor<4xf32>
// CHECK: %[[T:.*]] = tensor_program.fused pointwise(%[[R]]#1) : (tensor<4xf32>) -> tensor<8x8x4xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor_program.broadcast
// CHECK: tensor_program.fused pointwise(%[[T]], %{{.*}})
func.func @tail_after_reduction(%a: tensor<8x4xf32>, %y: tensor<8x8x4xf32>) -> (tensor<8x8x4xf32>, tensor<8x8x4xf32>) {
  %b = tensor_program.fused reduction(%a) : (tensor<8x4xf32>) -> tensor<8x8x4xf32> {
  ^bb0(%v: tensor<8x4xf32>):
    %0 = tensor_program.reduce_max %v dims [0] : tensor<8x4xf32> -> tensor<4xf32>
    %1 = tensor_program.broadcast %0 : tensor<4xf32> -> tensor<8x8x4xf32>
    tensor_program.yield %1 : tensor<8x8x4xf32>
  }
  %early = tensor_program.fused pointwise(%b) : (tensor<8x8x4xf32>) -> tensor<8x8x4xf32> {
  ^bb0(%v: tensor<8x8x4xf32>):
    %0 = tensor_program.neg %v : tensor<8x8x4xf32>
    tensor_program.yield %0 : tensor<8x8x4xf32>
  }
  %m1 = tensor_program.fused pointwise(%y) : (tensor<8x8x4xf32>) -> tensor<8x8x4xf32> {
  ^bb0(%v: tensor<8x8x4xf32>):
    %0 = tensor_program.exp %v : tensor<8x8x4xf32>
    tensor_program.yield %0 : tensor<8x8x4xf32>
  }
  %m2 = tensor_program.fused pointwise(%m1) : (tensor<8x8x4xf32>) -> tensor<8x8x4xf32> {
  ^bb0(%v: tensor<8x8x4xf32>):
    %0 = tensor_program.neg %v : tensor<8x8x4xf32>
    tensor_program.yield %0 : tensor<8x8x4xf32>
  }
  %late = tensor_program.fused pointwise(%b, %m2) : (tensor<8x8x4xf32>, tensor<8x8x4xf32>) -> tensor<8x8x4xf32> {
  ^bb0(%v: tensor<8x8x4xf32>, %w: tensor<8x8x4xf32>):
    %0 = tensor_program.add %v, %w : (tensor<8x8x4xf32>, tensor<8x8x4xf32>) -> tensor<8x8x4xf32>
    tensor_program.yield %0 : tensor<8x8x4xf32>
  }
  return %early, %late : tensor<8x8x4xf32>, tensor<8x8x4xf32>
}

// -----

// Tests what is left alone: a copy no larger than its input, which dies
// early (recomputing would hold the input instead); a region that
// computes (not only moves); a late use that is the return.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-5: tensor_program.fused
// CHECK-NOT: tensor_program.fused
func.func @left_alone(%a: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %x = tensor_program.fused pointwise(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    %0 = tensor_program.exp %v : tensor<4x8xf32>
    tensor_program.yield %0 : tensor<4x8xf32>
  }
  %t = tensor_program.fused pointwise(%x) : (tensor<4x8xf32>) -> tensor<8x4xf32> {
  ^bb0(%v: tensor<4x8xf32>):
    %0 = tensor_program.permute %v [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    tensor_program.yield %0 : tensor<8x4xf32>
  }
  %e = tensor_program.fused pointwise(%t) : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%v: tensor<8x4xf32>):
    %0 = tensor_program.exp %v : tensor<8x4xf32>
    tensor_program.yield %0 : tensor<8x4xf32>
  }
  %m1 = tensor_program.fused pointwise(%y) : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%v: tensor<8x4xf32>):
    %0 = tensor_program.neg %v : tensor<8x4xf32>
    tensor_program.yield %0 : tensor<8x4xf32>
  }
  %late = tensor_program.fused pointwise(%t, %e, %m1) : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%v: tensor<8x4xf32>, %w: tensor<8x4xf32>, %u: tensor<8x4xf32>):
    %0 = tensor_program.add %v, %w : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %1 = tensor_program.add %0, %u : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    tensor_program.yield %1 : tensor<8x4xf32>
  }
  return %late, %e, %t : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}
