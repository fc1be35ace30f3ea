// RUN: wrapper-opt %s --tensor-program-fuse --split-input-file | FileCheck %s
// RUN: wrapper-opt %s --tensor-program-fuse="elementwise=false reductions=false matmul-epilogues=false" --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: wrapper-opt %s --tensor-program-fuse="max-group-size=2" --split-input-file | FileCheck %s --check-prefix=SMALL

// Tests that an elementwise chain with broadcasts becomes one pointwise
// kernel, with a rank-0 constant cloned in.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[F:.*]] = tensor_program.fused pointwise(%[[A]], %[[B]])
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[C:.*]] = tensor_program.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: tensor_program.add %[[X]], %[[Y]]
// CHECK-NEXT: tensor_program.mul %{{.*}}, %[[C]]
// CHECK-NEXT: tensor_program.relu
// CHECK-NEXT: tensor_program.yield
// CHECK-NOT: tensor_program.constant
// CHECK: return %[[F]]
// NONE-LABEL: func.func @chain
// NONE-COUNT-3: tensor_program.fused pointwise
// SMALL-LABEL: func.func @chain
// SMALL-COUNT-2: tensor_program.fused pointwise
func.func @chain(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %c = tensor_program.constant dense<2.0> : tensor<f32>
  %0 = tensor_program.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = tensor_program.mul %0, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = tensor_program.relu %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// Tests that a decomposed softmax (two reductions over the same row) is one
// reduction kernel.
// CHECK-LABEL: func.func @softmax
// CHECK: tensor_program.fused reduction
// CHECK: tensor_program.reduce_max
// CHECK: tensor_program.reduce_sum
// CHECK: tensor_program.div
// CHECK: tensor_program.yield
// CHECK-NOT: tensor_program.fused
// CHECK: return
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = tensor_program.reduce_max %x dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  %c = tensor_program.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = tensor_program.exp %c : tensor<4x8xf32>
  %s = tensor_program.reduce_sum %e dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  %r = tensor_program.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that reductions over different dimensions are separate kernels.
// CHECK-LABEL: func.func @different_rows
// CHECK: tensor_program.fused reduction
// CHECK: tensor_program.reduce_sum %{{.*}} dims [1]
// CHECK: tensor_program.yield
// CHECK: tensor_program.fused reduction
// CHECK: tensor_program.reduce_sum %{{.*}} dims [0]
func.func @different_rows(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %s = tensor_program.reduce_sum %x dims [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
  %c = tensor_program.sub %x, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %t = tensor_program.reduce_sum %c dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// Tests that a matmul starts a kernel (its producer is not pulled in) and
// takes its elementwise consumers as an epilogue.
// CHECK-LABEL: func.func @matmul_epilogue
// CHECK: %[[P:.*]] = tensor_program.fused pointwise
// CHECK: tensor_program.exp
// CHECK: tensor_program.fused matmul(%[[P]], %{{.*}}, %{{.*}})
// CHECK: tensor_program.matmul
// CHECK: tensor_program.add
// CHECK: tensor_program.gelu
// NONE-LABEL: func.func @matmul_epilogue
// NONE-COUNT-4: tensor_program.fused
func.func @matmul_epilogue(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %e = tensor_program.exp %x : tensor<4x8xf32>
  %m = tensor_program.matmul %e, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = tensor_program.add %m, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %g = tensor_program.gelu %a : tensor<4x16xf32>
  return %g : tensor<4x16xf32>
}

// -----

// Tests that the 2-D transposes of a product's operands join the product's
// kernel (which reads them in place), not the kernel of their producer,
// even when that producer is another product's epilogue (%rt); a transpose
// with a second user (%xt, also returned) stays out. With
// operand-transposes=false every transpose joins its producer's group.
// RUN: wrapper-opt %s --split-input-file --tensor-program-fuse=operand-transposes=false | FileCheck %s --check-prefix=KEEP
// CHECK-LABEL: func.func @operand_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[U:.*]]: tensor<4x8xf32>)
// CHECK: %[[XT:.*]] = tensor_program.fused pointwise(%[[X]])
// CHECK: %[[R:.*]] = tensor_program.fused matmul(%[[W]], %[[XT]])
// CHECK-NEXT: ^bb0(%[[WA:.*]]: tensor<16x8xf32>, %[[XA:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[WT:.*]] = tensor_program.permute %[[WA]] [1, 0]
// CHECK-NEXT: %[[M:.*]] = tensor_program.matmul %[[XA]], %[[WT]]
// CHECK-NEXT: %[[RELU:.*]] = tensor_program.relu %[[M]]
// CHECK-NEXT: tensor_program.yield %[[RELU]] : tensor<4x16xf32>
// CHECK: %[[N:.*]] = tensor_program.fused matmul(%[[R]], %[[U]])
// CHECK-NEXT: ^bb0(%[[RA:.*]]: tensor<4x16xf32>, %[[UA:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[RT:.*]] = tensor_program.permute %[[RA]] [1, 0]
// CHECK-NEXT: tensor_program.matmul %[[RT]], %[[UA]]
// CHECK: return %[[N]], %[[XT]]
// KEEP-LABEL: func.func @operand_transposes
// KEEP-COUNT-2: tensor_program.fused pointwise
// KEEP: tensor_program.fused matmul
// KEEP: tensor_program.matmul
// KEEP: tensor_program.relu
// KEEP: tensor_program.permute
// KEEP: tensor_program.fused matmul
// KEEP-NOT: tensor_program.permute
// KEEP: return
func.func @operand_transposes(%x: tensor<8x4xf32>, %w: tensor<16x8xf32>, %u: tensor<4x8xf32>)
    -> (tensor<16x8xf32>, tensor<4x8xf32>) {
  %xt = tensor_program.permute %x [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %wt = tensor_program.permute %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %m = tensor_program.matmul %xt, %wt : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %r = tensor_program.relu %m : tensor<4x16xf32>
  %rt = tensor_program.permute %r [1, 0] : tensor<4x16xf32> -> tensor<16x4xf32>
  %n = tensor_program.matmul %rt, %u : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  return %n, %xt : tensor<16x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that a value used outside its group becomes a result of the fused op.
// CHECK-LABEL: func.func @shared
// CHECK: %[[F:.*]]:2 = tensor_program.fused pointwise
// CHECK: tensor_program.yield %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>
// CHECK: return %[[F]]#0, %[[F]]#1
func.func @shared(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor_program.exp %x : tensor<8xf32>
  %n = tensor_program.neg %e : tensor<8xf32>
  return %e, %n : tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests that an op does not join a group its other operand depends on
// through an op outside the group (that would make a cycle), and that
// externs stay outside.
// CHECK-LABEL: func.func @no_cycle
// CHECK: %[[G:.*]] = tensor_program.fused pointwise
// CHECK: tensor_program.exp
// CHECK: %[[E:.*]] = tensor_program.extern "aten::relu"(%[[G]])
// CHECK: tensor_program.fused pointwise(%[[G]], %[[E]])
// CHECK: tensor_program.add
func.func @no_cycle(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = tensor_program.exp %x : tensor<8xf32>
  %b = tensor_program.extern "aten::relu"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  %c = tensor_program.add %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// Tests that composites are left for --tensor-program-decompose, and that a
// dynamic size read with tensor.dim is cloned into the kernel.
// CHECK-LABEL: func.func @leftovers
// CHECK: tensor_program.softmax
// CHECK: tensor_program.fused pointwise(%{{.*}}) : (tensor<?x8xf32>) -> tensor<?x2x4xf32>
// CHECK: tensor.dim
// CHECK: tensor_program.reshape
func.func @leftovers(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x2x4xf32>) {
  %s = tensor_program.softmax %x dim 1 : tensor<?x8xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor_program.exp %x : tensor<?x8xf32>
  %r = tensor_program.reshape %e [%n] : tensor<?x8xf32> -> tensor<?x2x4xf32>
  return %s, %r : tensor<?x8xf32>, tensor<?x2x4xf32>
}

// -----

// Tests that a tensor.dim of a member that sizes a member's reshape is
// cloned after that member inside the group (the region stays isolated) and
// does not make the member an output of the group.
// CHECK-LABEL: func.func @dim_of_member
// CHECK: %[[F:.*]] = tensor_program.fused pointwise(%{{.*}}) : (tensor<?x6xf32>) -> tensor<?x3x2xf32>
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<?x6xf32>):
// CHECK-NEXT: %[[R:.*]] = tensor_program.relu %[[X]]
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[D:.*]] = tensor.dim %[[R]], %[[C0]]
// CHECK-NEXT: tensor_program.reshape %[[R]] [%[[D]]]
// CHECK: return %[[F]]
func.func @dim_of_member(%x: tensor<?x6xf32>) -> tensor<?x3x2xf32> {
  %r = tensor_program.relu %x : tensor<?x6xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %r, %c0 : tensor<?x6xf32>
  %v = tensor_program.reshape %r [%n] : tensor<?x6xf32> -> tensor<?x3x2xf32>
  %e = tensor_program.exp %v : tensor<?x3x2xf32>
  return %e : tensor<?x3x2xf32>
}

// -----

// Tests that no two groups feed each other: %b joins %c's group and uses
// %a, so %d (using %a and %c) may not join %a's group (max-group-size=2
// keeps it out of %c's): it gets a group of its own instead of making the
// fused ops a cycle (found on Llama's rotary embedding).
// RUN: wrapper-opt %s --split-input-file --tensor-program-fuse=max-group-size=2 | FileCheck %s --check-prefix=CYCLE
// CYCLE-LABEL: func.func @mutual
// CYCLE: %[[A:.*]] = tensor_program.fused pointwise(%arg0)
// CYCLE: tensor_program.exp
// CYCLE: %[[BC:.*]]:2 = tensor_program.fused pointwise(%arg1, %[[A]])
// CYCLE: tensor_program.neg
// CYCLE: tensor_program.add
// CYCLE: %[[D:.*]] = tensor_program.fused pointwise(%[[A]], %[[BC]]#0)
// CYCLE: tensor_program.mul
// CYCLE: return %[[BC]]#1, %[[D]]
func.func @mutual(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = tensor_program.exp %x : tensor<8xf32>
  %c = tensor_program.neg %y : tensor<8xf32>
  %b = tensor_program.add %a, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %d = tensor_program.mul %a, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %b, %d : tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests that fused ops keep the program's order where their operands allow:
// the exp/add group sits at the add, after the product that reads the exp,
// which moves to right behind it, not behind the independent product that
// followed in the program (keeping order keeps lifetimes short).
// CHECK-LABEL: func.func @order_kept
// CHECK: %[[G:.*]]:2 = tensor_program.fused pointwise(%arg0, %arg2)
// CHECK: %[[M:.*]] = tensor_program.fused matmul(%[[G]]#0, %arg1)
// CHECK: %[[Z:.*]] = tensor_program.fused matmul(%arg3)
// CHECK: return %[[M]], %[[G]]#1, %[[Z]]
func.func @order_kept(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %y: tensor<8x8xf32>,
                      %v: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %a = tensor_program.exp %x : tensor<8x8xf32>
  %m = tensor_program.matmul %a, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = tensor_program.relu %m : tensor<8x8xf32>
  %b = tensor_program.add %a, %y : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %z = tensor_program.matmul %v, %v : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = tensor_program.tanh %z : tensor<8x8xf32>
  return %r, %b, %t : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Tests that a kernel does not write a reshape of what it writes anyway: a
// result that reshapes another result (the activation saved for the
// backward in one shape, read by the next product in another) becomes a
// lone reshape after the kernel, a view of its buffer. A reshape the
// function returns stays in the kernel (a returned view would be copied).
// CHECK-LABEL: func.func @yielded_reshapes
// CHECK: %[[K:.*]]:3 = tensor_program.fused matmul(%arg0, %arg1, %arg2)
// CHECK: tensor_program.matmul
// CHECK: tensor_program.tanh
// CHECK: tensor_program.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4x16xf32>, tensor<8x16xf32>, tensor<128xf32>
// CHECK: %[[V:.*]] = tensor_program.fused pointwise(%[[K]]#0) : (tensor<2x4x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<2x4x16xf32>):
// CHECK-NEXT: %[[R:.*]] = tensor_program.reshape %[[X]] : tensor<2x4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: tensor_program.yield %[[R]]
// CHECK: %[[M:.*]] = tensor_program.fused matmul(%[[V]], %arg3)
// CHECK: return %[[K]]#0, %[[K]]#1, %[[K]]#2, %[[M]]
// NONE-LABEL: func.func @yielded_reshapes
func.func @yielded_reshapes(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>,
                            %d: tensor<16x4xf32>)
    -> (tensor<2x4x16xf32>, tensor<8x16xf32>, tensor<128xf32>, tensor<8x4xf32>) {
  %p = tensor_program.matmul %a, %b : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %r = tensor_program.reshape %p : tensor<8x16xf32> -> tensor<2x4x16xf32>
  %t = tensor_program.tanh %r : tensor<2x4x16xf32>
  %q = tensor_program.reshape %t : tensor<2x4x16xf32> -> tensor<8x16xf32>
  %s = tensor_program.add %q, %c : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %f = tensor_program.reshape %t : tensor<2x4x16xf32> -> tensor<128xf32>
  %m = tensor_program.matmul %q, %d : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %t, %s, %f, %m : tensor<2x4x16xf32>, tensor<8x16xf32>, tensor<128xf32>, tensor<8x4xf32>
}

// -----

// Tests that a yielded reshape stays in its kernel when what it reshapes is
// not written by the kernel (an intermediate value) or its sizes are
// computed in the kernel (dynamic).
// CHECK-LABEL: func.func @yielded_reshapes_kept
// CHECK: tensor_program.fused pointwise(%arg0) : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
// CHECK: tensor_program.exp
// CHECK: tensor_program.reshape
// CHECK: tensor_program.fused pointwise(%arg1) : (tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?xf32>)
// CHECK: tensor_program.exp
// CHECK: tensor_program.reshape {{.*}} [
func.func @yielded_reshapes_kept(%x: tensor<8x16xf32>, %y: tensor<?x16xf32>)
    -> (tensor<2x4x16xf32>, tensor<?x16xf32>, tensor<?xf32>) {
  %e = tensor_program.exp %x : tensor<8x16xf32>
  %r = tensor_program.reshape %e : tensor<8x16xf32> -> tensor<2x4x16xf32>
  %d = tensor_program.exp %y : tensor<?x16xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?x16xf32>
  %c16 = arith.constant 16 : index
  %m = arith.muli %n, %c16 : index
  %f = tensor_program.reshape %d [%m] : tensor<?x16xf32> -> tensor<?xf32>
  return %r, %d, %f : tensor<2x4x16xf32>, tensor<?x16xf32>, tensor<?xf32>
}
